import { z } from 'zod';
import { TtlCache } from '@checkout/coalesce';
import { InternalClient } from '@checkout/http';
import type { Scope } from '@checkout/mongo';
import type { SigningSecrets as SigningSecretsPort } from '../domain/engine/ports';

// Reads an organization's webhook signing secret (D35) from the gateway, which owns checkout settings.
// Cached per (organization, mode) for a short time: a rotated secret is picked up within the cache period.
// While the gateway cannot answer, the last secret read stays in use (stale if error): a gateway outage does
// not turn webhooks of organizations already seen into failed attempts that use up their retries. For an
// organization never seen, lookups fail at once until the gateway is asked again, so the attempts put off
// meanwhile (D35) do not each hold a sender's slot through the client's timeouts and retries.

// `webhookSigningSecrets`: every secret to sign with now (the current one, then the one a rotation replaced,
// during its overlap); a gateway that predates rotation sends only `webhookSigningSecret` (rolling deploys).
const CheckoutSettings = z.object({
  webhookSigningSecret: z.string().min(1).nullable(),
  webhookSigningSecrets: z.array(z.string().min(1)).optional(),
});

/** How long after a failed read the gateway is asked again (the kept secret, or the failure, serves meanwhile). */
const STALE_RETRY_MS = 5_000;

/** The engine's port (D35), and the close the app calls at stop. */
export interface SigningSecrets extends SigningSecretsPort {
  close(): Promise<void>;
}

/** Used when GATEWAY_URL is unset: nothing is signed (the spec's default). */
export const NO_SIGNING: SigningSecrets = {
  secretsFor: async () => [],
  close: async () => {},
};

export class GatewaySettingsClient implements SigningSecrets {
  private readonly client: InternalClient;
  private readonly cache: TtlCache<readonly string[]>;

  constructor(options: {
    baseUrl: string;
    internalToken: string;
    cacheMs: number;
    timeoutMs?: number;
    clock?: () => number;
  }) {
    this.client = new InternalClient({
      service: 'gateway',
      baseUrl: options.baseUrl,
      internalToken: options.internalToken,
      timeoutMs: options.timeoutMs ?? 3_000,
      connections: 16,
    });
    this.cache = new TtlCache({
      ttlMs: options.cacheMs,
      maxEntries: 10_000,
      staleRetryMs: STALE_RETRY_MS,
      ...(options.clock && { now: options.clock }),
    });
  }

  secretsFor(scope: Scope): Promise<readonly string[]> {
    return this.cache.get(`${scope.organizationId}\u0000${scope.mode}`, () => this.fetchSecrets(scope));
  }

  private async fetchSecrets(scope: Scope): Promise<readonly string[]> {
    const { status, body } = await this.client.json({ method: 'GET', path: '/internal/checkout-settings', scope });
    if (status !== 200) throw new Error(`gateway answered ${status} for checkout settings`);
    const settings = CheckoutSettings.parse(body);
    return (
      settings.webhookSigningSecrets ?? (settings.webhookSigningSecret === null ? [] : [settings.webhookSigningSecret])
    );
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
