import type { PageLocale } from '@checkout/contracts';
import type { Catalog } from '../catalog';
import { ar } from './ar';
import { de } from './de';
import { en } from './en';
import { es } from './es';
import { fr } from './fr';
import { it } from './it';
import { ja } from './ja';
import { nl } from './nl';
import { ptBR } from './pt-BR';
import { zhHans } from './zh-Hans';

/** The hosted page's catalog of each locale D53 lists: the compiler asks for one when a locale is added. */
export const CATALOGS: Record<PageLocale, Catalog> = {
  en,
  es,
  fr,
  de,
  it,
  'pt-BR': ptBR,
  nl,
  ja,
  'zh-Hans': zhHans,
  ar,
};
