import type { Scope } from '@checkout/contracts';
import { failureVerdict } from '../rules/endpoint-health';
import type { DispatcherDeps } from './ports';

/**
 * D50: applies the rule of rules/endpoint-health.ts after each failed attempt to an endpoint. The failure that finds
 * the run long enough asks the deliveries for a success since then (one indexed read, at most once per failure past
 * the mark): a success found starts the run again at that failure; none, and the endpoint is disabled by one
 * conditional update naming the run it judged, so a PATCH or another replica's decision in between is never
 * overwritten.
 */
export class EndpointFailures {
  constructor(private readonly deps: Pick<DispatcherDeps, 'stores' | 'directory' | 'policy' | 'local'>) {}

  /** After a failed attempt to endpoint `id` (a send that failed, not one left unsent). Never throws. */
  async failed(scope: Scope, id: string, at: Date): Promise<void> {
    const { stores, directory, local } = this.deps;
    try {
      const endpoint = await directory.forAttempt(scope, id);
      const verdict = failureVerdict(endpoint, at, this.deps.policy.endpointDisableAfterMs);
      if (!endpoint || verdict.kind === 'ignore' || verdict.kind === 'wait') return;
      // The first failure starts the run; a success found since the run began starts it again at this failure.
      const since = verdict.kind === 'start-run' ? null : verdict.since;
      if (
        verdict.kind === 'start-run' ||
        (await stores.deliveries.succeededToEndpointSince(scope, id, verdict.since))
      ) {
        await stores.endpoints.moveFailingRun(scope, id, since, at);
        directory.remember(id, { ...endpoint, failingSince: at });
        return;
      }
      const disabled = await stores.endpoints.disableFailing(scope, id, verdict.since, verdict.disabled);
      if (!disabled) return;
      directory.remember(id, disabled);
      local.metrics.endpointsDisabled.inc({ reason: 'failing' });
      local.logger.warn(
        { endpointId: id, organizationId: scope.organizationId, mode: scope.mode, failingSince: verdict.since },
        'webhook endpoint disabled: every attempt failed',
      );
    } catch (err) {
      local.logger.warn({ err, endpointId: id }, 'could not update the run of failures of a webhook endpoint');
    }
  }
}
