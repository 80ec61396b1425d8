import { UpdateCheckoutSettingsRequest } from '@checkout/contracts';
import { parseOrThrow } from '@checkout/http';
import { isDomainError } from '@checkout/errors';
import { one, pageCtx, respond, scopeOf, seeOther, verifiedForm, type MountSection } from './kit';
import { settingsPage, valuesOf, type SettingsValues } from './settings.render';

// The Settings section: the hosted page's brand and default locale, shown in a form that saves them all at once
// through the same change the API's PATCH /v0/checkout_settings makes.

const BASE = '/settings';

/** The form's fields as a change: each one sent, an empty one (or `auto`'s default) clearing its setting. */
function changeOf(form: URLSearchParams): { values: SettingsValues; change: unknown } {
  const field = (name: keyof SettingsValues) => (form.get(name) ?? '').trim();
  const values: SettingsValues = {
    displayName: field('displayName'),
    brandColor: field('brandColor'),
    logoUrl: field('logoUrl'),
    defaultLocale: field('defaultLocale') || 'auto',
  };
  const orNull = (value: string) => (value === '' ? null : value);
  return {
    values,
    change: {
      displayName: orNull(values.displayName),
      brandColor: orNull(values.brandColor),
      logoUrl: orNull(values.logoUrl),
      defaultLocale: values.defaultLocale === 'auto' ? null : values.defaultLocale,
    },
  };
}

export const mountSettingsPages: MountSection = (pages, deps, session) => {
  pages.get(BASE, session, async (ctx) => {
    const brand = await deps.brand.read(scopeOf(ctx));
    const message = one(ctx.query.m) === 'saved' ? 'Saved. New checkout sessions show it.' : undefined;
    respond(ctx, settingsPage(pageCtx(ctx, 'settings'), valuesOf(brand), message));
  });
  pages.post(BASE, session, async (ctx) => {
    const form = await verifiedForm(ctx);
    const { values, change } = changeOf(form);
    try {
      await deps.brand.update(scopeOf(ctx), parseOrThrow(UpdateCheckoutSettingsRequest, change, 'INVALID_REQUEST'));
    } catch (err) {
      // A refused form (a logo not https, a colour not #rrggbb) is shown again with what was wrong.
      if (!isDomainError(err) || err.code !== 'INVALID_REQUEST') throw err;
      const problems = err.details?.map((d) => `${d.path}: ${d.message}`).join('; ') ?? err.message;
      respond(ctx, settingsPage(pageCtx(ctx, 'settings'), values, undefined, `Not saved: ${problems}`));
      return;
    }
    seeOther(ctx, `/dashboard${BASE}?m=saved`);
  });
};
