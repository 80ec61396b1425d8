// Errors that mean "the database or broker is not reachable right now" rather than "the request is wrong".
// Matched by name so that this package needs neither driver as a dependency.
const UNAVAILABLE_NAMES = new Set([
  'MongoServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
  'MongoWaitQueueTimeoutError',
  'KafkaJSConnectionError',
  'KafkaJSNumberOfRetriesExceeded',
  'KafkaJSRequestTimeoutError',
  'KafkaJSBrokerNotFound',
  'KafkaJSNonRetriableError',
  'KafkaJSLockTimeout',
]);

export function isInfrastructureUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (UNAVAILABLE_NAMES.has(e.name) || UNAVAILABLE_NAMES.has(e.constructor.name)) return true;
    if ('code' in e && (e.code === 'ECONNREFUSED' || e.code === 'UND_ERR_CONNECT_TIMEOUT' || e.code === 'UND_ERR_SOCKET')) return true;
  }
  return false;
}
