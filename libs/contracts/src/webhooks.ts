import { createHmac, timingSafeEqual } from 'node:crypto';

// The webhook delivery contract (D2, D35): the headers a delivery carries and the Standard Webhooks signature.
// The dispatcher sends with it, the SDK verifies with it and the local relay (D45) forwards with it, so the three
// cannot drift apart.

export const WEBHOOK_USER_AGENT = 'Service-Webhooks/1.0';

// D35: Standard Webhooks signatures. The secret is `whsec_<base64>`; the key is the decoded base64 part and the
// signed content is `<webhook-id>.<webhook-timestamp>.<body>`.

export const SECRET_PREFIX = 'whsec_';
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** `v1,<base64 HMAC-SHA256>` of `<id>.<timestamp>.<body>`; throws on a secret with no key in it. */
export function signWebhook(input: { secret: string; id: string; timestamp: number; body: string }): string {
  const encoded = input.secret.startsWith(SECRET_PREFIX) ? input.secret.slice(SECRET_PREFIX.length) : input.secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new Error('webhook signing secret is empty');
  const mac = createHmac('sha256', key).update(`${input.id}.${input.timestamp}.${input.body}`).digest('base64');
  return `v1,${mac}`;
}

/**
 * Every header of a delivery attempt: D2's, and with secrets the Standard Webhooks ones (none without: unsigned,
 * D35). With several secrets (a rotation's overlap: the new one and the one it replaces), one signature per secret,
 * space-separated, so a receiver still holding the old secret verifies too. Throws when a secret cannot be used:
 * nothing may then be sent unsigned.
 */
export function webhookHeaders(input: {
  eventId: string;
  deliveryId: string;
  eventType: string;
  body: string;
  secrets: readonly string[];
  /** Unix seconds at signing. */
  timestamp: number;
}): Record<string, string> {
  const { eventId: id, timestamp, body } = input;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'idempotency-key': id,
    'x-service-event-id': id,
    'x-service-delivery-id': input.deliveryId,
    'x-service-event-type': input.eventType,
    'user-agent': WEBHOOK_USER_AGENT,
  };
  if (input.secrets.length === 0) return headers;
  const signature = input.secrets.map((secret) => signWebhook({ secret, id, timestamp, body })).join(' ');
  return { ...headers, 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
}

export type SignatureCheck =
  { ok: true } | { ok: false; reason: 'missing headers' | 'timestamp outside tolerance' | 'invalid signature' };

/**
 * Checks a delivery's signature headers against the raw body. The header may carry several space-separated
 * signatures while a secret is being rotated; one match is enough. The timestamp bound stops replays of old
 * deliveries.
 */
export function checkWebhookSignature(input: {
  secret: string;
  body: string;
  id: string | undefined;
  timestamp: string | undefined;
  signature: string | undefined;
  nowSeconds: number;
  toleranceSeconds?: number;
}): SignatureCheck {
  const { id, timestamp, signature } = input;
  if (!id || !timestamp || !signature) return { ok: false, reason: 'missing headers' };
  const seconds = Number(timestamp);
  if (
    !/^[0-9]+$/.test(timestamp) ||
    Math.abs(input.nowSeconds - seconds) > (input.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS)
  ) {
    return { ok: false, reason: 'timestamp outside tolerance' };
  }
  const expected = Buffer.from(
    signWebhook({ secret: input.secret, id, timestamp: seconds, body: input.body }).slice(3),
    'base64',
  );
  const matches = signature.split(' ').some((entry) => {
    const [version, value] = entry.split(',');
    const given = Buffer.from(value ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
  return matches ? { ok: true } : { ok: false, reason: 'invalid signature' };
}
