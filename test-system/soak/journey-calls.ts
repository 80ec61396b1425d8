import { createHmac, randomBytes } from 'node:crypto';
import { PROCESSOR_SIGNATURE_HEADER, signProcessorPayload, type CheckoutSession } from '@checkout/contracts';
import { isRetryable, sendWithRetries, type Reply } from './client';
import type { Items, Journey, JourneyOptions, Merchant, RefundIntent } from './journey-types';

const sessionOf = (reply: Reply): CheckoutSession | undefined =>
  (reply.body as { session?: CheckoutSession } | undefined)?.session;
const codeOf = (reply: Reply): string | undefined => (reply.body as { code?: string } | undefined)?.code;
const outcomeOf = (reply: Reply) => `${reply.outcome}${codeOf(reply) ? ` ${codeOf(reply)}` : ''}`;

/** What one journey's steps share: its merchant's key, the record of its steps, and the retried calls they make. */
export class JourneyCalls {
  private readonly key: string;

  constructor(
    readonly journey: Journey,
    private readonly options: JourneyOptions,
    private readonly stepDeadline: () => number,
  ) {
    const merchant = options.merchants[journey.merchant] as Merchant;
    this.key = journey.mode === 'test' ? merchant.testKey : merchant.liveKey;
  }

  /** One step, retried while its outcome is unknown, recorded under `name` with its final outcome. */
  async retried(
    name: string,
    method: 'GET' | 'POST' | 'PATCH',
    path: string,
    route: string,
    body?: unknown,
  ): Promise<Reply> {
    const send = () =>
      this.options.client.send(method, path, route, { key: this.key, ...(body !== undefined && { body }) });
    return this.step(name, await sendWithRetries(send, { deadlineMs: this.stepDeadline() }));
  }

  async createOrder(items: Items): Promise<{ id: string } | undefined> {
    const created = await this.createWithExternalId(() =>
      this.options.client.send('POST', '/v0/orders', 'POST /v0/orders', {
        key: this.key,
        body: { items, externalId: this.journey.externalId },
      }),
    );
    this.step('create-order', created);
    const order = (created.body as { order?: { id: string } } | undefined)?.order;
    if (order) this.journey.orderId = order.id;
    return order;
  }

  /**
   * A session create spans two services; its Idempotency-Key lets a retry after an unknown outcome finish what the
   * first try began (D42), where the externalId alone would answer 409 for the first try's order.
   */
  async createSession(items: Items): Promise<CheckoutSession | undefined> {
    const { journey } = this;
    const created = await this.createWithExternalId(() =>
      this.options.client.send('POST', '/v0/checkout/sessions', 'POST /v0/checkout/sessions', {
        key: this.key,
        headers: { 'idempotency-key': `soak-create-${journey.externalId}` },
        body: {
          items,
          externalId: journey.externalId,
          callbackUrl: `${this.options.callbackUrl(journey.receiver ?? 'healthy')}?session={SESSION_ID}`,
          metadata: { journey: journey.kind },
        },
      }),
    );
    this.step('create-session', created);
    const session = sessionOf(created);
    if (session) {
      journey.sessionId = session.id;
      journey.orderId = session.order.id;
    }
    return session;
  }

  /** A test-helper payment, retried with its Idempotency-Key until it gets a definite answer. */
  async pay(
    session: CheckoutSession,
    body: { method: 'card' | 'stablecoin'; amount?: number; outcome?: 'declined' },
  ): Promise<Reply> {
    const { journey } = this;
    const succeeded = body.outcome !== 'declined';
    if (succeeded) journey.paymentIntents++;
    const headers = { 'idempotency-key': `soak-pay-${randomBytes(9).toString('hex')}` };
    // The first unknown outcome, if any: a later definite answer then speaks for a retry, not for the first try.
    let unknown: Reply['outcome'] | undefined;
    const reply = await sendWithRetries(
      async () => {
        const r = await this.options.client.send(
          'POST',
          `/v0/test_helpers/checkout/sessions/${session.id}/pay`,
          'POST /v0/test_helpers/checkout/sessions/:id/pay',
          { key: this.key, body, headers },
        );
        if (unknown === undefined && isRetryable(r.outcome)) unknown = r.outcome;
        return r;
      },
      { deadlineMs: this.stepDeadline() },
    );
    this.step(succeeded ? 'pay' : 'pay-declined', reply);
    if (unknown !== undefined && reply.outcome !== unknown)
      journey.steps[journey.steps.length - 1] += ` after ${unknown}`;
    return reply;
  }

