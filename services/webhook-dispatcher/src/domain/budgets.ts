import {
  BUDGETS,
  MODES,
  NEAR_BUDGET_SHARE,
  budgetResetsAt,
  usageDay,
  type Budget,
  type Mode,
  type Scope,
  type TenantUsageResponse,
} from '@checkout/contracts';
import type { UsageCounts, UsageRecords } from './engine/records';
import { nearThresholds } from './rules/usage';

/** Tenants of one mode at or past NEAR_BUDGET_SHARE of one budget today. */
export interface NearBudget {
  mode: Mode;
  budget: Budget;
  tenants: number;
}

/**
 * Each organization and mode's daily budgets of what every merchant shares (docs/webhooks.md, "Budgets"): what it
 * made today, as the record's group commits counted it, beside its mode's limits. The gateway refuses by it.
 */
export class TenantBudgets {
  constructor(
    private readonly usage: Pick<UsageRecords, 'read' | 'reaching'>,
    private readonly limits: Readonly<Record<Mode, UsageCounts>>,
    private readonly clock: () => Date,
  ) {}

  async usageOf(scope: Scope): Promise<TenantUsageResponse> {
    const now = this.clock();
    const used = await this.usage.read(scope, usageDay(now));
    const limits = this.limits[scope.mode];
    const of = (budget: Budget) => ({ used: used[budget], limit: limits[budget] });
    return {
      day: usageDay(now),
      resetsAt: budgetResetsAt(now).toISOString(),
      budgets: { events: of('events'), deliveries: of('deliveries'), bytes: of('bytes') },
    };
  }

  /** How many tenants of each mode are near each budget today (a gauge: no tenant is named, so its series stay six). */
  async nearBudget(): Promise<NearBudget[]> {
    const day = usageDay(this.clock());
    const counts: NearBudget[] = [];
    for (const mode of MODES) {
      const near = nearThresholds(this.limits[mode], NEAR_BUDGET_SHARE);
      const tenants = await this.usage.reaching(day, mode, near);
      for (const budget of BUDGETS)
        counts.push({ mode, budget, tenants: tenants.filter((used) => used[budget] >= near[budget]).length });
    }
    return counts;
  }
}
