// The one kafkajs internal this lib touches (request-queue.ts); kafkajs ships no types for its sources.
declare module 'kafkajs/src/network/requestQueue/index.js' {
  const RequestQueue: { prototype: { scheduleCheckPendingRequests(): void } };
  export default RequestQueue;
}
