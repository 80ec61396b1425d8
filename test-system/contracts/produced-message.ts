// What every producer's fixtures share: the fixture's form, and the one instant and tenant they are all made at,
// so that two runs differ only in their random ids.
import type { Mode } from '@checkout/contracts';
import type { OutgoingMessage } from '@checkout/kafka';
import type { Scope } from '@checkout/mongo';
import { newOrder, type NewOrderInput, type OrderDocument } from '@checkout/orders/testing';

/** One committed message: its key, headers and value (the JSON the producer sent, parsed) and who makes it. */
export interface MessageFixture {
  producedBy: string;
  key: string;
  headers?: Record<string, string>;
  value: unknown;
}

export interface ProducedMessage {
  topic: string;
  /** The fixture file's name without `.json`; a new version of a shape gets a new name (`….v2`). */
  name: string;
  fixture: MessageFixture;
}

export const NOW = new Date('2026-01-15T12:00:00.000Z');
export const MODE: Mode = 'test';
export const SCOPE: Scope = { organizationId: 'org_fixtures', mode: MODE };

export function toFixture(message: OutgoingMessage, producedBy: string): MessageFixture {
  return {
    producedBy,
    key: message.key,
    ...(message.headers && { headers: message.headers }),
    value: JSON.parse(message.value) as unknown,
  };
}

/** An order made from `input` as if created earlier and stored at its first revision. */
export function storedOrder(input: NewOrderInput, extra: Partial<OrderDocument> = {}): OrderDocument {
  return { ...newOrder(input, { scope: SCOPE, now: NOW }), ...SCOPE, revision: 1, ...extra } as OrderDocument;
}
