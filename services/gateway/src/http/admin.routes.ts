import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { z } from 'zod';
import { DomainError } from '@checkout/errors';
import { jsonBody, parseOrThrow, secretsEqual } from '@checkout/http';
import {
  HttpUrl,
  INTERNAL_ROUTES as R,
  ModeSchema,
  PaymentMethod,
  UpdateCheckoutSettingsRequest,
  internalPath,
  type InternalRoute,
  type Mode,
} from '@checkout/contracts';
import type { AdminTokenGuesses } from '../domain/admin-token-guesses';
import { brandOf, previousSecretSignsUntil, type CheckoutSettings } from '../domain/checkout-settings';
import type { Organizations } from '../domain/organizations';
import type { Forwarding } from '../domain/owners';
import type { ApiKeyDocument, OrganizationDocument } from '../store/organization.document';

const CreateOrganization = z.strictObject({ name: z.string().trim().min(1).max(200) });
const CreateKey = z.strictObject({ mode: ModeSchema });
const ModeOnly = z.strictObject({ mode: ModeSchema });
const CheckoutSettingsPatch = z.strictObject({
  mode: ModeSchema,
  defaultCallbackUrl: HttpUrl.nullable().optional(),
  enabledPaymentMethods: z.array(PaymentMethod).min(1).optional(),
  /** true generates a new whsec_ secret (shown once); false removes signing. */
  webhookSigning: z.boolean().optional(),
  ...UpdateCheckoutSettingsRequest.shape,
});

const presentSettings = (mode: Mode, settings: CheckoutSettings, now: Date) => {
  const signsUntil = previousSecretSignsUntil(settings, now);
  return {
    mode,
    defaultCallbackUrl: settings.defaultCallbackUrl,
    enabledPaymentMethods: settings.enabledPaymentMethods,
    webhookSigning: settings.webhookSigningSecret !== null,
    ...(signsUntil && { previousSecretSignsUntil: signsUntil.toISOString() }),
    ...brandOf(settings),
  };
};

const presentKey = (k: ApiKeyDocument) => ({
  id: k.keyId,
  mode: k.mode,
  status: k.status,
  last4: k.last4,
  createdAt: k.createdAt.toISOString(),
  ...(k.revokedAt && { revokedAt: k.revokedAt.toISOString() }),
});

export interface AdminDeps {
  organizations: Organizations;
  adminToken: string;
  /** Orders' internal admin API, which locations and payment destinations are forwarded to. */
  orders: Forwarding;
  clock: () => Date;
  /** Called after an organization's checkout settings changed, so this replica's cached copy goes. */
  checkoutSettingsChanged: (organizationId: string, mode: Mode) => void;
  /** Called after a key was revoked, so that it stops working on this replica at once. */
  keyRevoked: (lookupId: string) => void;
  /** Counts wrong operator tokens per client address; refuses an address that guesses too often. */
  guesses: AdminTokenGuesses;
  /** The client address of a request on the operators' listener: its TCP peer, never X-Forwarded-For. */
  clientOf: (ctx: Context) => string;
}

type OrganizationOf = (ctx: Context) => Promise<OrganizationDocument>;

const body = (ctx: Context) => ctx.request.jsonBody ?? {};

/** The address is checked before the token, so a blocked guesser learns nothing more from further tries. */
function operatorTokenGuard(deps: AdminDeps): Middleware {
  return async (ctx, next) => {
    const client = deps.clientOf(ctx);
    const now = deps.clock().getTime();
    const blockedFor = deps.guesses.blockedFor(client, now);
    if (blockedFor > 0)
      throw new DomainError(
        'RATE_LIMITED',
        'Too many wrong operator tokens from this address; retry after the indicated delay.',
        { retryAfterSeconds: blockedFor },
      );
    const token = /^Bearer (.+)$/.exec(ctx.get('authorization'))?.[1] ?? '';
    if (!token || !secretsEqual(token, deps.adminToken)) {
      deps.guesses.failed(client, now);
      throw new DomainError('UNAUTHORIZED', 'The admin API needs the operator token.');
    }
    await next();
  };
}

function organizationLookup(organizations: Organizations): OrganizationOf {
  return (ctx) => organizations.organization((ctx.params as { organizationId?: string }).organizationId ?? '');
}

const presentOrganization = (o: OrganizationDocument) => ({
  id: o._id,
  name: o.name,
  createdAt: o.createdAt.toISOString(),
});

function mountOrganizationRoutes(router: Router, deps: AdminDeps, organizationOf: OrganizationOf): void {
  router.post('/organizations', async (ctx) => {
    const input = parseOrThrow(CreateOrganization, body(ctx), 'ADMIN_REQUEST_FAILED');
    const organization = await deps.organizations.createOrganization(input.name);
    ctx.status = 201;
    ctx.body = { organization: presentOrganization(organization) };
  });

  router.get('/organizations', async (ctx) => {
    ctx.body = { organizations: (await deps.organizations.listOrganizations()).map(presentOrganization) };
  });

  router.get('/organizations/:organizationId', async (ctx) => {
    ctx.body = { organization: presentOrganization(await organizationOf(ctx)) };
  });
}

