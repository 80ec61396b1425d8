import { describe, expect, it } from 'vitest';
import { ANSWER, eventually } from '@checkout/testing';
import { buildSessionEvent, firstDelivery, sessionEventsTopic, useDispatcherFixture } from './support';

const TIMEOUT_MS = 300;

const fixture = useDispatcherFixture('timeout', {
  WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
  WEBHOOK_MAX_ATTEMPTS: '2',
  WEBHOOK_RESPONSE_SNIPPET_BYTES: '16',
});

describe('Attempt limits (D31)', () => {
  it('When the endpoint never answers, then the attempt fails at WEBHOOK_TIMEOUT_MS and is retried', async () => {
    fixture.receiver.answer('/hang', ANSWER.hang);
    const event = buildSessionEvent({ callbackUrl: fixture.receiver.url('/hang') });
    await fixture.producer.sendEvents(sessionEventsTopic(fixture.dispatcher.config), [event]);
    const delivery = await eventually(
      async () => {
        const d = await firstDelivery(fixture.dispatcher, event.eventId);
        return d?.status === 'failed' ? d : undefined;
      },
      { deadlineMs: 20_000 },
    );
    expect(delivery.attempts).toHaveLength(2);
    for (const attempt of delivery.attempts) {
      expect(attempt.statusCode).toBeNull();
      expect(attempt.error).toBe(`timed out after ${TIMEOUT_MS} ms`);
      expect(attempt.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
      expect(attempt.durationMs).toBeLessThan(TIMEOUT_MS + 1_000);
    }
    expect(fixture.receiver.deliveries('/hang')).toHaveLength(2);
  });

  it('When the endpoint is slower than the timeout, then the attempt fails even though it would have answered 200', async () => {
    fixture.receiver.answer('/slow', ANSWER.slow(TIMEOUT_MS * 4));
    const event = buildSessionEvent({ callbackUrl: fixture.receiver.url('/slow') });
    await fixture.producer.sendEvents(sessionEventsTopic(fixture.dispatcher.config), [event]);
    const attempt = await eventually(
      async () => (await firstDelivery(fixture.dispatcher, event.eventId))?.attempts[0],
      {
        deadlineMs: 15_000,
      },
    );
    expect(attempt.error).toBe(`timed out after ${TIMEOUT_MS} ms`);
  });
});
