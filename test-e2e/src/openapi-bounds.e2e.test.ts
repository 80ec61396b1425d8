import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@checkout/testing';
import { startStack, type InProcessStack } from './support/stack';
import { Api, type ApiResponse } from './support/api';
import { uniqueId } from './support/factories';

// The second audit: the OpenAPI document now states the limits the server enforces (maxLength, maxItems,
// maximum, maxProperties: what the OWASP API Security ruleset asks for, scripts/openapi/spectral.yaml). Here the
// document the gateway serves is read, every such bound on a request (body, query, header, path) is found, and a
// request one past it is sent: each is refused with 400, a body's naming the field, while the same request within
// the bounds is accepted. Every documented bound must be exercised: a new one (a new route, a new field) fails this
// test until a sample reaches it.

type Schema = Record<string, any>;
type Json = unknown;
/** Where a value is: keys and indexes, and last, for a key's own bound, the key itself. */
type Path = (string | number | { key: string })[];

const KEYS = ['maxLength', 'maxItems', 'maximum', 'maxProperties'] as const;

let stack: InProcessStack;
let api: Api;
let document: Schema;
let orgId: string;

beforeAll(async () => {
  stack = await startStack({
    extraEnv: {
      gateway: {
        RATE_LIMIT_PER_WINDOW: '1000000',
        RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW: '1000000000',
        CLIENT_RATE_LIMIT_PER_WINDOW: '1000000',
      },
    },
  });
  const org = await stack.admin.createOrganizationWithKeys(uniqueId('Bounds Org'));
  orgId = org.organizationId;
  api = new Api(stack.gatewayUrl, org.testKey);
  document = (await api.get('/v0/openapi.json')).body as Schema;
});

afterAll(async () => {
  await stack?.stop();
});

const resolve = (schema: Schema): Schema =>
  typeof schema.$ref === 'string'
    ? resolve(document.components.schemas[schema.$ref.replace('#/components/schemas/', '')] as Schema)
    : schema;

/** The component a schema node belongs to, for naming a bound once however many operations reach it. */
function nameOf(schema: Schema): string | undefined {
  return typeof schema.$ref === 'string' ? schema.$ref.replace('#/components/schemas/', '') : undefined;
}

/** The option of a oneOf/anyOf that a sample value takes (by discriminator, or by its keys). */
function optionFor(schema: Schema, value: Json): Schema | undefined {
  const options = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (!options || schema.properties) return undefined;
  if (schema.discriminator && value && typeof value === 'object') {
    const ref = schema.discriminator.mapping[(value as Record<string, string>)[schema.discriminator.propertyName]!];
    return options.find((o) => o.$ref === ref);
  }
  return (
    options.find((o) => accepts(resolve(o), value)) ??
    options.find((o) => (resolve(o).type ?? 'null') !== 'null') ??
    options[0]
  );
}

/** Whether a value has an option's shape, as far as picking the option goes (type, const, enum, items). */
function accepts(schema: Schema, value: Json): boolean {
  if (schema.const !== undefined) return value === schema.const;
  if (Array.isArray(schema.enum)) return (schema.enum as Json[]).includes(value);
  switch (schema.type) {
    case 'array':
      return Array.isArray(value) && (!schema.items || value.every((item) => accepts(resolve(schema.items), item)));
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'number':
    case 'integer':
      return typeof value === 'number';
    case 'null':
      return value === null;
    default:
      return true;
  }
}

interface Bound {
  /** Where the bound is declared: component (or operation) and the way into it, and the keyword. */
  id: string;
  path: Path;
  keyword: (typeof KEYS)[number];
  limit: number;
  schema: Schema;
}

/** Every bound a request body's schema declares (followed through refs, options, items and properties). */
function declaredBounds(schema: Schema, where: string, seen = new Set<string>()): string[] {
  const name = nameOf(schema);
  if (name) {
    if (seen.has(name)) return [];
    seen.add(name);
    return declaredBounds(resolve(schema), name, seen);
  }
  const ids = KEYS.filter((k) => typeof schema[k] === 'number').map((k) => `${where}:${k}`);
  for (const option of (schema.oneOf ?? schema.anyOf ?? []) as Schema[])
    ids.push(...declaredBounds(option, where, seen));
  for (const [key, inner] of Object.entries((schema.properties ?? {}) as Record<string, Schema>))
    ids.push(...declaredBounds(inner, `${where}.${key}`, seen));
  if (schema.items) ids.push(...declaredBounds(schema.items as Schema, `${where}[]`, seen));
  if (schema.propertyNames) ids.push(...declaredBounds(schema.propertyNames as Schema, `${where}{key}`, seen));
  if (typeof schema.additionalProperties === 'object')
    ids.push(...declaredBounds(schema.additionalProperties as Schema, `${where}{value}`, seen));
  return ids;
}

