// kafkajs 2.2.4 keeps a 1 ms timer loop running on every broker connection for as long as it is open
// (tulios/kafkajs#1556, #1704; fixes proposed in #1667 and #1768, none released). RequestQueue's
// scheduleCheckPendingRequests computes `throttledUntil - Date.now()`, which is negative when nothing is throttled,
// and schedules a check that far ahead (1 ms) even with nothing pending; the check schedules the next one. Every
// connection (each consumer, producer and admin has its own, one per broker) so fires about a thousand timers a
// second: measured here, an idle replica of each service spent 4-6 % of a core on it, and every timer created
// under a traced operation also pays for its async context. A pending request is sent when a request in flight
// completes or times out (both call checkPendingRequests), so a timer is needed only while a request waits:
// behind a client-side throttle (until it ends) or behind the in-flight limit (the original 10 ms recheck).
import RequestQueue from 'kafkajs/src/network/requestQueue/index.js';

/** kafkajs' own recheck interval for a request that waits with no throttle in effect. */
const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10;

interface RequestQueueState {
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  pending: unknown[];
  checkPendingRequests(): void;
}

let mended = false;

/** Replaces RequestQueue's scheduling with one that sets a timer only while a request waits. Idempotent. */
export function mendRequestQueueTimers(): void {
  if (mended) return;
  mended = true;
  RequestQueue.prototype.scheduleCheckPendingRequests = function scheduleCheckPendingRequests(this: RequestQueueState) {
    if (this.throttleCheckTimeoutId) return;
    const throttledForMs = this.throttledUntil - Date.now();
    if (this.pending.length === 0 && throttledForMs <= 0) return;
    const delayMs = throttledForMs > 0 ? throttledForMs : CHECK_PENDING_REQUESTS_INTERVAL_MS;
    this.throttleCheckTimeoutId = setTimeout(() => {
      this.throttleCheckTimeoutId = null;
      this.checkPendingRequests();
    }, delayMs);
  };
}
