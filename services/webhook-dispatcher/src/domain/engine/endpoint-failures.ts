import type { Scope } from '@checkout/mongo';
import type { DispatcherDeps } from './ports';

const DAY_MS = 24 * 3_600_000;

/**
 * D50: an endpoint whose every attempt has failed for `endpointDisableAfterMs` (3 days) is disabled, with its reason.
 * Successes write nothing (that would be one more write per delivery): the endpoint keeps when its run of failures
 * began (`failingSince`, set by the first failure while it is null), and the failure that finds that run long
 * enough asks the deliveries for a success since then (one indexed read, at most once per failure past the mark).
 * A success found starts the run again at that failure; none, and the endpoint is disabled by one conditional update
 * naming the run it judged, so a PATCH or another replica's decision in between is never overwritten.
 */
export class EndpointHealth {
  constructor(
    private readonly deps: Pick<
      DispatcherDeps,
      'webhookEndpoints' | 'deliveries' | 'endpoints' | 'policy' | 'logger' | 'metrics'
    >,
  ) {}

  /** After a failed attempt to endpoint `id` (a send that failed, not one left unsent). Never throws. */
  async failed(scope: Scope, id: string, at: Date): Promise<void> {
    try {
      await this.judge(scope, id, at);
    } catch (err) {
      this.deps.logger.warn({ err, endpointId: id }, 'could not update the run of failures of a webhook endpoint');
    }
  }

  private async judge(scope: Scope, id: string, at: Date): Promise<void> {
    const { webhookEndpoints, endpoints, deliveries, policy } = this.deps;
    const endpoint = await endpoints.forAttempt(scope, id);
    if (!endpoint || endpoint.disabled !== null) return;
    const since = endpoint.failingSince;
    if (since === null) {
      await webhookEndpoints.markFailingSince(scope, id, at);
      endpoints.changed({ ...endpoint, failingSince: at });
      return;
    }
    if (at.getTime() - since.getTime() < policy.endpointDisableAfterMs) return;
    if (await deliveries.succeededToEndpointSince(scope, id, since)) {
      await webhookEndpoints.restartFailingRun(scope, id, since, at);
      endpoints.changed({ ...endpoint, failingSince: at });
      return;
    }
    const days = (at.getTime() - since.getTime()) / DAY_MS;
    const disabled = await webhookEndpoints.disableFailing(scope, id, since, {
      reason: 'failing',
      message: `Every attempt since ${since.toISOString()} failed (${days.toFixed(1)} days); enable it again once it answers 2xx, then recover what it missed.`,
      at,
    });
    if (!disabled) return;
    endpoints.changed(disabled);
    this.deps.metrics.endpointsDisabled.inc({ reason: 'failing' });
    this.deps.logger.warn(
      { endpointId: id, organizationId: scope.organizationId, mode: scope.mode, failingSince: since },
      'webhook endpoint disabled: every attempt failed',
    );
  }
}