/** The bounds a sample value reaches, each with where it is in the value. */
function reachedBounds(schema: Schema, value: Json, where: string, path: Path, out: Bound[]): void {
  const name = nameOf(schema);
  if (name) return reachedBounds(resolve(schema), value, name, path, out);
  const option = optionFor(schema, value);
  if (option) return reachedBounds(option, value, where, path, out);
  for (const keyword of KEYS)
    if (typeof schema[keyword] === 'number')
      out.push({ id: `${where}:${keyword}`, path, keyword, limit: schema[keyword], schema });
  if (Array.isArray(value) && schema.items)
    value.forEach((item, i) => reachedBounds(schema.items as Schema, item, `${where}[]`, [...path, i], out));
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, Json>);
    for (const [key, inner] of entries) {
      const property = (schema.properties as Record<string, Schema> | undefined)?.[key];
      if (property) reachedBounds(property, inner, `${where}.${key}`, [...path, key], out);
    }
    const first = entries[0];
    if (first && schema.propertyNames)
      reachedBounds(schema.propertyNames as Schema, first[0], `${where}{key}`, [...path, { key: first[0] }], out);
    if (first && typeof schema.additionalProperties === 'object')
      reachedBounds(schema.additionalProperties as Schema, first[1], `${where}{value}`, [...path, first[0]], out);
  }
}

/** A string like `sample` (its kind kept: an email, a phone number, a URL, a time) of exactly `length` characters. */
function lengthened(sample: string, length: number, schema: Schema): string {
  const pad = (filler: string, n: number) => filler.repeat(Math.max(0, n));
  if (schema.format === 'date-time')
    return `${new Date(Date.now() - 60_000).toISOString().slice(0, 19)}.${pad('0', length - 21)}Z`;
  if (sample.includes('@') && !sample.includes('://')) return pad('a', length - sample.length) + sample;
  if (/^\+?[0-9 ().-]+$/.test(sample)) return sample + pad('-', length - sample.length);
  return sample + pad('a', length - sample.length);
}

/** `value` with the bound's place one past it. */
function pastBound(value: Json, bound: Bound): Json {
  const copy = structuredClone(value) as Record<string, any>;
  const parentPath = bound.path.slice(0, -1);
  const last = bound.path.at(-1);
  const parent = parentPath.reduce<any>((node, key) => node[key as string], copy);
  const current = last === undefined ? copy : typeof last === 'object' ? last.key : parent[last];
  const next = (() => {
    switch (bound.keyword) {
      case 'maximum':
        return bound.limit + 1;
      case 'maxItems':
        return Array.from({ length: bound.limit + 1 }, () => structuredClone((current as Json[])[0]));
      case 'maxProperties':
        return Object.fromEntries(
          Array.from({ length: bound.limit + 1 }, (_, i) => [`k${i}`, Object.values(current as object)[0]]),
        );
      case 'maxLength':
        return lengthened(String(current), bound.limit + 1, bound.schema);
    }
  })();
  if (last === undefined) return next;
  if (typeof last === 'object') {
    // A key one past its bound: the entry moves to the longer key.
    const key = last.key;
    parent[next as string] = parent[key];
    delete parent[key];
  } else parent[last] = next;
  return copy;
}

/** The field a refusal must name: the value's place, or for a key (which moves), the object holding it. */
const fieldOf = (path: Path) => (typeof path.at(-1) === 'object' ? path.slice(0, -1) : path).map(String).join('.');

function expectRefused(response: ApiResponse, what: string, field?: string): void {
  expect(response.status, `${what}: ${JSON.stringify(response.body)}`).toBe(400);
  if (field === undefined) return;
  const paths = ((response.body?.details ?? []) as { path: string }[]).map((d) => d.path);
  // The detail names the field, or the object whose rule the field broke (sessionData's size, a key's length).
  expect(
    paths.some((p) => p === field || p.startsWith(`${field}.`) || (p !== '' && field.startsWith(`${p}.`))),
    `${what}: details ${JSON.stringify(paths)} do not name ${field}`,
  ).toBe(true);
}

