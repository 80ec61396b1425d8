import { Attempts } from './attempts';
import { EndpointFailures } from './endpoint-failures';
import type { DispatcherDeps } from './ports';
import { Recorder } from './record';
import { Recovery } from './recovery';

// The delivery engine, in three parts that share the ports of ports.ts: record.ts stores what is to be delivered
// (an event with its first delivery, a redelivery), attempts.ts makes attempts and records their outcomes (the one
// attempt path), recovery.ts brings back what nobody is attempting (D44's recover, the sweep, lane refills). Kafka,
// HTTP and the stores are behind ports; what to decide is in ../rules/.

export interface Dispatcher {
  record: Recorder;
  attempts: Attempts;
  recovery: Recovery;
  /**
   * Stops making attempts: what is queued stays pending in the database, its holds given back for the other
   * replicas' recovery sweep; the attempts in flight are waited for, at most `graceMs`.
   */
  stop(graceMs: number): Promise<void>;
}

export function createDispatcher(deps: DispatcherDeps): Dispatcher {
  const attempts = new Attempts(deps, new EndpointFailures(deps));
  const record = new Recorder(deps, attempts);
  const recovery = new Recovery(deps, record, attempts);
  return { record, attempts, recovery, stop: (graceMs) => attempts.stop(graceMs) };
}
