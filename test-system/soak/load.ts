import { createHmac, randomBytes } from 'node:crypto';
import { PROCESSOR_SIGNATURE_HEADER, signProcessorPayload, type CheckoutSession } from '@checkout/contracts';
import { isRetryable, pause, sendWithRetries, type RecordingClient, type Reply } from './client';

// The soak's load: merchants (organizations with a test and a live key) run customer journeys at a steady
// rate. Every journey is recorded with what the merchant asked for, so the ledger can tell lost from duplicated.
//
// Retries are what a careful merchant does: an answer that is missing, 5xx or 429 is retried for up to
// STEP_DEADLINE_MS, and only where retrying is safe in the API: creates carry an externalId (D37: a repeat is a 409,
// never a second order) and session creates an Idempotency-Key too (D42: a retry finishes the first try), PATCH and
// cancel are idempotent, a processor notification carries its payment id (D27: applied at most once), a test-helper
// payment carries an Idempotency-Key (D42: the same key is the same payment id, applied at most once), and so does
// every refund (D48: the same key is the same refund id, applied at most once); a processor's refund notification
// names its refund (applied at most once).

export const RECEIVER_KINDS = ['healthy', 'slow', 'flapping', 'failing'] as const;
export type ReceiverKind = (typeof RECEIVER_KINDS)[number];

type JourneyKind =
  | 'pay-full'
  | 'pay-partial'
  | 'decline-then-pay'
  | 'expire'
  | 'cancel'
  | 'order'
  | 'live-processor'
  | 'refund'
  | 'refund-overpaid'
  | 'refund-cancelled'
  | 'refund-live';
const WEIGHTS: Record<JourneyKind, number> = {
  'pay-full': 25,
  'pay-partial': 15,
  'decline-then-pay': 10,
  expire: 15,
  cancel: 10,
  order: 10,
  'live-processor': 15,
  // D48: partial and full refunds, a duplicate with one Idempotency-Key, concurrent refunds of one order, an
  // overpaid order's excess, a cancelled order (nothing to refund), a live refund settled by the processor.
  refund: 10,
  'refund-overpaid': 4,
  'refund-cancelled': 3,
  'refund-live': 7,
};
const RECEIVER_WEIGHTS: Record<ReceiverKind, number> = { healthy: 40, slow: 20, flapping: 25, failing: 15 };

/** Long enough to outlast a broker or database restart on a loaded machine. */
const STEP_DEADLINE_MS = 60_000;
/** Once no journey starts any more, the ones still running retry for at most this long: the run stays bounded. */
const WIND_DOWN_MS = 45_000;

export interface Merchant {
  name: string;
  organizationId: string;
  testKey: string;
  liveKey: string;
}

type CreateResult = 'created' | 'duplicate-on-retry' | 'no-answer' | 'refused';

/**
 * One refund the merchant asked for (D48): its Idempotency-Key (the same key is the same refund), the answers every
 * request with that key got in the end ("201", "400 REFUND_FAILED", "503", "timeout", ...), and the refund id
 * answered with a 201.
 */
interface RefundIntent {
  key: string;
  amount?: number;
  answers: string[];
  /** A request with this key got an unknown outcome (5xx, no answer) before its definite answer. */
  unknownFirst: boolean;
  refundIds: string[];
}

export interface Journey {
  n: number;
  kind: JourneyKind;
  merchant: number;
  mode: 'test' | 'live';
  externalId: string;
  /** Sessions only. */
  receiver?: ReceiverKind;
  created?: CreateResult;
  sessionId?: string;
  orderId?: string;
  /** Test-helper payments with outcome "succeeded" the merchant asked for: each may be applied at most once. */
  paymentIntents: number;
  /** Processor payment ids notified (live mode); each may be applied at most once, however often notified. */
  processorPaymentIds: string[];
  /** D48: every refund the merchant asked for, by Idempotency-Key. */
  refunds: RefundIntent[];
  /** Each step and its final outcome, e.g. "pay 200", for the report of anything unexpected. */
  steps: string[];
}