/** A valid request body for each operation that takes one; the richer, the more bounds it reaches. */
async function samples(): Promise<Record<string, { path: string; body: Json }>> {
  const { location } = await stack.admin.call<{ location: { id: string } }>(
    'POST',
    `/organizations/${orgId}/locations`,
    { mode: 'test', name: 'Bounds shop' },
  );
  const { paymentDestination } = await stack.admin.call<{ paymentDestination: { id: string } }>(
    'POST',
    `/organizations/${orgId}/payment-destinations`,
    { mode: 'test', address: `0x${'b'.repeat(40)}`, status: 'active', verified: true },
  );
  const lines = {
    items: [{ name: 'Espresso', quantity: 2, unitPrice: 350 }],
    taxes: [{ name: 'VAT', type: 'additive', amount: 10 }],
    discounts: [
      { name: 'Fixed', type: 'fixed', amount: 5 },
      { name: 'Percent', type: 'percentage', amount: 10 },
      { name: 'Rate', type: 'percentage', rate: 5 },
    ],
    shippingAddress: {
      name: 'Ann Lee',
      line1: '1 Main St',
      line2: 'Apt 2',
      city: 'Springfield',
      state: 'IL',
      postalCode: '62701',
      country: 'US',
    },
    metadata: { note: 'hello' },
  };
  const order = {
    ...lines,
    customer: { email: 'ann@example.com', name: 'Ann Lee', phone: '+14155550123' },
    locationId: location.id,
    paymentDestination: paymentDestination.id,
  };
  const created = await api.post('/v0/orders', { items: lines.items });
  const session = await api.post('/v0/checkout/sessions', { items: lines.items });
  const paid = await api.post('/v0/checkout/sessions', { items: lines.items });
  const completed = await api.post('/v0/checkout/sessions', { items: lines.items });
  const endpoint = await api.post('/v0/webhook_endpoints', {
    url: 'https://merchant.example/endpoint',
    enabledEvents: ['*'],
  });
  expect([created.status, session.status, paid.status, completed.status, endpoint.status]).toEqual([
    201, 201, 201, 201, 201,
  ]);
  // An event to redeliver: a session paid in full completes.
  const completedId = String(completed.body.session.id);
  const pay = await api.post(`/v0/test_helpers/checkout/sessions/${completedId}/pay`, {
    method: 'card',
    amount: 700,
    outcome: 'succeeded',
  });
  expect(pay.status).toBeLessThan(300);
  const eventId = await eventually(
    async () => (await api.get(`/v0/events?sessionId=${completedId}`)).body?.events?.[0]?.id as string | undefined,
    { deadlineMs: 30_000, description: 'the completed session has an event' },
  );
  // Refunds of the paid order (D48): a pending one for the settle helper.
  const paidOrderId = String(completed.body.session.order.id);
  const pending = await api.post(`/v0/test_helpers/orders/${paidOrderId}/refunds`, { amount: 1, outcome: 'pending' });
  expect(pending.status).toBe(201);
  const refundBody = { amount: 1, reason: 'requested_by_customer', metadata: { note: 'hello' } };
  const endpointBody = {
    url: 'https://merchant.example/endpoint',
    enabledEvents: ['*'],
    description: 'Bounds',
    metadata: { note: 'hello' },
  };
  return {
    createRefund: { path: `/v0/orders/${paidOrderId}/refunds`, body: refundBody },
    testHelperCreateRefund: { path: `/v0/test_helpers/orders/${paidOrderId}/refunds`, body: refundBody },
    testHelperSettleRefund: {
      path: `/v0/test_helpers/refunds/${pending.body.refund.id}/settle`,
      body: { outcome: 'succeeded' },
    },
    createWebhookEndpoint: { path: '/v0/webhook_endpoints', body: endpointBody },
    // D52: a report of the last day (its body states no bound of its own; the window's rule spans two fields).
    createReport: {
      path: '/v0/reports',
      body: {
        type: 'balance_transactions',
        createdAfter: new Date(Date.now() - 86_400_000).toISOString(),
        createdBefore: new Date().toISOString(),
      },
    },
    // A list of types here, ["*"] on create: each of enabledEvents' two alternatives has its own bound.
    updateWebhookEndpoint: {
      path: `/v0/webhook_endpoints/${endpoint.body.endpoint.id}`,
      body: { ...endpointBody, enabledEvents: ['checkout.session.completed', 'order.paid'] },
    },
    updateCheckoutSettings: {
      path: '/v0/checkout_settings',
      body: { displayName: 'Bounds Co', brandColor: '#112233', logoUrl: 'https://cdn.example/logo.png' },
    },
    redeliverEvent: { path: `/v0/events/${eventId}/redeliver`, body: { endpointId: endpoint.body.endpoint.id } },
    createOrder: { path: '/v0/orders', body: { ...order, externalId: uniqueId('bounds') } },
    updateOrder: {
      path: `/v0/orders/${created.body.order.id}`,
      body: { ...lines, customer: { email: 'ann@example.com', name: 'Ann Lee', phone: '+14155550123' } },
    },
    createCheckoutSession: {
      path: '/v0/checkout/sessions',
      body: {
        ...order,
        externalId: uniqueId('bounds'),
        expiresInMinutes: 30,
        successUrl: 'https://merchant.example/thanks',
        callbackUrl: 'https://merchant.example/hooks',
        requireFromCustomer: { phone: true },
      },
    },
    updateCheckoutSession: {
      path: `/v0/checkout/sessions/${session.body.session.id}`,
      body: { extendExpiry: 10, sessionData: { cart: 'c1' } },
    },
    testHelperPay: {
      path: `/v0/test_helpers/checkout/sessions/${paid.body.session.id}/pay`,
      body: { method: 'card', amount: 1, outcome: 'succeeded' },
    },
    recoverEvents: {
      path: '/v0/events/recover',
      body: { since: new Date(Date.now() - 60_000).toISOString(), endpointId: endpoint.body.endpoint.id },
    },
  };
}

