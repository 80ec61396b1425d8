import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  EVENT_TYPES,
  WEBHOOK_ENDPOINTS_MAX,
  newId,
  type EventTypeList,
  type Mode,
  type WebhookEndpoint,
  type WebhookEndpointList,
  type WebhookEndpointResponse,
} from '@checkout/contracts';
import { createEndpoint, internalCall, internalHeaders, useDispatcherFixture } from './support';

// D50: the webhook endpoints API, as the gateway calls it with a merchant's organization and mode.

const org = `org_we_${randomBytes(3).toString('hex')}`;
const TEST = { organizationId: org, mode: 'test' as Mode };
const LIVE = { organizationId: org, mode: 'live' as Mode };
const OTHER = { organizationId: `${org}_other`, mode: 'test' as Mode };
const call = (
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  scope: { organizationId: string; mode: Mode } = TEST,
  body?: unknown,
) => internalCall(fixture.dispatcher, method, path, scope, body);
const url = (path: string) => `https://merchant.example/${path}`;

const fixture = useDispatcherFixture('endpoints_api');

describe('POST /internal/webhook-endpoints (D50)', () => {
  it('When an endpoint is created, then it is answered 201 with its own whsec_ secret, and only then: reads never show it', async () => {
    const created = await createEndpoint(fixture.dispatcher, TEST, {
      url: url('fulfilment'),
      enabledEvents: ['checkout.session.completed'],
      description: 'Fulfilment',
      metadata: { 'team.name': 'ops' },
    });
    expect(created).toEqual({
      id: expect.stringMatching(/^we_test_[0-9A-Za-z]{24}$/),
      url: url('fulfilment'),
      enabledEvents: ['checkout.session.completed'],
      description: 'Fulfilment',
      metadata: { 'team.name': 'ops' },
      disabled: false,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
      createdAt: expect.any(String),
      updatedAt: created.createdAt,
    });
    const read = await call('GET', `/internal/webhook-endpoints/${created.id}`);
    expect(read.status).toBe(200);
    const { secret: _secret, ...shown } = created;
    expect((read.body as unknown as WebhookEndpointResponse).endpoint).toEqual(shown);
    expect(JSON.stringify(read.body)).not.toContain(created.secret);
    const listed = await call('GET', '/internal/webhook-endpoints');
    expect(JSON.stringify(listed.body)).not.toContain(created.secret);
  });

  it('When two endpoints are created, then each has a secret of its own', async () => {
    const [a, b] = await Promise.all([
      createEndpoint(fixture.dispatcher, TEST, { url: url('a'), enabledEvents: ['*'] }),
      createEndpoint(fixture.dispatcher, TEST, { url: url('b'), enabledEvents: ['*'] }),
    ]);
    expect(a.secret).not.toBe(b.secret);
  });

  it('When enabledEvents repeats types, lists them out of order, or is ["*"], then it is stored once each in catalog order', async () => {
    const listed = await createEndpoint(fixture.dispatcher, TEST, {
      url: url('c'),
      enabledEvents: ['checkout.session.expired', 'checkout.session.completed', 'checkout.session.expired'],
    });
    expect(listed.enabledEvents).toEqual(['checkout.session.completed', 'checkout.session.expired']);
    const all = await createEndpoint(fixture.dispatcher, TEST, { url: url('d'), enabledEvents: ['*'] });
    expect(all.enabledEvents).toEqual(['*']);
  });

  it.each([
    ['an unknown event type', { url: url('x'), enabledEvents: ['order.shipped'] }, 'enabledEvents'],
    ['"*" beside a type', { url: url('x'), enabledEvents: ['*', 'checkout.session.completed'] }, 'enabledEvents'],
    ['no event type', { url: url('x'), enabledEvents: [] }, 'enabledEvents'],
    ['no url', { enabledEvents: ['*'] }, 'url'],
    ['a relative url', { url: '/hooks', enabledEvents: ['*'] }, 'url'],
    ['an ftp url', { url: 'ftp://merchant.example/x', enabledEvents: ['*'] }, 'url'],
    ['an unknown field', { url: url('x'), enabledEvents: ['*'], secret: 'whsec_mine' }, 'secret'],
    ['a null description', { url: url('x'), enabledEvents: ['*'], description: null }, 'description'],
    [
      'a description over 500 characters',
      { url: url('x'), enabledEvents: ['*'], description: 'x'.repeat(501) },
      'description',
    ],
  ])(
    'When the body has %s, then it is 400 WEBHOOK_ENDPOINT_CREATE_FAILED naming the field (D7)',
    async (_, body, path) => {
      const { status, body: answer } = await call('POST', '/internal/webhook-endpoints', TEST, body);
      expect(status).toBe(400);
      expect(answer.code).toBe('WEBHOOK_ENDPOINT_CREATE_FAILED');
      expect((answer.details as Array<{ path: string }>).map((d) => d.path)).toContain(path);
    },
  );
});

