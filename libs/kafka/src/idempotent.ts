import { isDuplicateKeyError, retryTransientWriteConflicts, type Collection, type Db } from '@checkout/mongo';

interface ProcessedEvent {
  _id: string;
  processedAt: Date;
}

/** Where a consumer records the event ids it processed; give it a retention (libs/mongo retentionSweep). */
export function processedEventsCollection(consumerName: string): string {
  return `processed_events_${consumerName}`;
}

/**
 * Makes a handler idempotent on the event id: an event whose id was already processed by this consumer is
 * acknowledged and ignored. The marker is written after the handler succeeds, so a crash in between means
 * the event is handled again (at least once), never lost.
 */
export function idempotentOnEventId<T>(
  db: Db,
  consumerName: string,
  eventIdOf: (message: T) => string,
  handler: (message: T) => Promise<void>,
): (message: T) => Promise<'processed' | 'duplicate'> {
  const processed: Collection<ProcessedEvent> = db.collection<ProcessedEvent>(processedEventsCollection(consumerName));
  return async (message) => {
    const eventId = eventIdOf(message);
    if (await processed.findOne({ _id: eventId }, { projection: { _id: 1 } })) return 'duplicate';
    await handler(message);
    try {
      const marker = { _id: eventId, processedAt: new Date() };
      await retryTransientWriteConflicts(() => processed.insertOne(marker));
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      return 'duplicate';
    }
    return 'processed';
  };
}
