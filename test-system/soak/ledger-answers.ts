import type { CheckoutSession } from '@checkout/contracts';
import type { Journey } from './journey-types';
import type { LedgerContext } from './ledger-types';

/**
 * A session create that failed after orders created its order (sessions killed, or the database gone, between
 * the two writes) whose retry answered 409 DUPLICATE_EXTERNAL_ID with no session behind it. A keyed create
 * derives the session id from its Idempotency-Key, so the retry finishes the first try's session (D42).
 */
export const ORPHANED_CREATES = 'retried creates answered 409 with no session behind them';

/** Journeys that make an order without a session. */
const ORDER_ONLY_KINDS = new Set<Journey['kind']>(['order', 'refund-cancelled']);

/**
 * What the merchant was told, against what is there. A definite answer (2xx) to a step must be what the session
 * shows in the end, and a 409 DUPLICATE_EXTERNAL_ID to a retried create (the first attempt's answer was lost, D37)
 * must mean a session exists for that externalId. Counts the sessions' contradicted answers and orphaned creates.
 */
export function sessionAnswers({ input, example }: LedgerContext): { contradicted: number; orphaned: number } {
  let contradicted = 0;
  let orphaned = 0;
  const sessionsByExternalId = new Map(
    input.orders.filter((o) => o.externalId !== undefined).map((o) => [o.externalId as string, o.id]),
  );
  for (const journey of input.journeys) {
    if (ORDER_ONLY_KINDS.has(journey.kind)) continue;
    if (journey.created === 'duplicate-on-retry') {
      const orderId = sessionsByExternalId.get(journey.externalId);
      if (orderId === undefined || !input.sessionOrderIds.has(orderId)) {
        orphaned++;
        example(
          ORPHANED_CREATES,
          `journey ${journey.n}: create answered 409 DUPLICATE_EXTERNAL_ID after a 5xx, but no session exists for ${journey.externalId} (order ${orderId ?? 'none'})`,
        );
      }
      continue;
    }
    const session = journey.sessionId === undefined ? undefined : input.sessions.get(journey.sessionId);
    const expected = promisedStatus(journey);
    if (session && expected && session.status !== expected) {
      contradicted++;
      const stored = input.storedStateOf?.(session.id);
      example(
        'answers contradicted',
        `journey ${journey.n} (${journey.kind}) ${session.id}: told [${journey.steps.join(', ')}], session is ${session.status}${stored ? ` (${stored})` : ''}`,
      );
    }
  }
  return { contradicted, orphaned };
}

/** The status a session journey's definite answers promise, or undefined when they promise none. */
function promisedStatus(journey: Journey): CheckoutSession['status'] | undefined {
  const answered = (step: string) => journey.steps.filter((s) => s.startsWith(`${step} `)).map((s) => s.split(' ')[1]);
  const allOk = (step: string) => answered(step).length > 0 && answered(step).every((o) => o === '200');
  switch (journey.kind) {
    case 'pay-full':
    case 'pay-partial':
    case 'decline-then-pay':
    case 'refund':
    case 'refund-overpaid':
      // Every payment the merchant made got a 200 (a declined one says nothing about the session's end).
      return allOk('pay') && answered('pay').length === journey.paymentIntents ? 'completed' : undefined;
    case 'live-processor':
    case 'refund-live':
      // A refund never changes the order's status (D48): the session stays completed.
      return allOk('processor-notification') ? 'completed' : undefined;
    case 'expire':
      return allOk('expire') ? 'expired' : undefined;
    case 'cancel':
      return allOk('cancel-order') ? 'cancelled' : undefined;
    default:
      return undefined;
  }
}