describe('what an endpoint URL may name (D50, D33)', () => {
  const refused = async (scope: typeof TEST, targetUrl: string, problem: RegExp) => {
    const { status, body } = await call('POST', '/internal/webhook-endpoints', scope, {
      url: targetUrl,
      enabledEvents: ['*'],
    });
    expect(status, `${scope.mode} ${targetUrl}: ${JSON.stringify(body)}`).toBe(400);
    expect(body.code).toBe('WEBHOOK_ENDPOINT_CREATE_FAILED');
    expect(body.details).toEqual([{ path: 'url', message: expect.stringMatching(problem) }]);
  };

  it('When a live key registers an http URL or an internal IP literal, then 400 naming url; https to a public host is 201', async () => {
    // It answered 201 (the URL failed only at every delivery, and live bodies carry customers' details in clear).
    await refused(LIVE, 'http://169.254.169.254/latest/', /internal address/);
    await refused(LIVE, 'https://169.254.169.254/latest/', /internal address/);
    await refused(LIVE, 'https://[::ffff:10.0.0.1]/hooks', /internal address/);
    await refused(LIVE, 'http://merchant.example/hooks', /https in live mode/);
    expect((await createEndpoint(fixture.dispatcher, LIVE, { url: url('live-ok'), enabledEvents: ['*'] })).url).toBe(
      url('live-ok'),
    );
  });

  it('When a test key registers an internal IP literal, then 400 as well; http to a name is 201 in test mode', async () => {
    await refused(TEST, 'http://169.254.169.254/latest/', /internal address/);
    await refused(TEST, 'http://2852039166/', /internal address/);
    await refused(TEST, 'http://10.0.0.5:8080/', /internal address/);
    const created = await createEndpoint(fixture.dispatcher, TEST, {
      url: 'http://merchant.example/test-hooks',
      enabledEvents: ['*'],
    });
    expect(created.url).toBe('http://merchant.example/test-hooks');
  });

  it('When a live endpoint is patched to an http URL or an internal address, then 400 WEBHOOK_ENDPOINT_UPDATE_FAILED and it keeps its URL', async () => {
    const created = await createEndpoint(fixture.dispatcher, LIVE, { url: url('live-patch'), enabledEvents: ['*'] });
    for (const target of ['http://merchant.example/hooks', 'https://169.254.169.254/']) {
      const { status, body } = await call('PATCH', `/internal/webhook-endpoints/${created.id}`, LIVE, { url: target });
      expect(status, target).toBe(400);
      expect(body.code).toBe('WEBHOOK_ENDPOINT_UPDATE_FAILED');
    }
    const read = await call('GET', `/internal/webhook-endpoints/${created.id}`, LIVE);
    expect((read.body as unknown as WebhookEndpointResponse).endpoint.url).toBe(url('live-patch'));
  });
});

describe('at most 16 endpoints per organization and mode (D50)', () => {
  it('When 20 creates race in each of three fresh organizations at once, then in each exactly 16 succeed and 4 are 400 WEBHOOK_ENDPOINT_LIMIT_REACHED; a delete frees a place', async () => {
    // Three at once: on DocumentDB, creates that met on one place deadlocked, a second each, until some answered 503.
    const scopes = Array.from({ length: 3 }, () => ({
      organizationId: `org_limit_${randomBytes(3).toString('hex')}`,
      mode: LIVE.mode,
    }));
    const race = (scope: (typeof scopes)[number]) =>
      Promise.all(
        Array.from({ length: WEBHOOK_ENDPOINTS_MAX + 4 }, (_, i) =>
          call('POST', '/internal/webhook-endpoints', scope, { url: url(`race/${i}`), enabledEvents: ['*'] }),
        ),
      );
    const races = await Promise.all(scopes.map(race));
    // Every answer at once, winners and losers, so a failure says what each loser was told (a refusal for a limit
    // not yet reached, a 5xx, a timeout) rather than only how many won.
    const outcome = (a: Awaited<ReturnType<typeof call>>) =>
      a.status === 201 ? '201' : `${a.status} ${String(a.body.code)}`;
    expect(races.map((answers) => answers.map(outcome).sort())).toEqual(
      scopes.map(() => [
        ...Array.from({ length: WEBHOOK_ENDPOINTS_MAX }, () => '201'),
        ...Array.from({ length: 4 }, () => '400 WEBHOOK_ENDPOINT_LIMIT_REACHED'),
      ]),
    );
    const [scope] = scopes as [(typeof scopes)[number]];
    const list = (await call('GET', '/internal/webhook-endpoints?limit=100', scope))
      .body as unknown as WebhookEndpointList;
    expect(list.pagination.total).toBe(WEBHOOK_ENDPOINTS_MAX);

    // The other mode and other organizations have places of their own.
    await createEndpoint(
      fixture.dispatcher,
      { ...scope, mode: 'test' },
      { url: url('other-mode'), enabledEvents: ['*'] },
    );

    const first = list.endpoints[0] as WebhookEndpoint;
    expect((await call('DELETE', `/internal/webhook-endpoints/${first.id}`, scope)).body).toEqual({
      id: first.id,
      deleted: true,
    });
    expect(
      (await call('POST', '/internal/webhook-endpoints', scope, { url: url('again'), enabledEvents: ['*'] })).status,
    ).toBe(201);
    expect(
      (await call('POST', '/internal/webhook-endpoints', scope, { url: url('one-more'), enabledEvents: ['*'] })).body
        .code,
    ).toBe('WEBHOOK_ENDPOINT_LIMIT_REACHED');
  });
});

