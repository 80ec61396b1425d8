import { newId, webhookHeaders, type WebhookEvent } from '@checkout/contracts';
import type { Checkout } from '@checkout/sdk';

// D45: the local development relay. It polls the events API with a test key and forwards each new event to a
// local URL with the headers and body a real delivery carries (signed when a secret is given), so a developer
// sees webhooks without exposing an inbound port.

export interface RelayOptions {
  client: Checkout;
  forwardTo: string;
  /**
   * The organization's signing secret (whsec_…); without it the forwarded requests are unsigned, as deliveries are.
   */
  secret?: string | undefined;
  /** One line per forwarded event. */
  print: (line: string) => void;
  clock?: () => Date;
  /** Deadline of one forward to the local URL. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export interface ForwardResult {
  event: WebhookEvent;
  /** The local endpoint's status, or why there was none. */
  status: number | string;
}

/** Events are recorded a moment after they happen, so a poll looks back this far past the newest one seen. */
const LOOKBACK_MS = 60_000;
const PAGE_SIZE = 100;
/**
 * An event whose session has a callback URL gets its delivery stored once the first attempt is over, a moment
 * after the event is listed: the relay waits this long for it, so it forwards that delivery's id, not its own.
 */
const DELIVERY_WAIT_MS = 10_000;

export class Relay {
  private readonly seen = new Map<string, number>();
  private floor = 0;
  private readonly clock: () => Date;

  constructor(private readonly options: RelayOptions) {
    this.clock = options.clock ?? (() => new Date());
  }

  /** Marks what exists now as old: only events recorded after this are forwarded. */
  async prime(): Promise<void> {
    this.floor = this.clock().getTime() - LOOKBACK_MS;
    for (const event of await this.recent()) this.seen.set(event.id, Date.parse(event.createdAt));
  }

  /** One poll: forwards the events not seen yet, oldest first. */
  async poll(): Promise<ForwardResult[]> {
    const fresh = (await this.recent()).filter((e) => !this.seen.has(e.id)).reverse();
    const results: ForwardResult[] = [];
    for (const event of fresh) {
      const deliveryId = await this.deliveryIdOf(event);
      // Its first attempt is still under way: it goes with a later poll, and what is newer waits behind it (oldest
      // first).
      if (deliveryId === undefined) break;
      const createdAt = Date.parse(event.createdAt);
      this.seen.set(event.id, createdAt);
      this.floor = Math.max(this.floor, createdAt - LOOKBACK_MS);
      results.push(await this.forward(event, deliveryId));
    }
    for (const [id, createdAt] of this.seen) if (createdAt < this.floor) this.seen.delete(id);
    return results;
  }

  /** Events newer than the floor, newest first. */
  private async recent(): Promise<WebhookEvent[]> {
    const out: WebhookEvent[] = [];
    for await (const event of this.options.client.events.list({ limit: PAGE_SIZE })) {
      if (Date.parse(event.createdAt) < this.floor) break;
      out.push(event);
    }
    return out;
  }

  /**
   * The delivery's own id when the event has one (it had a callback URL), else one made up; undefined while one is
   * still to come.
   */
  private async deliveryIdOf(event: WebhookEvent): Promise<string | undefined> {
    const { deliveries } = await this.options.client.events.retrieve(event.id);
    if (deliveries[0]) return deliveries[0].id;
    // Only a session's event goes to a callback URL (D49): an order's or a refund's never gets a delivery here.
    const deliveryToCome =
      'session' in event &&
      Boolean(event.session.callbackUrl) &&
      this.clock().getTime() - Date.parse(event.createdAt) < DELIVERY_WAIT_MS;
    return deliveryToCome ? undefined : newId('dlv', 'test');
  }

  private async forward(event: WebhookEvent, deliveryId: string): Promise<ForwardResult> {
    const body = JSON.stringify(event);
    const headers = webhookHeaders({
      eventId: event.id,
      deliveryId,
      eventType: event.event,
      body,
      secrets: this.options.secret ? [this.options.secret] : [],
      timestamp: Math.floor(this.clock().getTime() / 1000),
    });
    let status: number | string;
    try {
      const response = await (this.options.fetch ?? fetch)(this.options.forwardTo, {
        method: 'POST',
        headers,
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      });
      await response.arrayBuffer().catch(() => undefined);
      status = response.status;
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      status = `error: ${cause ?? (err instanceof Error ? err.message : String(err))}`;
    }
    this.options.print(`${this.clock().toISOString()}  ${event.event.padEnd(27)}  ${event.id}  → ${status}`);
    return { event, status };
  }
}
