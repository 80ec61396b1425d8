import type { WebhookEndpointDocument } from '../../store/webhook-endpoint.document';

// D50: when an endpoint that keeps failing is disabled, as pure functions. Successes write nothing (that would be one
// more write per delivery): the endpoint keeps when its run of failures began (`failingSince`, set by the first
// failure while it is null), and the failure that finds that run long enough asks the deliveries for a success
// since then. The engine (engine/endpoint-failures.ts) reads and writes what these decide.

const DAY_MS = 24 * 3_600_000;

/** What a failed attempt to an endpoint calls for. */
export type FailureVerdict =
  /** Disabled or deleted meanwhile: nothing to judge. */
  | { kind: 'ignore' }
  /** The first failure of a run: the run starts now. */
  | { kind: 'start-run' }
  /** The run is not long enough yet. */
  | { kind: 'wait' }
  /**
   * Every attempt may have failed since `since`: a success since then restarts the run, none disables it, for the
   * reason `disabled` says (the merchant reads it: since when, for how many days).
   */
  | { kind: 'check-success'; since: Date; disabled: NonNullable<WebhookEndpointDocument['disabled']> };

export function failureVerdict(
  endpoint: Pick<WebhookEndpointDocument, 'disabled' | 'failingSince'> | null,
  at: Date,
  disableAfterMs: number,
): FailureVerdict {
  if (!endpoint || endpoint.disabled !== null) return { kind: 'ignore' };
  const since = endpoint.failingSince;
  if (since === null) return { kind: 'start-run' };
  const failingMs = at.getTime() - since.getTime();
  if (failingMs < disableAfterMs) return { kind: 'wait' };
  const message =
    `Every attempt since ${since.toISOString()} failed (${(failingMs / DAY_MS).toFixed(1)} days); ` +
    'enable it again once it answers 2xx, then recover what it missed.';
  return { kind: 'check-success', since, disabled: { reason: 'failing', message, at } };
}
