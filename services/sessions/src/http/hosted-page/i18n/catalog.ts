import type { en } from './catalogs/en';

/** A text that depends on a number: a form per plural category of the language; `{count}` is the number. */
export type PluralText = { readonly other: string } & { readonly [K in Intl.LDMLPluralRule]?: string };

/** A locale's words: English's keys (catalogs/en.ts), each a text or, where English has one, a plural text. */
export type Catalog = { readonly [K in keyof typeof en]: (typeof en)[K] extends string ? string : PluralText };

export type TextKey = { [K in keyof Catalog]: Catalog[K] extends string ? K : never }[keyof Catalog];
export type PluralKey = Exclude<keyof Catalog, TextKey>;
