import type { ScopedDocument, StoredEntry } from '@checkout/mongo';

/**
 * One webhook endpoint (D50). The signing secret is stored as the organization's signing secret is (D35, the
 * gateway's checkout settings): in clear, since every delivery is signed with it (an HMAC key must be at hand), and
 * never logged (libs/logger redacts `secret` and `previousSecret`). docs/security.md says what protects it.
 */
export interface WebhookEndpointDocument extends ScopedDocument {
  _id: string;
  /**
   * 0..15: the place this endpoint takes among its organization and mode's 16 (D50). The unique index on
   * (organizationId, mode, slot) is what bounds their number, under any concurrency, with no counter to drift.
   */
  slot: number;
  url: string;
  /** `["*"]` or catalog types. */
  enabledEvents: string[];
  description?: string;
  /** D13 metadata, stored as entries: its keys may contain "." and "$". */
  metadata: StoredEntry<string>[];
  secret: string;
  /** The secret a rotation replaced, still signing until `until` (D50: 24 hours). */
  previousSecret: { secret: string; until: Date } | null;
  disabled: { reason: 'requested' | 'failing'; message: string; at: Date } | null;
  /**
   * When the current run of failed attempts began, as far as this endpoint knows: set by the first failure while
   * it is null, moved on when a failure finds a success after it. Successes do not write it (that would be one
   * more write per delivery); the failure that would disable the endpoint checks for one first.
   */
  failingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
}
