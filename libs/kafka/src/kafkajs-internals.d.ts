// The kafkajs internals this lib touches (request-queue.ts, coordinator-moves.ts, fetch-retries.ts,
// disconnect-unref.ts); kafkajs ships no types for its sources.
declare module 'kafkajs/src/network/requestQueue/index.js' {
  const RequestQueue: { prototype: { scheduleCheckPendingRequests(): void } };
  export default RequestQueue;
}
declare module 'kafkajs/src/consumer/consumerGroup.js' {
  const ConsumerGroup: { prototype: { heartbeat: (this: object, ...args: unknown[]) => Promise<unknown> } };
  export default ConsumerGroup;
}
declare module 'kafkajs/src/consumer/offsetManager/index.js' {
  const OffsetManager: { prototype: { commitOffsets: (this: object, ...args: unknown[]) => Promise<unknown> } };
  export default OffsetManager;
}
declare module 'kafkajs/src/consumer/runner.js' {
  const Runner: { prototype: { scheduleFetchManager: (this: { fetchManager: { start(): Promise<void> } }) => void } };
  export default Runner;
}
declare module 'kafkajs/src/errors.js' {
  const errors: { isRebalancing(err: unknown): boolean };
  export default errors;
}
declare module 'kafkajs/src/network/connection.js' {
  const Connection: { prototype: { disconnect: (this: object) => Promise<boolean> } };
  export default Connection;
}
