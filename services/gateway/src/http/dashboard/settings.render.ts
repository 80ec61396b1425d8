import { DISPLAY_NAME_MAX, LOGO_URL_MAX, SESSION_LOCALES, type CheckoutBrand } from '@checkout/contracts';
import { escapeHtml as e, markup } from '@checkout/html';
import { layout, type PageContext } from './layout';
import { notice } from './parts';

// The Settings page: the hosted page's brand (display name, colour, logo) and the default locale of new sessions,
// one form posted with the session's CSRF token. An empty field clears its setting.

/** Each locale named in its own language, so a merchant finds its customers' language whatever it reads. */
const LOCALE_NAMES: Record<(typeof SESSION_LOCALES)[number], string> = {
  en: 'English',
  es: 'Español',
  fr: 'Français',
  de: 'Deutsch',
  it: 'Italiano',
  'pt-BR': 'Português (Brasil)',
  nl: 'Nederlands',
  ja: '日本語',
  'zh-Hans': '简体中文',
  ar: 'العربية',
};

/** What the form shows: the stored settings, or what was typed when a save was refused. */
export type SettingsValues = Record<keyof CheckoutBrand, string>;

export const valuesOf = (brand: CheckoutBrand): SettingsValues => ({
  displayName: brand.displayName ?? '',
  brandColor: brand.brandColor ?? '',
  logoUrl: brand.logoUrl ?? '',
  defaultLocale: brand.defaultLocale ?? 'auto',
});

function localeOptions(chosen: string): string {
  const option = (value: string, label: string, lang?: string) =>
    `<option value="${e(value)}"${lang ? ` lang="${e(lang)}"` : ''}${value === chosen ? ' selected' : ''}>${e(label)}</option>`;
  return [
    option('auto', "The customer's browser language"),
    ...SESSION_LOCALES.map((locale) => option(locale, LOCALE_NAMES[locale], locale)),
  ].join('');
}

export function settingsPage(ctx: PageContext, values: SettingsValues, message?: string, error?: string): string {
  const body = markup`
    <h1>Settings</h1>${notice(message)}${notice(error, 'error')}
    <div class="card">
      <h2>Hosted checkout page</h2>
      <p>What your customers see of you on the payment page. Leave a field empty to clear it.</p>
      <form method="post" action="/dashboard/settings">
        <input type="hidden" name="csrf" value="${e(ctx.csrfToken)}">
        <p>
          <label for="displayName">Display name (else your organization's name)</label>
          <input id="displayName" name="displayName" type="text" maxlength="${DISPLAY_NAME_MAX}"
            value="${e(values.displayName)}" autocomplete="organization">
        </p>
        <p>
          <label for="brandColor">Button colour, as #rrggbb (its text is black or white, whichever reads better)</label>
          <input id="brandColor" name="brandColor" type="text" pattern="#[0-9a-fA-F]{6}" maxlength="7"
            value="${e(values.brandColor)}" placeholder="#1d4ed8" autocomplete="off">
        </p>
        <p>
          <label for="logoUrl">Logo URL (https only)</label>
          <input id="logoUrl" name="logoUrl" type="url" maxlength="${LOGO_URL_MAX}" value="${e(values.logoUrl)}"
            placeholder="https://example.com/logo.svg" autocomplete="off">
        </p>
        <p>
          <label for="defaultLocale">Language of new checkout sessions that name none</label>
          <select id="defaultLocale" name="defaultLocale">${localeOptions(values.defaultLocale)}</select>
        </p>
        <p><button type="submit">Save settings</button></p>
      </form>
    </div>`;
  return layout(ctx, 'Settings', body);
}