describe('at most WEBHOOK_ENDPOINT_HOSTS_MAX distinct hosts per organization and mode', () => {
  it('When the endpoints name 8 hosts, then a 9th host is 400 WEBHOOK_ENDPOINT_LIMIT_REACHED naming the limit, on a create and on a PATCH of the url, while an endpoint on a host already named is accepted', async () => {
    const scope = { organizationId: `org_hosts_${randomBytes(3).toString('hex')}`, mode: 'test' as Mode };
    const on = (host: string, path = 'hooks') => `https://${host}.example/${path}`;
    for (let i = 0; i < 8; i += 1)
      await createEndpoint(fixture.dispatcher, scope, { url: on(`h${i}`), enabledEvents: ['*'] });

    const ninth = await call('POST', '/internal/webhook-endpoints', scope, { url: on('h8'), enabledEvents: ['*'] });
    expect([ninth.status, ninth.body.code]).toEqual([400, 'WEBHOOK_ENDPOINT_LIMIT_REACHED']);
    expect(ninth.body.message).toContain('at most 8 distinct hosts');
    // A host is a host whatever its case or trailing dot.
    const same = await call('POST', '/internal/webhook-endpoints', scope, {
      url: 'https://H0.EXAMPLE./other',
      enabledEvents: ['*'],
    });
    expect(same.status).toBe(201);

    const moved = await call(
      'PATCH',
      `/internal/webhook-endpoints/${String(same.body.endpoint && (same.body.endpoint as WebhookEndpoint).id)}`,
      scope,
      { url: on('h8') },
    );
    expect([moved.status, moved.body.code]).toEqual([400, 'WEBHOOK_ENDPOINT_LIMIT_REACHED']);
    // The only endpoint on its host may move to a new one: the count of hosts stays 8.
    const list = (await call('GET', '/internal/webhook-endpoints?limit=100', scope))
      .body as unknown as WebhookEndpointList;
    const alone = list.endpoints.find((endpoint) => endpoint.url === on('h7')) as WebhookEndpoint;
    const relocated = await call('PATCH', `/internal/webhook-endpoints/${alone.id}`, scope, { url: on('h8') });
    expect(relocated.status).toBe(200);
    // Another mode counts its own hosts.
    await createEndpoint(fixture.dispatcher, { ...scope, mode: 'live' }, { url: on('h9'), enabledEvents: ['*'] });
  });
});