export interface LoadOptions {
  client: RecordingClient;
  merchants: readonly Merchant[];
  callbackUrl: (kind: ReceiverKind) => string;
  processorSecret: string;
  /**
   * Signs refund notifications, beside processorSecret: a processor moving refunds to their own secret signs with
   * both, so an orders of the release before (the mixed-version soak) and today's each find theirs.
   */
  processorRefundSecret: string;
  runId: string;
  random: () => number;
  ratePerSecond: number;
  durationMs: number;
  /**
   * Keeps the load going past durationMs while this says so (the chaos loop still running late, so every outage
   * happens under load), at most for `maxExtraMs`.
   */
  extendWhile?: () => boolean;
  maxExtraMs?: number;
  /** Journeys in flight at once; a tick that finds this many running is skipped and counted. */
  maxInFlight?: number;
  log: (line: string) => void;
}

export interface LoadResult {
  journeys: Journey[];
  skipped: number;
  /** Journeys that threw (a bug in the generator or an unparseable answer), with the reason. */
  crashed: string[];
}

function pick<K extends string>(weights: Record<K, number>, random: () => number): K {
  const entries = Object.entries(weights) as [K, number][];
  let roll = random() * entries.reduce((sum, [, w]) => sum + w, 0);
  for (const [key, weight] of entries) {
    roll -= weight;
    if (roll < 0) return key;
  }
  return (entries[entries.length - 1] as [K, number])[0];
}

/** Starts journeys at a steady rate for durationMs, then waits for the ones still running. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const journeys: Journey[] = [];
  const crashed: string[] = [];
  const running = new Set<Promise<void>>();
  const maxInFlight = options.maxInFlight ?? 64;
  let skipped = 0;
  windDownAt = Number.POSITIVE_INFINITY;
  const start = Date.now();
  const planned = Math.floor((options.durationMs / 1000) * options.ratePerSecond);
  const cap = Math.floor(((options.durationMs + (options.maxExtraMs ?? 300_000)) / 1000) * options.ratePerSecond);
  let n = 0;
  for (; n < planned || (n < cap && options.extendWhile?.() === true); n++) {
    const wait = start + (n * 1000) / options.ratePerSecond - Date.now();
    if (wait > 0) await pause(wait);
    if (running.size >= maxInFlight) {
      skipped++;
      continue;
    }
    const kind = pick(WEIGHTS, options.random);
    const journey: Journey = {
      n,
      kind,
      merchant: Math.floor(options.random() * options.merchants.length),
      mode: kind === 'live-processor' || kind === 'refund-live' ? 'live' : 'test',
      externalId: `soak-${options.runId}-${n}`,
      ...(kind !== 'order' && kind !== 'refund-cancelled' && { receiver: pick(RECEIVER_WEIGHTS, options.random) }),
      paymentIntents: 0,
      processorPaymentIds: [],
      refunds: [],
      steps: [],
    };
    journeys.push(journey);
    const task = runJourney(journey, options, options.random()).catch((err: unknown) => {
      crashed.push(`journey ${n} (${kind}): ${err instanceof Error ? err.message : String(err)}`);
    });
    running.add(task);
    void task.finally(() => running.delete(task));
  }
  windDownAt = Date.now() + WIND_DOWN_MS;
  options.log(
    `load: ${n - skipped} journeys started in ${((Date.now() - start) / 1000).toFixed(0)} s; waiting for ${running.size} still running`,
  );
  await Promise.all(running);
  return { journeys, skipped, crashed };
}

interface SessionReply {
  session: CheckoutSession;
}

const sessionOf = (reply: Reply): CheckoutSession | undefined => (reply.body as SessionReply | undefined)?.session;
const codeOf = (reply: Reply): string | undefined => (reply.body as { code?: string } | undefined)?.code;

/** When retries stop: unset while journeys still start, then WIND_DOWN_MS after the last one started. */
let windDownAt = Number.POSITIVE_INFINITY;
const stepDeadline = () => Math.max(0, Math.min(STEP_DEADLINE_MS, windDownAt - Date.now()));