  /** A live payment as the processor notifies it, signed with the processor's secret. */
  async notify(session: CheckoutSession, paymentId: string, amount: number): Promise<Reply> {
    const { journey } = this;
    if (!journey.processorPaymentIds.includes(paymentId)) journey.processorPaymentIds.push(paymentId);
    const rawBody = JSON.stringify({
      paymentId,
      sessionId: session.id,
      amount,
      method: 'card',
      capturedAt: new Date().toISOString(),
    });
    const signature = (body: string) => {
      const t = Math.floor(Date.now() / 1000);
      return `t=${t},v1=${createHmac('sha256', this.options.processorSecret).update(`${t}.${body}`).digest('hex')}`;
    };
    const send = () =>
      this.options.client.send('POST', '/v0/processor/notifications', 'POST /v0/processor/notifications', {
        rawBody,
        headers: { 'content-type': 'application/json', 'x-processor-signature': signature(rawBody) },
      });
    return this.step('processor-notification', await sendWithRetries(send, { deadlineMs: this.stepDeadline() }));
  }

  /** D48, live mode: the processor settles a refund, through the gateway as processors do. */
  async notifyRefund(refundId: string, outcome: 'succeeded' | 'failed'): Promise<Reply> {
    const rawBody = JSON.stringify({ refundId, outcome, settledAt: new Date().toISOString() });
    const secrets = [this.options.processorRefundSecret, this.options.processorSecret];
    const send = () =>
      this.options.client.send(
        'POST',
        '/v0/processor/refund_notifications',
        'POST /v0/processor/refund_notifications',
        {
          rawBody,
          headers: {
            'content-type': 'application/json',
            [PROCESSOR_SIGNATURE_HEADER]: signProcessorPayload(secrets, rawBody, Math.floor(Date.now() / 1000)),
          },
        },
      );
    return this.step('refund-notification', await sendWithRetries(send, { deadlineMs: this.stepDeadline() }));
  }

  /**
   * D48: a refund with its own Idempotency-Key (or, to duplicate one, the key of an earlier intent), retried while
   * its outcome is unknown: the same key is the same refund, applied at most once.
   */
  async refund(orderId: string, amount: number | undefined, again?: RefundIntent): Promise<RefundIntent> {
    const intent: RefundIntent = again ?? {
      key: `soak-refund-${randomBytes(9).toString('hex')}`,
      ...(amount !== undefined && { amount }),
      answers: [],
      unknownFirst: false,
      refundIds: [],
    };
    if (!again) this.journey.refunds.push(intent);
    const reply = await sendWithRetries(
      async () => {
        const r = await this.options.client.send(
          'POST',
          `/v0/orders/${orderId}/refunds`,
          'POST /v0/orders/:id/refunds',
          {
            key: this.key,
            body: amount === undefined ? {} : { amount },
            headers: { 'idempotency-key': intent.key },
          },
        );
        if (isRetryable(r.outcome)) intent.unknownFirst = true;
        return r;
      },
      { deadlineMs: this.stepDeadline() },
    );
    this.step(again ? 'refund-again' : 'refund', reply);
    intent.answers.push(outcomeOf(reply));
    const id = (reply.body as { refund?: { id?: string } } | undefined)?.refund?.id;
    if (reply.outcome === 201 && id) intent.refundIds.push(id);
    return intent;
  }

  /**
   * A create with an externalId, retried while the answer is unknown. A 409 DUPLICATE_EXTERNAL_ID after an
   * unknown first attempt means that attempt did create it (D37), which is what retrying safely means.
   */
  private async createWithExternalId(send: () => Promise<Reply>): Promise<Reply> {
    let unknownBefore = false;
    const reply = await sendWithRetries(
      async () => {
        const r = await send();
        if (typeof r.outcome !== 'number' || r.outcome >= 500 || r.outcome === 429) unknownBefore = true;
        return r;
      },
      { deadlineMs: this.stepDeadline() },
    );
    const { journey } = this;
    if (reply.outcome === 201) journey.created = 'created';
    else if (reply.outcome === 409 && unknownBefore && codeOf(reply) === 'DUPLICATE_EXTERNAL_ID')
      journey.created = 'duplicate-on-retry';
    else if (typeof reply.outcome !== 'number' || reply.outcome >= 500) journey.created = 'no-answer';
    else journey.created = 'refused';
    return reply;
  }

  private step(name: string, reply: Reply): Reply {
    this.journey.steps.push(`${name} ${outcomeOf(reply)}`);
    return reply;
  }
}
