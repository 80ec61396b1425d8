import { TtlCache } from '@checkout/coalesce';
import { DomainError } from '@checkout/errors';
import {
  exceededBudget,
  secondsUntil,
  type Budget,
  type Mode,
  type Scope,
  type TenantUsageResponse,
} from '@checkout/contracts';

/** The owner of the budgets' counts: the webhook dispatcher, which records the events and deliveries they count. */
export interface TenantUsageSource {
  tenantUsage(scope: Scope, requestId: string): Promise<TenantUsageResponse>;
}

export interface BudgetCheckSettings {
  /** How long a tenant's usage is used as read (per replica, at most ~1 s): what a replica may admit past a budget. */
  cacheMs: number;
  /** How long a write waits for the usage; past it, or on any failure, the write goes on (fail open). */
  timeoutMs: number;
  clock: () => Date;
  /** A write refused (gateway_quota_refusals_total). */
  refused: (budget: Budget, mode: Mode) => void;
  /** A write went on unchecked: its usage could not be read, or was not read again since that failed. */
  unchecked: () => void;
  /** A read of the usage failed (once per tenant per cacheMs at most, whatever the writes meanwhile). */
  unreadable: (err: unknown) => void;
}

/**
 * The merchant's API writes that record events are refused once its organization and mode has used up a daily
 * budget (429 QUOTA_EXCEEDED, until the next UTC midnight). The budgets protect what every merchant shares; they
 * are not a bill, so when the dispatcher cannot say (down, slow), the write goes on: an outage of the counts never
 * refuses a merchant's bookkeeping. What the platform records on its own (payments, processor notifications,
 * expiries) never passes here.
 */
export class MerchantBudgets {
  private readonly usage: TtlCache<TenantUsageResponse>;

  constructor(
    private readonly source: TenantUsageSource,
    private readonly settings: BudgetCheckSettings,
  ) {
    // A failed read is remembered as long as a good one, so an unreachable dispatcher costs each tenant one wait per
    // cacheMs, not one per request.
    this.usage = new TtlCache({ ttlMs: settings.cacheMs, maxEntries: 10_000, staleRetryMs: settings.cacheMs });
  }

  /** Throws QUOTA_EXCEEDED when this organization and mode has used up a budget today. */
  async check(scope: Scope, requestId: string): Promise<void> {
    let usage: TenantUsageResponse;
    try {
      usage = await this.usage.get(`${scope.organizationId}:${scope.mode}`, () => this.read(scope, requestId));
    } catch {
      this.settings.unchecked();
      return;
    }
    const now = this.settings.clock();
    const exceeded = exceededBudget(usage);
    // A count read just before midnight says nothing of the new day.
    if (!exceeded || Date.parse(exceeded.resetsAt) <= now.getTime()) return;
    this.settings.refused(exceeded.budget, scope.mode);
    throw new DomainError(
      'QUOTA_EXCEEDED',
      `This organization has used up its daily ${exceeded.budget} budget in ${scope.mode} mode ` +
        `(${exceeded.limit} a UTC day); writes that record events are refused until ${exceeded.resetsAt}.`,
      {
        quota: exceeded,
        retryAfterSeconds: secondsUntil(new Date(exceeded.resetsAt), now),
      },
    );
  }

  private read(scope: Scope, requestId: string): Promise<TenantUsageResponse> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('the usage was not read in time')), this.settings.timeoutMs);
    });
    return Promise.race([this.source.tenantUsage(scope, requestId), late])
      .catch((err: unknown) => {
        this.settings.unreadable(err);
        throw err;
      })
      .finally(() => clearTimeout(timer));
  }
}
