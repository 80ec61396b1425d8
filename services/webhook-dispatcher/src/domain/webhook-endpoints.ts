import { randomBytes } from 'node:crypto';
import { DomainError } from '@checkout/errors';
import { fromEntries, toEntries, type Scope } from '@checkout/mongo';
import {
  ENDPOINT_SECRET_OVERLAP_MS,
  SECRET_PREFIX,
  WEBHOOK_ENDPOINTS_MAX,
  newId,
  type CreateWebhookEndpointRequest,
  type UpdateWebhookEndpointRequest,
} from '@checkout/contracts';
import type { DeliveryDocument } from '../store/delivery.document';
import type { WebhookEndpointDocument } from '../store/webhook-endpoint.document';
import type { DeliveryReads, EndpointStore } from './ports';
import type { AddressPolicy } from './rules/address-policy';
import { endpointUrlProblem } from './rules/endpoint-url';

// D50's rules for one endpoint, as pure functions, and the use cases that store them. The record path and the
// attempts read endpoints through the EndpointDirectory (endpoint-directory.ts), which these use cases tell of
// every change made here.

/** `whsec_` + 24 random bytes, base64: the organization's signing secrets have the same form (D35). */
export function newSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
}

/**
 * A PATCH applied to an endpoint (D50): the fields given replace the stored ones (`description: ""` removes it);
 * `disabled: true` disables it as requested, `false` enables it again and forgets its run of failures. null when
 * nothing changes, so updatedAt moves only on a change (D36).
 */
export function patchedEndpoint(
  current: WebhookEndpointDocument,
  patch: UpdateWebhookEndpointRequest,
  now: Date,
): WebhookEndpointDocument | null {
  const next: WebhookEndpointDocument = { ...current };
  if (patch.url !== undefined) next.url = patch.url;
  if (patch.enabledEvents !== undefined) next.enabledEvents = [...patch.enabledEvents];
  if (patch.metadata !== undefined) next.metadata = toEntries(patch.metadata);
  if (patch.description !== undefined) {
    if (patch.description === '') delete next.description;
    else next.description = patch.description;
  }
  if (patch.disabled === true && current.disabled === null)
    next.disabled = { reason: 'requested', message: 'Disabled through the API or the dashboard.', at: now };
  if (patch.disabled === false && current.disabled !== null) {
    next.disabled = null;
    next.failingSince = null;
  }
  const { revision: _a, updatedAt: _b, ...before } = current;
  const { revision: _c, updatedAt: _d, ...after } = next;
  if (JSON.stringify(before) === JSON.stringify(after)) return null;
  return { ...next, updatedAt: now };
}

/** The endpoint with a new secret; the one it had signs beside it for 24 hours (D50), the one before that no more. */
export function rotatedEndpoint(current: WebhookEndpointDocument, secret: string, now: Date): WebhookEndpointDocument {
  return {
    ...current,
    secret,
    previousSecret: { secret: current.secret, until: new Date(now.getTime() + ENDPOINT_SECRET_OVERLAP_MS) },
    updatedAt: now,
  };
}

export function endpointMetadata(endpoint: WebhookEndpointDocument): Record<string, string> {
  return fromEntries(endpoint.metadata);
}

/** The host name a URL sends to, as the cap on distinct hosts counts it ("A.example." and "a.example" are one). */
function destinationHost(url: string): string {
  return new URL(url).hostname.replace(/\.$/, '');
}

/**
 * Whether `url` would make the endpoints of an organization and mode name more than `maxHosts` distinct host names
 * (`others`: the URLs of its other endpoints). Endpoints on a host already named cost nothing: the cap bounds how
 * many hosts one key makes the dispatcher POST to, not how many endpoints it has (D50's 16).
 */
export function exceedsHostLimit(others: readonly string[], url: string, maxHosts: number): boolean {
  const hosts = new Set(others.map(destinationHost));
  if (hosts.has(destinationHost(url))) return false;
  return hosts.size + 1 > maxHosts;
}

/** Told of every change made here, so that this process's attempts and fan-out see it at once. */
export interface EndpointChanges {
  /** Endpoint `id` as it is now; null once deleted. */
  remember(id: string, endpoint: WebhookEndpointDocument | null): void;
}

const notFound = (id: string) => new DomainError('WEBHOOK_ENDPOINT_NOT_FOUND', `No webhook endpoint ${id}.`);

/** D50's use cases. */
export class WebhookEndpoints {
  constructor(
    private readonly deps: {
      store: EndpointStore;
      deliveries: Pick<DeliveryReads, 'listForEndpoint'>;
      changes: EndpointChanges;
      clock: () => Date;
      /** D33's address rule, which an endpoint's URL meets at registration as its attempts do at delivery. */
      policy: Pick<AddressPolicy, 'check' | 'isExplicitlyAllowed'>;
      /** Distinct destination host names per organization and mode (WEBHOOK_ENDPOINT_HOSTS_MAX). */
      maxHosts: number;
    },
  ) {}