function mountKeyRoutes(router: Router, deps: AdminDeps, organizationOf: OrganizationOf): void {
  router.post('/organizations/:organizationId/keys', async (ctx) => {
    const organization = await organizationOf(ctx);
    const { mode } = parseOrThrow(CreateKey, body(ctx), 'ADMIN_REQUEST_FAILED');
    const { key, secret } = await deps.organizations.createKey(organization._id, mode);
    ctx.status = 201;
    // The only time the secret leaves the service (D5).
    ctx.body = { key: { ...presentKey(key), secret } };
  });

  router.get('/organizations/:organizationId/keys', async (ctx) => {
    const organization = await organizationOf(ctx);
    ctx.body = { keys: (await deps.organizations.listKeys(organization._id)).map(presentKey) };
  });

  router.post('/organizations/:organizationId/keys/:keyId/revoke', async (ctx) => {
    const organization = await organizationOf(ctx);
    const revoked = await deps.organizations.revokeKey(organization._id, String(ctx.params.keyId));
    deps.keyRevoked(revoked._id);
    ctx.body = { key: presentKey(revoked) };
  });
}

function mountCheckoutSettingsRoutes(router: Router, deps: AdminDeps, organizationOf: OrganizationOf): void {
  router.get('/organizations/:organizationId/checkout-settings', async (ctx) => {
    const organization = await organizationOf(ctx);
    const { mode } = parseOrThrow(ModeOnly, ctx.query, 'ADMIN_REQUEST_FAILED');
    const settings = await deps.organizations.checkoutSettings(organization._id, mode);
    ctx.body = { checkoutSettings: presentSettings(mode, settings, deps.clock()) };
  });

  router.patch('/organizations/:organizationId/checkout-settings', async (ctx) => {
    const organization = await organizationOf(ctx);
    const patch = parseOrThrow(CheckoutSettingsPatch, body(ctx), 'ADMIN_REQUEST_FAILED');
    const { mode, ...change } = patch;
    const { settings, newSecret, at } = await deps.organizations.updateCheckoutSettings(organization._id, mode, change);
    deps.checkoutSettingsChanged(organization._id, mode);
    ctx.body = {
      checkoutSettings: { ...presentSettings(mode, settings, at) },
      ...(newSecret && { webhookSigningSecret: newSecret }),
    };
  });
}

/** Locations and payment destinations: owned by orders, reached with the organization's scope. */
function mountOrdersForwardRoutes(router: Router, deps: AdminDeps, organizationOf: OrganizationOf): void {
  // Each forward is a route of libs/contracts' INTERNAL_ROUTES, its path parameters taken from the admin route's.
  const forwardToOrders = (route: InternalRoute & { method: 'GET' | 'POST' | 'PATCH' }) => async (ctx: Context) => {
    const organization = await organizationOf(ctx);
    const source = route.method === 'GET' ? ctx.query : body(ctx);
    const { mode } = parseOrThrow(z.looseObject({ mode: ModeSchema }), source, 'ADMIN_REQUEST_FAILED');
    const { mode: _mode, ...rest } = source as { mode: Mode } & Record<string, unknown>;
    const response = await deps.orders.forward({
      method: route.method,
      path: internalPath(route, ctx.params as Record<string, string>),
      scope: { organizationId: organization._id, mode },
      requestId: String(ctx.state.requestId),
      body: route.method === 'GET' ? undefined : rest,
    });
    ctx.status = response.status;
    ctx.body = response.body;
  };
  router.get('/organizations/:organizationId/locations', forwardToOrders(R.listLocations));
  router.post('/organizations/:organizationId/locations', forwardToOrders(R.createLocation));
  router.get('/organizations/:organizationId/payment-destinations', forwardToOrders(R.findPaymentDestinations));
  router.post('/organizations/:organizationId/payment-destinations', forwardToOrders(R.createPaymentDestination));
  router.patch(
    '/organizations/:organizationId/payment-destinations/:destinationId',
    forwardToOrders(R.updatePaymentDestination),
  );
}

/**
 * D38: the operators' API. Organizations, keys and checkout settings live here; locations and payment
 * destinations belong to the orders service and are forwarded to it with the target organization's scope.
 */
export function adminRoutes(deps: AdminDeps): Router {
  const router = new Router({ prefix: '/admin' });
  router.use(operatorTokenGuard(deps));
  router.use(jsonBody());
  const organizationOf = organizationLookup(deps.organizations);
  mountOrganizationRoutes(router, deps, organizationOf);
  mountKeyRoutes(router, deps, organizationOf);
  mountCheckoutSettingsRoutes(router, deps, organizationOf);
  mountOrdersForwardRoutes(router, deps, organizationOf);
  return router;
}
