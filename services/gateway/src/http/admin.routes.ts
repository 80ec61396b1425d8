import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { DomainError } from '@checkout/errors';
import { jsonBody, parseOrThrow, secretsEqual } from '@checkout/http';
import { HttpUrl, ModeSchema, PaymentMethod, type Mode } from '@checkout/contracts';
import { generateApiKey } from '../domain/api-keys';
import type { AdminTokenGuesses } from '../domain/admin-token-guesses';
import type { CheckoutSettings, OrganizationsStore } from '../store/organizations.store';
import type { ApiKeyDocument, OrganizationDocument, PreviousSigningSecret } from '../store/organization.document';
import type { OrdersClient } from '../clients/orders.client';

const CreateOrganization = z.strictObject({ name: z.string().trim().min(1).max(200) });
const CreateKey = z.strictObject({ mode: ModeSchema });
const ModeOnly = z.strictObject({ mode: ModeSchema });
const CheckoutSettingsPatch = z.strictObject({
  mode: ModeSchema,
  defaultCallbackUrl: HttpUrl.nullable().optional(),
  enabledPaymentMethods: z.array(PaymentMethod).min(1).optional(),
  /** true generates a new whsec_ secret (shown once); false removes signing. */
  webhookSigning: z.boolean().optional(),
});

/**
 * How long deliveries stay signed with a secret after a rotation replaced it (D35): receivers that still
 * hold the old secret keep verifying (Standard Webhooks: one signature per secret) while the merchant deploys
 * the new one. Turning signing off ends it at once.
 */
export const SIGNING_SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

function nextPreviousSecret(
  current: CheckoutSettings,
  webhookSigning: boolean | undefined,
  now: Date,
): PreviousSigningSecret | null {
  if (webhookSigning === false) return null;
  if (webhookSigning === true && current.webhookSigningSecret !== null)
    return { secret: current.webhookSigningSecret, until: new Date(now.getTime() + SIGNING_SECRET_OVERLAP_MS) };
  const kept = current.previousWebhookSigningSecret;
  return kept && kept.until > now ? kept : null;
}

