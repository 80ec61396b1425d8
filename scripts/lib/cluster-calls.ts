import type { ServiceName } from './process-stack';

// The local cluster's load balancer topology: which frontends and backends each service's replicas sit behind.

/**
 * Every internal call between services, each through a frontend of its own (`<listener>.from.<caller>`, the same
 * servers behind it), so that the load balancer's log tells which caller called which replica: the mixed-version
 * rollout soak counts, per contract, the requests an old caller sent a new callee and the other way round.
 */
export const INTERNAL_CALLS = [
  { caller: 'gateway', callee: 'orders', listener: 'orders', env: 'ORDERS_URL' },
  { caller: 'gateway', callee: 'sessions', listener: 'sessions', env: 'SESSIONS_URL' },
  { caller: 'gateway', callee: 'webhook-dispatcher', listener: 'webhook-dispatcher', env: 'DISPATCHER_URL' },
  { caller: 'sessions', callee: 'orders', listener: 'orders', env: 'ORDERS_URL' },
  { caller: 'webhook-dispatcher', callee: 'gateway', listener: 'gateway-admin', env: 'GATEWAY_URL' },
] as const satisfies readonly { caller: ServiceName; callee: ServiceName; listener: string; env: string }[];
export type InternalCall = (typeof INTERNAL_CALLS)[number];
export const frontendOf = (call: InternalCall): string => `${call.listener}.from.${call.caller}`;

/** A service's listeners: the gateway has two, public and admin. */
const listenersOf = (service: ServiceName): string[] =>
  service === 'gateway' ? ['gateway', 'gateway-admin'] : [service];
/** Backends of a service: one per listener, and one per internal call made to it. */
export const backendsOf = (service: ServiceName): string[] => [
  ...listenersOf(service),
  ...INTERNAL_CALLS.filter((c) => c.callee === service).map(frontendOf),
];
/** The listener a backend's servers point at. */
export const listenerOfBackend = (backend: string): string => backend.split('.from.')[0] as string;