describe('the limits the OpenAPI document states (the second audit)', () => {
  it('When any request is one past a documented maxLength, maxItems, maximum or maxProperties, then it is refused with 400, and within them it is accepted', async () => {
    const bodies = await samples();
    const declared = new Set<string>();
    const exercised = new Set<string>();
    const operations = Object.entries(document.paths as Record<string, Record<string, Schema>>).flatMap(
      ([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
    );
    for (const { path, method, operation } of operations) {
      const id = String(operation.operationId);
      const concretePath = path.replace(/\{(\w+)\}/g, (_, name: string) =>
        name === 'orderId'
          ? 'ord_test_aaaaaaaaaaaaaaaaaaaaaaaa'
          : name === 'sessionId'
            ? 'cs_test_aaaa'
            : 'evt_test_aaaa',
      );
      // Parameters: one past each bound, the rest as the request would be without it.
      for (const parameter of (operation.parameters ?? []) as Schema[]) {
        const schema = parameter.schema as Schema;
        for (const keyword of KEYS) {
          if (typeof schema[keyword] !== 'number') continue;
          const bound = `${id} ${parameter.in} ${parameter.name}:${keyword}`;
          declared.add(bound);
          const limit = schema[keyword];
          const past =
            keyword === 'maximum'
              ? String(limit + 1)
              : parameter.in === 'path'
                ? `${String(parameter.name).startsWith('order') ? 'ord' : String(parameter.name).startsWith('session') ? 'cs' : 'evt'}_test_${'a'.repeat(limit)}`
                : 'k'.repeat(limit + 1);
          let url = concretePath;
          const headers: Record<string, string> = {};
          if (parameter.in === 'path') url = path.replace(`{${parameter.name}}`, past).replace(/\{\w+\}/g, 'x');
          if (parameter.in === 'query') url = `${concretePath}?${parameter.name}=${encodeURIComponent(past)}`;
          if (parameter.in === 'header') headers[parameter.name] = past;
          const body = method === 'get' ? undefined : (bodies[id]?.body ?? {});
          expectRefused(await api.send(method.toUpperCase(), url, body, headers), bound);
          exercised.add(bound);
        }
      }
      const requestSchema = operation.requestBody?.content?.['application/json']?.schema as Schema | undefined;
      if (!requestSchema) continue;
      for (const bound of declaredBounds(requestSchema, `${id} body`)) declared.add(bound);
      const sample = bodies[id];
      expect(sample, `a sample body for ${id}`).toBeDefined();
      if (!sample) continue;
      const reached: Bound[] = [];
      reachedBounds(requestSchema, sample.body, `${id} body`, [], reached);
      for (const bound of reached) {
        if (exercised.has(bound.id)) continue;
        expectRefused(
          await api.send(method.toUpperCase(), sample.path, pastBound(sample.body, bound)),
          `${id} ${bound.id} (${fieldOf(bound.path)})`,
          fieldOf(bound.path),
        );
        exercised.add(bound.id);
      }
      // Within every bound, the same request is accepted (so each refusal above was for its bound).
      const accepted = await eventually(
        async () => {
          const answer = await api.send(method.toUpperCase(), sample.path, sample.body);
          return answer.status === 409 && answer.body?.code === 'RECOVERY_IN_PROGRESS' ? undefined : answer;
        },
        { deadlineMs: 20_000, description: `${id} accepted within its bounds` },
      );
      expect(accepted.status, `${id}: ${JSON.stringify(accepted.body)}`).toBeLessThan(300);
    }
    expect([...declared].filter((bound) => !exercised.has(bound)).sort()).toEqual([]);
    expect(exercised.size).toBeGreaterThan(40);
  }, 240_000);
});
