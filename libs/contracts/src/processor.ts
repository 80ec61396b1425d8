import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { RefundId } from './ids';
import { RefundFailureReason } from './refunds';

// The live payment processor's notifications (D27, D48), the contract between the processor and the services it
// notifies: sessions takes captured payments (PROCESSOR_WEBHOOK_SECRET), orders takes settled refunds (their own
// PROCESSOR_REFUND_WEBHOOK_SECRET, so a leak of sessions' settles no refund), with one signature scheme. Each
// notification is signed: `x-processor-signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`.
// A signature older (or newer) than the tolerance is refused, so a captured request can't be replayed later; a
// replay inside the window is harmless because a payment id (or a refund's settlement) is applied at most once.

export const PROCESSOR_SIGNATURE_HEADER = 'x-processor-signature';
export const PROCESSOR_SIGNATURE_TOLERANCE_SECONDS = 5 * 60;
/** A notification is a few hundred bytes; anything far larger is not one. */
export const PROCESSOR_NOTIFICATION_MAX_BYTES = 64 * 1024;

/**
 * The signature header; several secrets give one `v1` each (a processor moving to a new secret signs with both, and
 * a verifier accepts any `v1` its own secret made).
 */
export function signProcessorPayload(
  secret: string | readonly string[],
  rawBody: string,
  timestampSeconds: number,
): string {
  const macs = (typeof secret === 'string' ? [secret] : secret).map(
    (s) => `v1=${createHmac('sha256', s).update(`${timestampSeconds}.${rawBody}`).digest('hex')}`,
  );
  return `t=${timestampSeconds},${macs.join(',')}`;
}

export type ProcessorSignatureCheck =
  { ok: true } | { ok: false; reason: 'missing' | 'malformed' | 'stale' | 'mismatch' };

export function verifyProcessorSignature(
  secret: string,
  rawBody: string,
  header: string | undefined,
  now: Date,
): ProcessorSignatureCheck {
  if (!header) return { ok: false, reason: 'missing' };
  let t: number | undefined;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const [k, v] = part.trim().split('=', 2);
    if (k === 't' && v !== undefined && /^\d{1,12}$/.test(v)) t = Number(v);
    else if (k === 'v1' && v !== undefined && /^[0-9a-f]{64}$/i.test(v)) candidates.push(v.toLowerCase());
  }
  if (t === undefined || candidates.length === 0) return { ok: false, reason: 'malformed' };
  if (Math.abs(now.getTime() / 1000 - t) > PROCESSOR_SIGNATURE_TOLERANCE_SECONDS) return { ok: false, reason: 'stale' };
  const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.${rawBody}`).digest('hex'));
  const matched = candidates.some((c) => {
    const given = Buffer.from(c);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return matched ? { ok: true } : { ok: false, reason: 'mismatch' };
}

/**
 * D48, live mode: the processor settles a refund it was asked for (`POST /v0/processor/refund_notifications`).
 * The refund id names the order, its organization and its mode; it is applied at most once (a replay of the same
 * outcome changes nothing).
 */
export const ProcessorRefundNotification = z.strictObject({
  refundId: RefundId,
  outcome: z.enum(['succeeded', 'failed']),
  failureReason: RefundFailureReason.optional(),
  settledAt: z.iso.datetime({ offset: true }),
});
export type ProcessorRefundNotification = z.infer<typeof ProcessorRefundNotification>;