  /**
   * Refuses a URL on one host more than the organization and mode may name, as the 17th endpoint is refused. A
   * check on a read, not an index: two concurrent creates on two new hosts can both pass it, so the hosts named
   * can exceed the cap by the creates racing, never the 16 endpoints the slot index bounds.
   */
  private async checkHosts(scope: Scope, url: string, except?: string): Promise<void> {
    const { endpoints } = await this.deps.store.list(scope, 1, WEBHOOK_ENDPOINTS_MAX);
    const others = endpoints.filter((endpoint) => endpoint._id !== except).map((endpoint) => endpoint.url);
    if (!exceedsHostLimit(others, url, this.deps.maxHosts)) return;
    const message =
      `An organization's webhook endpoints may name at most ${this.deps.maxHosts} distinct hosts per mode; ` +
      'use a host already named, or delete the endpoints of one first.';
    throw new DomainError('WEBHOOK_ENDPOINT_LIMIT_REACHED', message, { details: [{ path: 'url', message }] });
  }

  /** Refuses a URL live mode or D33 would never deliver to (endpointUrlProblem), as its request's validation does. */
  private checkUrl(
    scope: Scope,
    url: string,
    code: 'WEBHOOK_ENDPOINT_CREATE_FAILED' | 'WEBHOOK_ENDPOINT_UPDATE_FAILED',
  ) {
    const problem = endpointUrlProblem(url, scope.mode, this.deps.policy);
    if (problem) throw new DomainError(code, problem, { details: [{ path: 'url', message: problem }] });
  }

  /**
   * A new endpoint in a free place of its organization and mode's 16, with its secret (shown once). `id`: derived
   * from the create's Idempotency-Key (the route's endpointIdFor), so that a retry after an unknown outcome (a 5xx:
   * the gateway keeps no 5xx) answers the endpoint, and its secret, the first try stored, instead of a second
   * endpoint with a second secret; without a key, a new id.
   */
  async create(scope: Scope, input: CreateWebhookEndpointRequest, id?: string): Promise<WebhookEndpointDocument> {
    this.checkUrl(scope, input.url, 'WEBHOOK_ENDPOINT_CREATE_FAILED');
    const now = this.deps.clock();
    const existing = id === undefined ? null : await this.deps.store.get(scope, id);
    if (existing) return existing;
    await this.checkHosts(scope, input.url);
    const stored = await this.deps.store.insertInFreeSlot(
      scope,
      {
        _id: id ?? newId('we', scope.mode),
        url: input.url,
        enabledEvents: [...input.enabledEvents],
        ...(input.description !== undefined && input.description !== '' && { description: input.description }),
        metadata: toEntries(input.metadata ?? {}),
        secret: newSigningSecret(),
        previousSecret: null,
        disabled: null,
        failingSince: null,
        createdAt: now,
        updatedAt: now,
      },
      WEBHOOK_ENDPOINTS_MAX,
    );
    if (!stored)
      throw new DomainError(
        'WEBHOOK_ENDPOINT_LIMIT_REACHED',
        `An organization may have at most ${WEBHOOK_ENDPOINTS_MAX} webhook endpoints per mode; delete one first.`,
      );
    if (stored.created) this.deps.changes.remember(stored.endpoint._id, stored.endpoint);
    return stored.endpoint;
  }

  async get(scope: Scope, id: string): Promise<WebhookEndpointDocument> {
    const endpoint = await this.deps.store.get(scope, id);
    if (!endpoint) throw notFound(id);
    return endpoint;
  }

  list(scope: Scope, page: number, limit: number) {
    return this.deps.store.list(scope, page, limit);
  }

  /**
   * The dashboard's page of one endpoint: its deliveries, newest event first, and whether another page follows
   * (D50). Another organization's endpoint is not found.
   */
  async deliveries(
    scope: Scope,
    id: string,
    page: number,
    limit: number,
  ): Promise<{ deliveries: DeliveryDocument[]; hasMore: boolean }> {
    await this.get(scope, id);
    const found = await this.deps.deliveries.listForEndpoint(scope, id, page, limit);
    return { deliveries: found.slice(0, limit), hasMore: found.length > limit };
  }

  async update(scope: Scope, id: string, patch: UpdateWebhookEndpointRequest): Promise<WebhookEndpointDocument> {
    if (patch.url !== undefined) {
      this.checkUrl(scope, patch.url, 'WEBHOOK_ENDPOINT_UPDATE_FAILED');
      await this.checkHosts(scope, patch.url, id);
    }
    const now = this.deps.clock();
    return this.change(scope, id, (current) => patchedEndpoint(current, patch, now));
  }

  async rotateSecret(scope: Scope, id: string): Promise<WebhookEndpointDocument> {
    const now = this.deps.clock();
    const secret = newSigningSecret();
    return this.change(scope, id, (current) => rotatedEndpoint(current, secret, now));
  }

  /** One conditional change of a stored endpoint (`next` null: unchanged), told to the directory. */
  private async change(
    scope: Scope,
    id: string,
    next: (current: WebhookEndpointDocument) => WebhookEndpointDocument | null,
  ): Promise<WebhookEndpointDocument> {
    const changed = await this.deps.store.mutate(scope, id, (current) => ({ next: next(current), result: undefined }));
    if (!changed) throw notFound(id);
    this.deps.changes.remember(changed.doc._id, changed.doc);
    return changed.doc;
  }

  async delete(scope: Scope, id: string): Promise<void> {
    if (!(await this.deps.store.delete(scope, id))) throw notFound(id);
    this.deps.changes.remember(id, null);
  }
}
