import { channel } from 'node:diagnostics_channel';

// What this lib announces to whoever observes the process's producers: the send counters of its testing entry
// point (testing.ts), in tests and benches. Nothing subscribes in production, and a channel without subscribers
// costs nothing. Not exported from the index.

/** Each EventProducer createEventProducer makes (the object itself). */
export const createdProducers = channel('checkout.kafka.producer-created');
/** Each batch a producer sent and the broker acknowledged: `{producer, messages}`. */
export const sentBatches = channel('checkout.kafka.batch-sent');