describe('GET /internal/webhook-endpoints (D50)', () => {
  it('When a create is retried with its Idempotency-Key record (after a 5xx), then the first endpoint and its secret are answered, not a second; a new life of the key makes a new one (D42)', async () => {
    const scope = { organizationId: `${org}_retry`, mode: 'test' as Mode };
    const keyed = async (since: string) => {
      const response = await fetch(`${fixture.dispatcher.url}/internal/webhook-endpoints`, {
        method: 'POST',
        headers: {
          ...internalHeaders(scope),
          'content-type': 'application/json',
          'x-idempotency-record': 'record-of-one-key',
          'x-idempotency-since': since,
        },
        body: JSON.stringify({ url: url('retried'), enabledEvents: ['*'] }),
      });
      expect(response.status).toBe(201);
      return ((await response.json()) as { endpoint: WebhookEndpoint & { secret: string } }).endpoint;
    };
    const [first, concurrent] = await Promise.all([
      keyed('2026-11-20T10:00:00.000Z'),
      keyed('2026-11-20T10:00:00.000Z'),
    ]);
    const retried = await keyed('2026-11-20T10:00:00.000Z');
    expect(concurrent).toEqual(first);
    expect(retried).toEqual(first);
    const listed = (await call('GET', '/internal/webhook-endpoints', scope)).body as unknown as WebhookEndpointList;
    expect(listed.endpoints.map((e) => e.id)).toEqual([first.id]);
    const nextDay = await keyed('2026-11-21T10:00:01.000Z');
    expect(nextDay.id).not.toBe(first.id);
    expect(nextDay.secret).not.toBe(first.secret);
  });

  it('When listing, then only this organization and mode endpoints come back, newest first, paginated', async () => {
    const scope = { organizationId: `org_list_${randomBytes(3).toString('hex')}`, mode: 'test' as Mode };
    const made: string[] = [];
    for (const name of ['one', 'two', 'three'])
      made.push((await createEndpoint(fixture.dispatcher, scope, { url: url(name), enabledEvents: ['*'] })).id);
    await createEndpoint(fixture.dispatcher, { ...scope, mode: 'live' }, { url: url('live'), enabledEvents: ['*'] });
    const page1 = (await call('GET', '/internal/webhook-endpoints?limit=2', scope))
      .body as unknown as WebhookEndpointList;
    expect(page1.endpoints.map((e) => e.id)).toEqual([made[2], made[1]]);
    expect(page1.pagination).toEqual({ page: 1, limit: 2, total: 3, hasMore: true });
    const page2 = (await call('GET', '/internal/webhook-endpoints?limit=2&page=2', scope))
      .body as unknown as WebhookEndpointList;
    expect(page2.endpoints.map((e) => e.id)).toEqual([made[0]]);
    expect((await call('GET', '/internal/webhook-endpoints?limit=0', scope)).body.code).toBe('INVALID_REQUEST');
  });
});

