import { createHash } from 'node:crypto';

/**
 * The services and jobs that call internal APIs, each with a credential of its own (one shared token
 * let a compromised pod act as any service). Each internal route says which of them may call it.
 */
export const INTERNAL_CALLERS = ['gateway', 'orders', 'sessions', 'webhook-dispatcher', 'dead-letter-replay'] as const;
export type InternalCaller = (typeof INTERNAL_CALLERS)[number];

export interface AcceptedCaller {
  caller: InternalCaller;
  /** SHA-256 of the caller's INTERNAL_TOKEN, hex: a callee never holds another service's secret. */
  tokenSha256: string;
}

/** An INTERNAL_CALLERS value: each caller by the SHA-256 of its token(s); several tokens while one rotates. */
export function internalCallersValue(entries: Partial<Record<InternalCaller, string | readonly string[]>>): string {
  return Object.entries(entries)
    .flatMap(([caller, tokens]) =>
      (typeof tokens === 'string' ? [tokens] : (tokens ?? [])).map(
        (token) => `${caller}:${createHash('sha256').update(token).digest('hex')}`,
      ),
    )
    .join(',');
}
