import { GroupCommit } from '@checkout/coalesce';
import type { Scope } from '@checkout/mongo';
import type { EventType } from '@checkout/contracts';
import type { WebhookEndpointDocument } from '../../store/webhook-endpoint.document';
import type { EndpointRecords } from './records';
import { receives } from '../rules/fan-out';
import { scopeKey } from './lanes';
import type { EndpointChanges } from '../webhook-endpoints';

/** Most organizations and modes whose endpoints one read fetches. */
const READ_BATCH_LIMIT = 200;
/** Endpoints remembered for attempts; beyond this the oldest read goes (it is read again when needed). */
const MAX_REMEMBERED = 10_000;

/** What fan-out needs to know of an event. */
export interface FanOutEvent {
  scope: Scope;
  type: EventType;
  createdAt: Date;
}

/**
 * Where the dispatcher reads webhook endpoints (D50). Fan-out reads them fresh: the endpoints of every organization
 * and mode of the batches being recorded, in one read shared by the batches arriving meanwhile (GroupCommit), so an
 * event recorded after a create, a PATCH or a delete sees it, on every replica. Attempts read an endpoint's secrets
 * and state from what was read last, for at most `cacheMs`: a change made through another replica reaches this
 * one's attempts within that time (its own changes at once). A rotation is not hurt by it: the secret it replaced
 * signs for 24 hours beside the new one.
 */
export class EndpointDirectory implements EndpointChanges {
  private readonly remembered = new Map<string, { endpoint: WebhookEndpointDocument | null; readAt: number }>();
  private readonly reads: GroupCommit<string, WebhookEndpointDocument[]>;

  constructor(
    private readonly store: Pick<EndpointRecords, 'get' | 'ofScopes'>,
    private readonly options: { cacheMs: number; clock: () => Date },
  ) {
    this.reads = new GroupCommit(
      async (keys) => {
        const scopes = [...new Set(keys)].map(scopeOfKey);
        const found = await store.ofScopes(scopes);
        for (const endpoint of found) this.remember(endpoint._id, endpoint);
        return keys.map((key) => found.filter((endpoint) => scopeKey(endpoint) === key));
      },
      { maxBatch: READ_BATCH_LIMIT },
    );
  }

  /**
   * For each event, the endpoints that get a delivery of it: enabled now, subscribed to its type, and created no
   * later than the event (an endpoint does not receive what happened before it existed). One read for all.
   */
  async subscribersOf(events: readonly FanOutEvent[]): Promise<WebhookEndpointDocument[][]> {
    if (events.length === 0) return [];
    const keys = [...new Set(events.map((event) => scopeKey(event.scope)))];
    const endpointsByKey = new Map((await this.reads.addAll(keys)).map((endpoints, i) => [keys[i], endpoints]));
    return events.map((event) =>
      (endpointsByKey.get(scopeKey(event.scope)) ?? []).filter((endpoint) => receives(endpoint, event)),
    );
  }

  /** The endpoint as an attempt needs it (secrets, whether it is still enabled), or null when it was deleted. */
  async forAttempt(scope: Scope, id: string): Promise<WebhookEndpointDocument | null> {
    const known = this.remembered.get(id);
    if (known && this.options.clock().getTime() - known.readAt < this.options.cacheMs) return known.endpoint;
    const endpoint = await this.store.get(scope, id);
    this.remember(id, endpoint);
    return endpoint;
  }

  /** Endpoint `id` as it is now (null: deleted), for the attempts here; the oldest read goes beyond MAX_REMEMBERED. */
  remember(id: string, endpoint: WebhookEndpointDocument | null): void {
    this.remembered.delete(id);
    this.remembered.set(id, { endpoint, readAt: this.options.clock().getTime() });
    if (this.remembered.size > MAX_REMEMBERED) {
      const oldest = this.remembered.keys().next().value;
      if (oldest !== undefined) this.remembered.delete(oldest);
    }
  }
}

function scopeOfKey(key: string): Scope {
  const separator = key.indexOf(':');
  return { mode: key.slice(0, separator) as Scope['mode'], organizationId: key.slice(separator + 1) };
}
