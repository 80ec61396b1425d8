import { describe, expect, it } from 'vitest';
import { eventually, kafkaControl } from '@checkout/testing';
import type { SessionEventV1 } from '@checkout/contracts';
import { buildSessionEvent, sessionEventsTopic, useDispatcherFixture } from './support';

// At least once across a broker restart: the fixture.dispatcher keeps consuming once the broker is back, and nothing
// produced before, during or after the restart is lost. The broker is restarted through the engines' control
// endpoint (ENGINES_CONTROL_URL, provided by the globalSetup and scripts/test.ts).

const EVENTS = 1_000;

const fixture = useDispatcherFixture('broker_restart', {
  WEBHOOK_CLAIM_TTL_MS: '4000',
  WEBHOOK_RECOVERY_INTERVAL_MS: '1000',
});

describe('Broker restart (at least once, none lost)', () => {
  it(`When the broker restarts in the middle of ${EVENTS} events, then every event reaches the receiver`, async () => {
    const topic = sessionEventsTopic(fixture.dispatcher.config);
    const events: SessionEventV1[] = Array.from({ length: EVENTS }, () =>
      buildSessionEvent({ callbackUrl: fixture.receiver.url('/restart') }),
    );
    const received = () =>
      new Set(fixture.receiver.deliveries('/restart').map((r) => String(r.headers['x-service-event-id'])));
    let restarted: Promise<void> | undefined;
    for (let i = 0; i < events.length; i += 50) {
      const batch = events.slice(i, i + 50);
      // The test's own fixture.producer simply tries again until the broker is back.
      await eventually(
        async () => {
          await fixture.producer.sendEvents(topic, batch);
          return true;
        },
        { deadlineMs: 120_000, intervalMs: 500, description: 'the batch to be produced' },
      );
      if (i === 250) {
        await eventually(() => received().size > 0, { deadlineMs: 30_000, description: 'deliveries to be flowing' });
        restarted = kafkaControl().restartKafka();
      }
    }
    await restarted;
    await eventually(() => received().size === EVENTS, {
      deadlineMs: 120_000,
      intervalMs: 250,
      description: `all ${EVENTS} events (have ${received().size})`,
    });
    for (const event of events) expect(received().has(event.eventId)).toBe(true);
  }, 240_000);
});
