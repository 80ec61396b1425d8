import Router from '@koa/router';
import type { Middleware } from 'koa';
import { parseOrThrow, requireScope } from '@checkout/http';
import { UpdateCheckoutSettingsRequest, type CheckoutBrand, type CheckoutSettingsResponse } from '@checkout/contracts';
import type { BrandSettings } from '../domain/brand-settings';

/** `GET`/`PATCH /v0/checkout_settings`: the gateway owns checkout settings, so it answers these itself. */
export function checkoutSettingsRoutes(settings: BrandSettings, api: { authenticate: Middleware; body: Middleware }) {
  const router = new Router();
  const answer = (checkoutSettings: CheckoutBrand): CheckoutSettingsResponse => ({ checkoutSettings });
  router.get('/v0/checkout_settings', api.authenticate, async (ctx) => {
    ctx.body = answer(await settings.read(requireScope(ctx.state)));
  });
  router.patch('/v0/checkout_settings', api.authenticate, api.body, async (ctx) => {
    const scope = requireScope(ctx.state);
    const patch = parseOrThrow(UpdateCheckoutSettingsRequest, ctx.request.jsonBody ?? {}, 'INVALID_REQUEST');
    ctx.body = answer(await settings.update(scope, patch));
  });
  return router;
}