describe('GET, PATCH, DELETE /internal/webhook-endpoints/:id (D50, D4)', () => {
  it('When an endpoint is patched, then the fields given change, updatedAt moves, and an empty description removes it', async () => {
    const created = await createEndpoint(fixture.dispatcher, TEST, {
      url: url('patch'),
      enabledEvents: ['*'],
      description: 'before',
    });
    const { status, body } = await call('PATCH', `/internal/webhook-endpoints/${created.id}`, TEST, {
      url: url('patched'),
      enabledEvents: ['checkout.session.expired'],
      description: '',
      metadata: { k: 'v' },
    });
    expect(status).toBe(200);
    const patched = (body as unknown as WebhookEndpointResponse).endpoint;
    expect(patched).toMatchObject({
      url: url('patched'),
      enabledEvents: ['checkout.session.expired'],
      metadata: { k: 'v' },
    });
    expect(patched).not.toHaveProperty('description');
    expect(patched.updatedAt >= created.updatedAt).toBe(true);

    // D36: nothing new, nothing written.
    const same = await call('PATCH', `/internal/webhook-endpoints/${created.id}`, TEST, { url: url('patched') });
    expect((same.body as unknown as WebhookEndpointResponse).endpoint.updatedAt).toBe(patched.updatedAt);
  });

  it('When an endpoint is disabled and enabled again, then it says why while disabled and nothing once enabled', async () => {
    const created = await createEndpoint(fixture.dispatcher, TEST, { url: url('toggle'), enabledEvents: ['*'] });
    const disabled = (await call('PATCH', `/internal/webhook-endpoints/${created.id}`, TEST, { disabled: true }))
      .body as unknown as WebhookEndpointResponse;
    expect(disabled.endpoint).toMatchObject({
      disabled: true,
      disabledReason: { code: 'requested', message: expect.any(String), at: expect.any(String) },
    });
    const enabled = (await call('PATCH', `/internal/webhook-endpoints/${created.id}`, TEST, { disabled: false }))
      .body as unknown as WebhookEndpointResponse;
    expect(enabled.endpoint.disabled).toBe(false);
    expect(enabled.endpoint).not.toHaveProperty('disabledReason');
  });

  it.each([
    ['an unknown event type', { enabledEvents: ['nope'] }],
    ['a null', { url: null }],
    ['an unknown field', { secret: 'x' }],
    ['a non-boolean disabled', { disabled: 'yes' }],
  ])('When a PATCH has %s, then it is 400 WEBHOOK_ENDPOINT_UPDATE_FAILED', async (_, patch) => {
    const created = await createEndpoint(fixture.dispatcher, TEST, { url: url('bad-patch'), enabledEvents: ['*'] });
    const { status, body } = await call('PATCH', `/internal/webhook-endpoints/${created.id}`, TEST, patch);
    expect([status, body.code]).toEqual([400, 'WEBHOOK_ENDPOINT_UPDATE_FAILED']);
  });

  it.each(['we_nope', 'evt_test_abc', 'we_prod_abc'])(
    'When the id %s is malformed, then every operation is 400 INVALID_WEBHOOK_ENDPOINT_ID',
    async (id) => {
      for (const [method, path] of [
        ['GET', `/internal/webhook-endpoints/${id}`],
        ['PATCH', `/internal/webhook-endpoints/${id}`],
        ['DELETE', `/internal/webhook-endpoints/${id}`],
        ['POST', `/internal/webhook-endpoints/${id}/rotate-secret`],
      ] as const) {
        const { status, body } = await call(method, path, TEST, method === 'PATCH' ? {} : undefined);
        expect([method, status, body.code]).toEqual([method, 400, 'INVALID_WEBHOOK_ENDPOINT_ID']);
      }
    },
  );

  it('When the endpoint is of the other mode, another organization or nobody, then every operation is 404 WEBHOOK_ENDPOINT_NOT_FOUND and nothing changes', async () => {
    const created = await createEndpoint(fixture.dispatcher, TEST, { url: url('mine'), enabledEvents: ['*'] });
    for (const [id, scope] of [
      [created.id, LIVE],
      [created.id, OTHER],
      [newId('we', 'test'), TEST],
    ] as const) {
      for (const [method, path] of [
        ['GET', `/internal/webhook-endpoints/${id}`],
        ['PATCH', `/internal/webhook-endpoints/${id}`],
        ['DELETE', `/internal/webhook-endpoints/${id}`],
        ['POST', `/internal/webhook-endpoints/${id}/rotate-secret`],
      ] as const) {
        const { status, body } = await call(method, path, scope, method === 'PATCH' ? { disabled: true } : undefined);
        expect([method, status, body.code]).toEqual([method, 404, 'WEBHOOK_ENDPOINT_NOT_FOUND']);
      }
    }
    const still = (await call('GET', `/internal/webhook-endpoints/${created.id}`))
      .body as unknown as WebhookEndpointResponse;
    expect(still.endpoint.disabled).toBe(false);
  });

  it('When an endpoint is deleted, then it is gone: reading or deleting it again is 404', async () => {
    const created = await createEndpoint(fixture.dispatcher, TEST, { url: url('gone'), enabledEvents: ['*'] });
    expect((await call('DELETE', `/internal/webhook-endpoints/${created.id}`)).status).toBe(200);
    expect((await call('GET', `/internal/webhook-endpoints/${created.id}`)).status).toBe(404);
    expect((await call('DELETE', `/internal/webhook-endpoints/${created.id}`)).body.code).toBe(
      'WEBHOOK_ENDPOINT_NOT_FOUND',
    );
  });
});

describe('POST /internal/webhook-endpoints/:id/rotate-secret (D50)', () => {
  it('When the secret is rotated, then the answer shows a new one and reads still show none', async () => {
    const created = await createEndpoint(fixture.dispatcher, TEST, { url: url('rotate'), enabledEvents: ['*'] });
    const { status, body } = await call('POST', `/internal/webhook-endpoints/${created.id}/rotate-secret`);
    expect(status).toBe(200);
    const rotated = (body as unknown as { endpoint: { secret: string; id: string } }).endpoint;
    expect(rotated.id).toBe(created.id);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    const read = await call('GET', `/internal/webhook-endpoints/${created.id}`);
    expect(JSON.stringify(read.body)).not.toContain(rotated.secret);
  });
});

describe('GET /internal/event-types (D49)', () => {
  it('When the catalog is read, then every public type comes with its description and the JSON Schema of its body', async () => {
    const { status, body } = await call('GET', '/internal/event-types');
    expect(status).toBe(200);
    const list = body as unknown as EventTypeList;
    expect(list.eventTypes.map((t) => t.type)).toEqual([...EVENT_TYPES]);
    expect(list.pagination).toEqual({ page: 1, limit: 20, total: EVENT_TYPES.length, hasMore: false });
    for (const info of list.eventTypes) {
      expect(info.description.length).toBeGreaterThan(10);
      expect(info.schema).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema', title: info.type });
    }
    expect((await call('GET', '/internal/event-types?limit=1&page=2')).body).toMatchObject({
      eventTypes: [{ type: EVENT_TYPES[1] }],
    });
    expect((await call('GET', '/internal/event-types?colour=red')).body.code).toBe('INVALID_REQUEST');
  });
});
