import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '@checkout/contracts';
import { buildOpenApiDocument } from './openapi';

type Doc = {
  paths: Record<string, Record<string, any>>;
  webhooks: Record<string, Record<string, any>>;
  components: { schemas: Record<string, any> };
};
const doc = buildOpenApiDocument('http://127.0.0.1:8080') as unknown as Doc;

describe('OpenAPI document', () => {
  it("When the checkout settings are described, then GET and PATCH share one schema of the page's brand, each field nullable", () => {
    const path = doc.paths['/v0/checkout_settings'];
    expect([path?.get.operationId, path?.patch.operationId]).toEqual(['getCheckoutSettings', 'updateCheckoutSettings']);
    expect(JSON.stringify(path?.patch.requestBody)).toContain('UpdateCheckoutSettingsRequest');
    const fields = doc.components.schemas.CheckoutSettings;
    expect(Object.keys(fields.properties).sort()).toEqual(['brandColor', 'defaultLocale', 'displayName', 'logoUrl']);
    const text = JSON.stringify(fields);
    for (const locale of ['auto', 'en', 'pt-BR', 'zh-Hans', 'ar']) expect(text).toContain(`"${locale}"`);
    expect(text).toContain('"maxLength":2048');
    expect(text.match(/"type":"null"/g)).toHaveLength(4);
  });

  it('When a PATCH is described, then its body is optional: an empty PATCH changes nothing and answers the resource', () => {
    const patches = Object.entries(doc.paths).flatMap(([path, methods]) =>
      methods.patch ? [[path, methods.patch]] : [],
    );
    expect(patches.length).toBeGreaterThan(2);
    for (const [path, patch] of patches)
      expect({ path, required: patch.requestBody?.required }).toEqual({ path, required: false });
  });

  it('When the dashboard login link operation is described, then it answers 201 with url and expiresAt and takes no Idempotency-Key (D47)', () => {
    const post = doc.paths['/v0/dashboard/login_links']?.post;
    expect(post.operationId).toBe('createDashboardLoginLink');
    expect(post.parameters).toBeUndefined();
    expect(JSON.stringify(post.responses['201'])).toContain('LoginLinkResponse');
    expect(doc.components.schemas.LoginLinkResponse.required).toEqual(['url', 'expiresAt']);
  });

  it('When a POST is described, then it documents the Idempotency-Key header, its 409 codes and Idempotent-Replayed (D42)', () => {
    for (const [path, methods] of Object.entries(doc.paths)) {
      const post = methods.post;
      // D47: a login link is a secret the D42 store would keep in clear; each call makes a new one instead. D50: so
      // is a rotated secret, and a second rotation is harmless.
      if (!post || path === '/v0/dashboard/login_links' || path.endsWith('/rotate_secret')) continue;
      const header = post.parameters.find(
        (p: { in: string; name: string }) => p.in === 'header' && p.name === 'Idempotency-Key',
      );
      expect(header, path).toMatchObject({ required: false, schema: { type: 'string', minLength: 1, maxLength: 255 } });
      expect(post.responses['409'].description, path).toContain('IDEMPOTENCY_KEY_REUSED');
      expect(post.responses['409'].description, path).toContain('IDEMPOTENCY_KEY_IN_USE');
      const success = Object.entries(post.responses).find(([status]) => status.startsWith('2'))?.[1] as {
        headers?: Record<string, unknown>;
      };
      expect(success.headers, path).toHaveProperty('Idempotent-Replayed');
    }
  });

  it('When GET and PATCH are described, then they carry no Idempotency-Key (D42 is for POST)', () => {
    expect(JSON.stringify(doc.paths['/v0/orders/{orderId}'])).not.toContain('Idempotency-Key');
  });

  it('When events recovery is described, then POST /v0/events/recover takes {since} and answers 202 {recovering} (D44)', () => {
    const recover = doc.paths['/v0/events/recover']?.post;
    expect(recover.operationId).toBe('recoverEvents');
    const body = doc.components.schemas[recover.requestBody.content['application/json'].schema.$ref.split('/').pop()];
    expect(body.required).toEqual(['since']);
    const answer =
      doc.components.schemas[recover.responses['202'].content['application/json'].schema.$ref.split('/').pop()];
    expect(answer.properties).toHaveProperty('recovering');
  });

  it('When reports are described, then D52 creates with 202, names asOf and fileUrl, and serves the file as text/csv', () => {
    const create = doc.paths['/v0/reports']?.post;
    expect(create.operationId).toBe('createReport');
    expect(create.tags).toEqual(['Reports']);
    expect(JSON.stringify(create.responses['202'])).toContain('ReportResponse');
    expect(create.responses['400'].description).toContain('REPORT_CREATE_FAILED');
    const report = doc.components.schemas.Report_output ?? doc.components.schemas.Report;
    expect(Object.keys(report.properties)).toEqual(
      expect.arrayContaining(['asOf', 'fileUrl', 'rows', 'failureReason']),
    );
    const file = doc.paths['/v0/reports/{reportId}/file']?.get;
    expect(Object.keys(file.responses['200'].content)).toEqual(['text/csv; charset=utf-8']);
    expect(file.responses['409'].description).toContain('REPORT_NOT_READY');
    expect(file.responses['404'].description).toContain('REPORT_NOT_FOUND');
  });

  it('When refunds are described, then the D48 operations, their codes and the Refund schema (with amounts.refunded on Order) are there', () => {
    const create = doc.paths['/v0/orders/{orderId}/refunds']?.post;
    expect(create.operationId).toBe('createRefund');
    expect(create.tags).toEqual(['Refunds']);
    expect(create.requestBody.required).toBe(false);
    expect(JSON.stringify(create.responses['201'])).toContain('RefundResponse');
    expect(create.responses['400'].description).toContain('REFUND_FAILED');
    expect(create.responses['404'].description).toContain('ORDER_NOT_FOUND');
    expect(doc.paths['/v0/orders/{orderId}/refunds']?.get.operationId).toBe('listRefunds');
    const get = doc.paths['/v0/refunds/{refundId}']?.get;
    expect(get.parameters[0].schema.pattern).toBe('^re_(live|test)_[0-9A-Za-z]{1,64}$');
    expect(get.responses['400'].description).toContain('INVALID_REFUND_ID');
    expect(get.responses['404'].description).toContain('REFUND_NOT_FOUND');
    for (const path of ['/v0/test_helpers/orders/{orderId}/refunds', '/v0/test_helpers/refunds/{refundId}/settle'])
      expect(doc.paths[path]?.post.tags, path).toEqual(['Test helpers']);
    const refund = doc.components.schemas.Refund;
    expect(refund.required).toEqual(
      expect.arrayContaining(['id', 'orderId', 'amount', 'currency', 'status', 'reason', 'metadata', 'createdAt']),
    );
    expect(refund.properties.status.enum).toEqual(['pending', 'succeeded', 'failed']);
    expect(doc.components.schemas.Amounts_output?.required ?? doc.components.schemas.Amounts.required).toContain(
      'refunded',
    );
  });

  it('When the events are described, then every D49 body is an option of WebhookEvent, told apart by `event`', () => {
    const union = doc.components.schemas.WebhookEvent_output ?? doc.components.schemas.WebhookEvent;
    expect(Object.keys(union.discriminator.mapping).sort()).toEqual(
      [
        'checkout.session.completed',
        'checkout.session.expired',
        'order.cancelled',
        'order.created',
        'order.paid',
        'order.updated',
        'refund.created',
        'refund.failed',
        'refund.succeeded',
        'report.failed',
        'report.succeeded',
      ].sort(),
    );
    expect(doc.components.schemas.RefundSucceededEvent.required).toEqual([
      'id',
      'event',
      'createdAt',
      'refund',
      'order',
    ]);
  });

  it('When the webhooks are described, then each event type of the catalog is a POST with its named body and the delivery headers (D49)', () => {
    expect(Object.keys(doc.webhooks)).toEqual([...EVENT_TYPES]);
    for (const type of EVENT_TYPES) {
      const post = doc.webhooks[type]?.post;
      const ref = post.requestBody.content['application/json'].schema.$ref as string;
      const body = doc.components.schemas[ref.split('/').pop() as string];
      expect(body.properties.event).toMatchObject({ const: type });
      expect(post.parameters.map((p: { name: string }) => p.name)).toEqual(
        expect.arrayContaining(['X-Service-Event-Id', 'X-Service-Delivery-Id', 'webhook-id', 'webhook-signature']),
      );
      expect(post.responses['200'].description).toMatch(/2xx/);
    }
  });

  it('When webhook endpoints are described, then create answers 201 with the secret, GET and the list never carry one, and DELETE is there (D50)', () => {
    const create = doc.paths['/v0/webhook_endpoints']?.post;
    expect(create.operationId).toBe('createWebhookEndpoint');
    expect(create.responses['400'].description).toContain('WEBHOOK_ENDPOINT_LIMIT_REACHED');
    const created =
      doc.components.schemas[create.responses['201'].content['application/json'].schema.$ref.split('/').pop()];
    const withSecret = doc.components.schemas[created.properties.endpoint.$ref.split('/').pop()];
    expect(withSecret.required).toContain('secret');
    const get = doc.paths['/v0/webhook_endpoints/{endpointId}']?.get;
    expect(JSON.stringify(get.responses['200'])).toContain('WebhookEndpointResponse');
    expect(doc.components.schemas.WebhookEndpoint.properties).not.toHaveProperty('secret');
    expect(doc.paths['/v0/webhook_endpoints/{endpointId}']?.delete.operationId).toBe('deleteWebhookEndpoint');
    expect(doc.paths['/v0/webhook_endpoints/{endpointId}']?.get.parameters[0].schema.pattern).toBe(
      '^we_(live|test)_[0-9A-Za-z]{1,64}$',
    );
  });

  it('When the event catalog is described, then GET /v0/event_types lists types with a JSON Schema each (D49)', () => {
    const list = doc.paths['/v0/event_types']?.get;
    expect(list.operationId).toBe('listEventTypes');
    expect(doc.components.schemas.EventTypeInfo.required).toEqual(['type', 'description', 'schema']);
  });

  it('When GET /v0/events is described, then it takes the D51 filters', () => {
    const names = doc.paths['/v0/events']?.get.parameters.map((p: { name: string }) => p.name);
    expect(names).toEqual(expect.arrayContaining(['deliveryStatus', 'endpointId', 'createdAfter', 'createdBefore']));
  });
});
