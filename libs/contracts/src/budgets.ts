import { z } from 'zod';

// What one organization and mode may make a day of what every merchant shares (the dispatcher's store, its group
// commits, its consumers): events recorded, deliveries created and the bytes they are stored with. The dispatcher
// counts the usage (it records both); the gateway refuses the merchant's own API writes past a budget with 429
// QUOTA_EXCEEDED. docs/webhooks.md, "Budgets".

export const BUDGETS = ['events', 'deliveries', 'bytes'] as const;
export type Budget = (typeof BUDGETS)[number];

const BudgetUsage = z.object({
  used: z.number().int().min(0).describe('What the organization and mode made of it this UTC day.'),
  limit: z.number().int().positive().describe('The most it may make in one UTC day.'),
});

/** The dispatcher's answer to the gateway: one organization and mode's usage of the UTC day, with its limits. */
export const TenantUsageResponse = z.object({
  day: z.string().describe('The UTC day counted, `YYYY-MM-DD`.'),
  resetsAt: z.iso.datetime().describe('When the day ends and the counts start again: the next UTC midnight.'),
  budgets: z.object({ events: BudgetUsage, deliveries: BudgetUsage, bytes: BudgetUsage }),
});
export type TenantUsageResponse = z.infer<typeof TenantUsageResponse>;

/** A budget used up: the first of BUDGETS whose use has reached its limit. */
export interface ExceededBudget {
  budget: Budget;
  limit: number;
  resetsAt: string;
}

/** The first budget used up, in the order of BUDGETS; none: the merchant's writes go on. */
export function exceededBudget(usage: TenantUsageResponse): ExceededBudget | null {
  for (const budget of BUDGETS) {
    const { used, limit } = usage.budgets[budget];
    if (used >= limit) return { budget, limit, resetsAt: usage.resetsAt };
  }
  return null;
}

/** The UTC day a moment counts in, `YYYY-MM-DD`. */
export function usageDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** When the UTC day of `at` ends: the next UTC midnight, when every budget starts again. */
export function budgetResetsAt(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));
}

/** Whole seconds from `now` until `resetsAt`, at least 1 (a Retry-After header). */
export function secondsUntil(resetsAt: Date, now: Date): number {
  return Math.max(1, Math.ceil((resetsAt.getTime() - now.getTime()) / 1000));
}

/** Share of a budget past which a tenant counts as near it (the gauge and its alert). */
export const NEAR_BUDGET_SHARE = 0.8;
