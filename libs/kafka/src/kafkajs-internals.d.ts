// The kafkajs internals this lib touches (request-queue.ts, coordinator-moves.ts); kafkajs ships no types for its
// sources.
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
