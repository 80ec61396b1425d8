// Errors that mean "the database or broker is not reachable right now" rather than "the request is wrong".
// Matched by name so that this package needs neither driver as a dependency.
const UNAVAILABLE_NAMES = new Set([
  'MongoServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
  // A checkout waiting on a pool the client closes: @checkout/mongo's monitor watchdog closes and reconnects it.
  'MongoPoolClosedError',
  'MongoWaitQueueTimeoutError',
  'KafkaJSConnectionError',
  'KafkaJSNumberOfRetriesExceeded',
  'KafkaJSRequestTimeoutError',
  'KafkaJSBrokerNotFound',
  'KafkaJSNonRetriableError',
  'KafkaJSLockTimeout',
]);

/**
 * Socket errors that mean the peer went away. The MongoDB driver lets some through unwrapped: a command written
 * on a pooled connection the restarted server has already closed fails with a plain Error, code EPIPE ("This
 * socket has been ended by the other party"), not a MongoNetworkError (seen in the soak).
 */
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET']);

/**
 * Server errors that mean "the database did not answer in time", not "the request is wrong": a query stopped by
 * its maxTimeMS (a bounded search, D51) is the database being too busy or the data too large right now, answered
 * 503 like any outage rather than 500. By the server's code name (MaxTimeMSExpired is code 50).
 */
const UNAVAILABLE_SERVER_CODE_NAMES = new Set(['MaxTimeMSExpired']);

/** `err` and its causes, five deep. */
function* causes(err: unknown): Generator<Error> {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) yield e;
}

function stoppedAtDeadline(e: Error): boolean {
  return 'codeName' in e && typeof e.codeName === 'string' && UNAVAILABLE_SERVER_CODE_NAMES.has(e.codeName);
}

/** A query the database stopped at its deadline (maxTimeMS): unavailable now, and not worth asking again at once. */
export function isDeadlineExceeded(err: unknown): boolean {
  for (const e of causes(err)) if (stoppedAtDeadline(e)) return true;
  return false;
}

export function isInfrastructureUnavailable(err: unknown): boolean {
  for (const e of causes(err)) {
    if (UNAVAILABLE_NAMES.has(e.name) || UNAVAILABLE_NAMES.has(e.constructor.name)) return true;
    if (stoppedAtDeadline(e)) return true;
    if ('code' in e && typeof e.code === 'string' && UNAVAILABLE_CODES.has(e.code)) return true;
  }
  return false;
}
