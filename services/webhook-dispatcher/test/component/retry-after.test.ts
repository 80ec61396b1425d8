import { describe, expect, it } from 'vitest';
import { ANSWER, eventually } from '@checkout/testing';
import { buildSessionEvent, firstDelivery, sessionEventsTopic, useDispatcherFixture } from './support';

// An endpoint that answers 429 or 503 with Retry-After gets at least that long before the next attempt
// (RFC 9110; Stripe and Svix do the same), within D40's rule that successive delays increase. The schedule's
// first delay is short here, so a next attempt sooner than Retry-After would show. Deadlines are long because
// the broker-restart tests may restart the shared broker while this file runs.

const fixture = useDispatcherFixture('retry_after', {
  WEBHOOK_RETRY_DELAYS_MS: '200,5000,6000,7000',
  WEBHOOK_MAX_ATTEMPTS: '3',
});

describe('Retry-After from the merchant (D31, D40)', () => {
  it.each([
    [429 as const, '/throttled'],
    [503 as const, '/unavailable'],
  ])(
    'When the endpoint answers %i with Retry-After: 2, then the next attempt waits at least 2 s instead of the scheduled 200 ms',
    async (status, path) => {
      fixture.receiver.answer(path, ANSWER.throttled('2', status));
      const event = buildSessionEvent({ callbackUrl: fixture.receiver.url(path) });
      await fixture.producer.sendEvents(sessionEventsTopic(fixture.dispatcher.config), [event]);
      await fixture.receiver.nextDelivery({ path, timeoutMs: 60_000 });
      fixture.receiver.answer(path, ANSWER.ok);
      const delivery = await eventually(
        async () => {
          const d = await firstDelivery(fixture.dispatcher, event.eventId);
          return d?.status === 'succeeded' ? d : undefined;
        },
        { deadlineMs: 60_000, description: 'the delivery to succeed on its second attempt' },
      );
      const [first, second] = delivery.attempts;
      expect(delivery.attempts).toHaveLength(2);
      expect(first).toMatchObject({ statusCode: status, error: `HTTP ${status} (Retry-After: 2)` });
      expect(Date.parse(second?.at ?? '') - Date.parse(first?.at ?? '')).toBeGreaterThanOrEqual(2_000);
    },
    150_000,
  );
});
