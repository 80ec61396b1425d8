import type { CheckoutSession } from '@checkout/contracts';

// D47: the dashboard's pure rules (unit-tested beside them): reading a form's time, and a session's history.

export interface HistoryEntry {
  at: string;
  label: string;
  href?: string;
}

/** `2026-11-24T10:00` or `…:05` (a datetime-local field, read as UTC) or a full ISO time → ISO; else undefined. */
export function sinceFromForm(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const local = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})(:\d{2})?$/.exec(value);
  if (local) {
    const iso = `${local[1]}${local[2] ?? ':00'}.000Z`;
    // A real instant only: Date turns 2026-13-40 into NaN, and the round trip catches rolled-over fields.
    const parsed = new Date(iso);
    return !Number.isNaN(parsed.getTime()) && parsed.toISOString() === iso ? iso : undefined;
  }
  const parsed = new Date(value);
  return Number.isNaN(parsed.getTime()) || !/^\d{4}-\d{2}-\d{2}T/.test(value) ? undefined : parsed.toISOString();
}

/**
 * A session's status history, from what its owners keep: created (sessions), payments applied and paid
 * (orders, through the session's order copy), and the events that announced completion or expiry (the
 * dispatcher). Sessions store no transition log, so the time of a cancel is the session's last update.
 */
export function sessionHistory(
  session: CheckoutSession,
  events: readonly { id: string; event: string; createdAt: string }[],
): HistoryEntry[] {
  const entries: HistoryEntry[] = [{ at: session.createdAt, label: 'Created (pending)' }];
  if (session.order.paidAt) entries.push({ at: session.order.paidAt, label: 'Order paid in full' });
  for (const ev of events)
    entries.push({ at: ev.createdAt, label: `Event ${ev.event}`, href: `/dashboard/events/${ev.id}` });
  if (session.status === 'cancelled')
    entries.push({ at: session.updatedAt, label: 'Cancelled (its order was cancelled)' });
  if (session.status === 'expired' && !events.some((ev) => ev.event === 'checkout.session.expired'))
    entries.push({ at: session.expiresAt, label: 'Expired' });
  return entries.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

/**
 * D48's Refund form: an amount typed in the order's currency (`12.50`, `12.5`, `12`) as minor units; empty means all
 * that is refundable (undefined); anything else is null (the form says so). Two-decimal currencies only (v0: USD).
 */
export function refundAmountFromForm(value: string | undefined): number | undefined | null {
  const text = (value ?? '').trim();
  if (text === '') return undefined;
  const match = /^(\d{1,10})(?:\.(\d{1,2}))?$/.exec(text);
  if (!match) return null;
  const cents = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  return cents >= 1 && Number.isSafeInteger(cents) ? cents : null;
}