const presentSettings = (mode: Mode, settings: CheckoutSettings, now: Date) => {
  const previous = settings.previousWebhookSigningSecret;
  return {
    mode,
    defaultCallbackUrl: settings.defaultCallbackUrl,
    enabledPaymentMethods: settings.enabledPaymentMethods,
    webhookSigning: settings.webhookSigningSecret !== null,
    ...(previous && previous.until > now && { previousSecretSignsUntil: previous.until.toISOString() }),
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
  store: OrganizationsStore;
  adminToken: string;
  orders: OrdersClient;
  clock: () => Date;
  /** Called after an organization's checkout settings changed, so this replica's cached copy goes. */
  checkoutSettingsChanged: (organizationId: string, mode: Mode) => void;
  /** Called after a key was revoked, so that it stops working on this replica at once. */
  keyRevoked: (lookupId: string) => void;
  /** Counts wrong operator tokens per client address; refuses an address that guesses too often. */
  guesses: AdminTokenGuesses;
  /** The client address of a request (its peer, or the nearest untrusted X-Forwarded-For hop). */
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

function organizationLookup(store: OrganizationsStore): OrganizationOf {
  return async (ctx) => {
    const id = (ctx.params as { organizationId?: string }).organizationId ?? '';
    const organization = await store.getOrganization(id);
    if (!organization) throw new DomainError('ADMIN_NOT_FOUND', `No organization ${id}.`);
    return organization;
  };
}

const presentOrganization = (o: OrganizationDocument) => ({
  id: o._id,
  name: o.name,
  createdAt: o.createdAt.toISOString(),
});

function mountOrganizationRoutes(router: Router, deps: AdminDeps, organizationOf: OrganizationOf): void {
  router.post('/organizations', async (ctx) => {
    const input = parseOrThrow(CreateOrganization, body(ctx), 'ADMIN_REQUEST_FAILED');
    const organization = await deps.store.createOrganization({
      _id: `org_${randomBytes(12).toString('hex')}`,
      name: input.name,
      createdAt: deps.clock(),
    });
    ctx.status = 201;
    ctx.body = { organization: presentOrganization(organization) };
  });

  router.get('/organizations', async (ctx) => {
    ctx.body = { organizations: (await deps.store.listOrganizations()).map(presentOrganization) };
  });

  router.get('/organizations/:organizationId', async (ctx) => {
    ctx.body = { organization: presentOrganization(await organizationOf(ctx)) };
  });
}

function mountKeyRoutes(router: Router, deps: AdminDeps, organizationOf: OrganizationOf): void {
  router.post('/organizations/:organizationId/keys', async (ctx) => {
    const organization = await organizationOf(ctx);
    const { mode } = parseOrThrow(CreateKey, body(ctx), 'ADMIN_REQUEST_FAILED');
    const key = generateApiKey(mode);
    const doc: ApiKeyDocument = {
      _id: key.lookupId,
      keyId: `key_${randomBytes(12).toString('hex')}`,
      hash: key.hash,
      last4: key.last4,
      organizationId: organization._id,
      mode,
      status: 'active',
      createdAt: deps.clock(),
    };
    await deps.store.insertKey(doc);
    ctx.status = 201;
    // The only time the secret leaves the service (D5).
    ctx.body = { key: { ...presentKey(doc), secret: key.secret } };
  });

  router.get('/organizations/:organizationId/keys', async (ctx) => {
    const organization = await organizationOf(ctx);
    ctx.body = { keys: (await deps.store.listKeys(organization._id)).map(presentKey) };
  });

  router.post('/organizations/:organizationId/keys/:keyId/revoke', async (ctx) => {
    const organization = await organizationOf(ctx);
    const revoked = await deps.store.revokeKey(organization._id, String(ctx.params.keyId), deps.clock());
    if (!revoked) throw new DomainError('ADMIN_NOT_FOUND', `No key ${ctx.params.keyId ?? ''}.`);
    deps.keyRevoked(revoked._id);
    ctx.body = { key: presentKey(revoked) };
  });
}

function mountCheckoutSettingsRoutes(router: Router, deps: AdminDeps, organizationOf: OrganizationOf): void {
  router.get('/organizations/:organizationId/checkout-settings', async (ctx) => {
    const organization = await organizationOf(ctx);
    const { mode } = parseOrThrow(ModeOnly, ctx.query, 'ADMIN_REQUEST_FAILED');
    const settings = await deps.store.getCheckoutSettings(organization._id, mode);
    ctx.body = { checkoutSettings: presentSettings(mode, settings, deps.clock()) };
  });

  router.patch('/organizations/:organizationId/checkout-settings', async (ctx) => {
    const organization = await organizationOf(ctx);
    const patch = parseOrThrow(CheckoutSettingsPatch, body(ctx), 'ADMIN_REQUEST_FAILED');
    const current = await deps.store.getCheckoutSettings(organization._id, patch.mode);
    const now = deps.clock();
    const newSecret = patch.webhookSigning === true ? `whsec_${randomBytes(24).toString('base64')}` : undefined;
    const next: CheckoutSettings = {
      defaultCallbackUrl:
        patch.defaultCallbackUrl === undefined ? current.defaultCallbackUrl : patch.defaultCallbackUrl,
      enabledPaymentMethods: patch.enabledPaymentMethods ?? current.enabledPaymentMethods,
      webhookSigningSecret: patch.webhookSigning === undefined ? current.webhookSigningSecret : (newSecret ?? null),
      previousWebhookSigningSecret: nextPreviousSecret(current, patch.webhookSigning, now),
    };
    await deps.store.putCheckoutSettings(organization._id, patch.mode, next, now);
    deps.checkoutSettingsChanged(organization._id, patch.mode);
    ctx.body = {
      checkoutSettings: { ...presentSettings(patch.mode, next, now) },
      ...(newSecret && { webhookSigningSecret: newSecret }),
    };
  });
}

/** Locations and payment destinations: owned by orders, reached with the organization's scope. */
function mountOrdersForwardRoutes(router: Router, deps: AdminDeps, organizationOf: OrganizationOf): void {
  const forwardToOrders =
    (method: 'GET' | 'POST' | 'PATCH', upstreamPath: (ctx: Context) => string) => async (ctx: Context) => {
      const organization = await organizationOf(ctx);
      const source = method === 'GET' ? ctx.query : body(ctx);
      const { mode } = parseOrThrow(z.looseObject({ mode: ModeSchema }), source, 'ADMIN_REQUEST_FAILED');
      const { mode: _mode, ...rest } = source as { mode: Mode } & Record<string, unknown>;
      const response = await deps.orders.forward({
        method,
        path: upstreamPath(ctx),
        scope: { organizationId: organization._id, mode },
        requestId: String(ctx.state.requestId),
        body: method === 'GET' ? undefined : rest,
      });
      ctx.status = response.status;
      ctx.body = response.body;
    };
  router.get(
    '/organizations/:organizationId/locations',
    forwardToOrders('GET', () => '/internal/admin/locations'),
  );
  router.post(
    '/organizations/:organizationId/locations',
    forwardToOrders('POST', () => '/internal/admin/locations'),
  );
  router.get(
    '/organizations/:organizationId/payment-destinations',
    forwardToOrders('GET', () => '/internal/admin/payment-destinations'),
  );
  router.post(
    '/organizations/:organizationId/payment-destinations',
    forwardToOrders('POST', () => '/internal/admin/payment-destinations'),
  );
  router.patch(
    '/organizations/:organizationId/payment-destinations/:destinationId',
    forwardToOrders(
      'PATCH',
      (ctx) =>
        `/internal/admin/payment-destinations/${encodeURIComponent((ctx.params as { destinationId: string }).destinationId)}`,
    ),
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
  const organizationOf = organizationLookup(deps.store);
  mountOrganizationRoutes(router, deps, organizationOf);
  mountKeyRoutes(router, deps, organizationOf);
  mountCheckoutSettingsRoutes(router, deps, organizationOf);
  mountOrdersForwardRoutes(router, deps, organizationOf);
  return router;
}