async function runJourney(journey: Journey, options: LoadOptions, roll: number): Promise<void> {
  const merchant = options.merchants[journey.merchant] as Merchant;
  const key = journey.mode === 'test' ? merchant.testKey : merchant.liveKey;
  const { client } = options;
  const call = (method: 'GET' | 'POST' | 'PATCH', path: string, route: string, body?: unknown) =>
    client.send(method, path, route, { key, ...(body !== undefined && { body }) });
  const step = (name: string, reply: Reply) => {
    journey.steps.push(`${name} ${reply.outcome}${codeOf(reply) ? ` ${codeOf(reply)}` : ''}`);
    return reply;
  };
  const items = [
    { name: `Soak item ${journey.n}`, quantity: 1 + (journey.n % 3), unitPrice: 150 + Math.floor(roll * 4_850) },
  ];
  /**
   * D48: a refund with its own Idempotency-Key (or, to duplicate one, the key of an earlier intent), retried while
   * its outcome is unknown: the same key is the same refund, applied at most once.
   */
  const refund = async (orderId: string, amount: number | undefined, again?: RefundIntent): Promise<RefundIntent> => {
    const intent: RefundIntent = again ?? {
      key: `soak-refund-${randomBytes(9).toString('hex')}`,
      ...(amount !== undefined && { amount }),
      answers: [],
      unknownFirst: false,
      refundIds: [],
    };
    if (!again) journey.refunds.push(intent);
    const reply = await sendWithRetries(
      async () => {
        const r = await client.send('POST', `/v0/orders/${orderId}/refunds`, 'POST /v0/orders/:id/refunds', {
          key,
          body: amount === undefined ? {} : { amount },
          headers: { 'idempotency-key': intent.key },
        });
        if (isRetryable(r.outcome)) intent.unknownFirst = true;
        return r;
      },
      { deadlineMs: stepDeadline() },
    );
    step(again ? 'refund-again' : 'refund', reply);
    intent.answers.push(`${reply.outcome}${codeOf(reply) ? ` ${codeOf(reply)}` : ''}`);
    const id = (reply.body as { refund?: { id?: string } } | undefined)?.refund?.id;
    if (reply.outcome === 201 && id) intent.refundIds.push(id);
    return intent;
  };

  if (journey.kind === 'refund-cancelled') {
    // An order that never received money has nothing refundable: 400 REFUND_FAILED (D48).
    const created = await createWithExternalId(journey, () =>
      call('POST', '/v0/orders', 'POST /v0/orders', { items, externalId: journey.externalId }),
    );
    step('create-order', created);
    const order = (created.body as { order?: { id: string } } | undefined)?.order;
    if (!order) return;
    journey.orderId = order.id;
    step(
      'cancel-order',
      await sendWithRetries(() => call('POST', `/v0/orders/${order.id}/cancel`, 'POST /v0/orders/:id/cancel'), {
        deadlineMs: stepDeadline(),
      }),
    );
    await refund(order.id, 100);
    return;
  }

  if (journey.kind === 'order') {
    const created = await createWithExternalId(journey, () =>
      call('POST', '/v0/orders', 'POST /v0/orders', { items, externalId: journey.externalId }),
    );
    step('create-order', created);
    const order = (created.body as { order?: { id: string } } | undefined)?.order;
    if (!order) return;
    journey.orderId = order.id;
    step(
      'patch-order',
      await sendWithRetries(
        () =>
          call('PATCH', `/v0/orders/${order.id}`, 'PATCH /v0/orders/:id', {
            metadata: { soak: 'yes', n: String(journey.n) },
            items: [...items, { name: 'Extra', quantity: 1, unitPrice: 99 }],
          }),
        { deadlineMs: stepDeadline() },
      ),
    );
    if (roll < 0.5)
      step(
        'cancel-order',
        await sendWithRetries(() => call('POST', `/v0/orders/${order.id}/cancel`, 'POST /v0/orders/:id/cancel'), {
          deadlineMs: stepDeadline(),
        }),
      );
    step(
      'get-order',
      await sendWithRetries(() => call('GET', `/v0/orders/${order.id}`, 'GET /v0/orders/:id'), {
        deadlineMs: stepDeadline(),
      }),
    );
    return;
  }

  // A session create spans two services; its Idempotency-Key lets a retry after an unknown outcome finish what
  // the first try began (D42), where the externalId alone would answer 409 for the first try's order.
  const createHeaders = { 'idempotency-key': `soak-create-${journey.externalId}` };
  const created = await createWithExternalId(journey, () =>
    client.send('POST', '/v0/checkout/sessions', 'POST /v0/checkout/sessions', {
      key,
      headers: createHeaders,
      body: {
        items,
        externalId: journey.externalId,
        callbackUrl: `${options.callbackUrl(journey.receiver ?? 'healthy')}?session={SESSION_ID}`,
        metadata: { journey: journey.kind },
      },
    }),
  );
  step('create-session', created);
  const session = sessionOf(created);
  if (!session) return;
  journey.sessionId = session.id;
  journey.orderId = session.order.id;
  const sessionPath = `/v0/checkout/sessions/${session.id}`;
  const getSession = () =>
    sendWithRetries(() => call('GET', sessionPath, 'GET /v0/checkout/sessions/:id'), { deadlineMs: stepDeadline() });

  /** A test-helper payment, retried with its Idempotency-Key until it gets a definite answer. */
  const pay = async (body: { method: 'card' | 'stablecoin'; amount?: number; outcome?: 'declined' }) => {
    const succeeded = body.outcome !== 'declined';
    if (succeeded) journey.paymentIntents++;
    const headers = { 'idempotency-key': `soak-pay-${randomBytes(9).toString('hex')}` };
    // The first unknown outcome, if any: a later definite answer then speaks for a retry, not for the first try.
    let unknown: Reply['outcome'] | undefined;
    const reply = await sendWithRetries(
      async () => {
        const r = await client.send(
          'POST',
          `/v0/test_helpers/checkout/sessions/${session.id}/pay`,
          'POST /v0/test_helpers/checkout/sessions/:id/pay',
          { key, body, headers },
        );
        if (unknown === undefined && isRetryable(r.outcome)) unknown = r.outcome;
        return r;
      },
      { deadlineMs: stepDeadline() },
    );
    step(succeeded ? 'pay' : 'pay-declined', reply);
    if (unknown !== undefined && reply.outcome !== unknown)
      journey.steps[journey.steps.length - 1] += ` after ${unknown}`;
    return reply;
  };
  const notify = async (paymentId: string, amount: number) => {
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
      return `t=${t},v1=${createHmac('sha256', options.processorSecret).update(`${t}.${body}`).digest('hex')}`;
    };
    return step(
      'processor-notification',
      await sendWithRetries(
        () =>
          client.send('POST', '/v0/processor/notifications', 'POST /v0/processor/notifications', {
            rawBody,
            headers: { 'content-type': 'application/json', 'x-processor-signature': signature(rawBody) },
          }),
        {
          deadlineMs: stepDeadline(),
        },
      ),
    );
  };
  /** D48, live mode: the processor settles a refund, through the gateway as processors do. */
  const notifyRefund = async (refundId: string, outcome: 'succeeded' | 'failed') => {
    const rawBody = JSON.stringify({ refundId, outcome, settledAt: new Date().toISOString() });
    return step(
      'refund-notification',
      await sendWithRetries(
        () =>
          client.send('POST', '/v0/processor/refund_notifications', 'POST /v0/processor/refund_notifications', {
            rawBody,
            headers: {
              'content-type': 'application/json',
              [PROCESSOR_SIGNATURE_HEADER]: signProcessorPayload(
                [options.processorRefundSecret, options.processorSecret],
                rawBody,
                Math.floor(Date.now() / 1000),
              ),
            },
          }),
        { deadlineMs: stepDeadline() },
      ),
    );
  };
  const total = session.order.amounts.total;

  switch (journey.kind) {
    case 'pay-full':
      await pay({ method: 'card' });
      break;
    case 'pay-partial': {
      const first = Math.max(1, Math.floor(total / 3));
      await pay({ method: 'stablecoin', amount: first });
      step(
        'patch-session',
        await sendWithRetries(
          () =>
            call('PATCH', sessionPath, 'PATCH /v0/checkout/sessions/:id', { sessionData: { step: 'partially-paid' } }),
          { deadlineMs: stepDeadline() },
        ),
      );
      await pay({ method: 'stablecoin', amount: total - first });
      break;
    }
    case 'decline-then-pay':
      await pay({ method: 'card', outcome: 'declined' });
      await pay({ method: 'card' });
      break;
    case 'expire':
      step(
        'patch-session',
        await sendWithRetries(
          () =>
            call('PATCH', sessionPath, 'PATCH /v0/checkout/sessions/:id', {
              extendExpiry: 5,
              sessionData: { note: 'extended' },
            }),
          { deadlineMs: stepDeadline() },
        ),
      );
      step(
        'expire',
        await sendWithRetries(
          () =>
            call(
              'POST',
              `/v0/test_helpers/checkout/sessions/${session.id}/expire`,
              'POST /v0/test_helpers/checkout/sessions/:id/expire',
            ),
          { deadlineMs: stepDeadline() },
        ),
      );
      break;
    case 'cancel':
      step(
        'patch-order',
        await sendWithRetries(
          () =>
            call('PATCH', `/v0/orders/${session.order.id}`, 'PATCH /v0/orders/:id', {
              metadata: { cancelling: 'yes' },
            }),
          { deadlineMs: stepDeadline() },
        ),
      );
      step(
        'cancel-order',
        await sendWithRetries(
          () => call('POST', `/v0/orders/${session.order.id}/cancel`, 'POST /v0/orders/:id/cancel'),
          { deadlineMs: stepDeadline() },
        ),
      );
      break;
    case 'live-processor': {
      // A processor that captures in two parts and, as processors do, sends one notification twice.
      const first = Math.max(1, Math.floor(total / 2));
      const [a, b] = [`pay_soak_${randomBytes(8).toString('hex')}`, `pay_soak_${randomBytes(8).toString('hex')}`];
      await notify(a, first);
      await notify(a, first);
      if (total - first > 0) await notify(b, total - first);
      break;
    }
    case 'refund': {
      // Paid in full, then: a partial refund sent twice at once with one Idempotency-Key (one refund), three
      // refunds at once that together ask for more than is left (some refused), and the rest, if any.
      await pay({ method: 'card' });
      const orderId = session.order.id;
      const first = Math.max(1, Math.floor(total / 4));
      const intent = await refund(orderId, first);
      await refund(orderId, first, intent);
      const third = Math.max(1, Math.floor(total / 3));
      await Promise.all([refund(orderId, third), refund(orderId, third), refund(orderId, third)]);
      await refund(orderId, undefined);
      break;
    }
    case 'refund-overpaid': {
      // An overpayment (the stablecoin simulator pays what it is told) and its excess refunded.
      const extra = 1 + Math.floor(roll * 500);
      await pay({ method: 'stablecoin', amount: total + extra });
      await refund(session.order.id, extra);
      break;
    }
    case 'refund-live': {
      // Paid by the live processor, refunded (pending), then settled by the processor's notification, sent twice.
      await notify(`pay_soak_${randomBytes(8).toString('hex')}`, total);
      const intent = await refund(session.order.id, roll < 0.5 ? Math.max(1, Math.floor(total / 2)) : undefined);
      const refundId = intent.refundIds[0];
      if (refundId) {
        const outcome = roll < 0.8 ? 'succeeded' : 'failed';
        await notifyRefund(refundId, outcome);
        await notifyRefund(refundId, outcome);
      }
      break;
    }
  }
  step('get-session', await getSession());
}

/**
 * A create with an externalId, retried while the answer is unknown. A 409 DUPLICATE_EXTERNAL_ID after an
 * unknown first attempt means that attempt did create it (D37), which is what retrying safely means.
 */
async function createWithExternalId(journey: Journey, send: () => Promise<Reply>): Promise<Reply> {
  let unknownBefore = false;
  const reply = await sendWithRetries(
    async () => {
      const r = await send();
      if (typeof r.outcome !== 'number' || r.outcome >= 500 || r.outcome === 429) unknownBefore = true;
      return r;
    },
    { deadlineMs: stepDeadline() },
  );
  if (reply.outcome === 201) journey.created = 'created';
  else if (reply.outcome === 409 && unknownBefore && codeOf(reply) === 'DUPLICATE_EXTERNAL_ID')
    journey.created = 'duplicate-on-retry';
  else if (typeof reply.outcome !== 'number' || reply.outcome >= 500) journey.created = 'no-answer';
  else journey.created = 'refused';
  return reply;
}
