import { describe, expect, it } from 'vitest';
import { isIdOf } from '@checkout/contracts';
import type { WebhookEndpointDocument } from '../../store/webhook-endpoint.document';
import { endpointDeliveryId, initialDeliveryId, receives, recoveryDeliveryId } from './fan-out';

describe('recoveryDeliveryId (D44)', () => {
  it('When one failed delivery is recovered twice, then both recoveries name the same new delivery', () => {
    expect(recoveryDeliveryId('dlv_test_abc', 'test')).toBe(recoveryDeliveryId('dlv_test_abc', 'test'));
  });

  it('When different deliveries are recovered, then the new ids differ, are delivery ids of the mode, and differ from the failed one', () => {
    const a = recoveryDeliveryId('dlv_live_abc', 'live');
    const b = recoveryDeliveryId('dlv_live_abd', 'live');
    expect(a).not.toBe(b);
    expect(a).not.toBe('dlv_live_abc');
    expect(isIdOf('dlv', a, 'live')).toBe(true);
    expect(a).toHaveLength('dlv_live_'.length + 24);
  });
});

describe('initialDeliveryId and endpointDeliveryId (D50)', () => {
  it('When one event is replayed, then it names the same deliveries, apart for each endpoint and from the first one', () => {
    expect(initialDeliveryId('evt_1', 'test')).toBe(initialDeliveryId('evt_1', 'test'));
    expect(endpointDeliveryId('evt_1', 'we_a', 'test')).toBe(endpointDeliveryId('evt_1', 'we_a', 'test'));
    expect(endpointDeliveryId('evt_1', 'we_a', 'test')).not.toBe(endpointDeliveryId('evt_1', 'we_b', 'test'));
    expect(endpointDeliveryId('evt_1', 'we_a', 'test')).not.toBe(initialDeliveryId('evt_1', 'test'));
    expect(isIdOf('dlv', initialDeliveryId('evt_1', 'live'), 'live')).toBe(true);
  });
});

describe('receives (D50)', () => {
  const created = new Date('2026-11-26T10:00:00.000Z');
  const endpoint: Pick<WebhookEndpointDocument, 'disabled' | 'enabledEvents' | 'createdAt'> = {
    disabled: null,
    enabledEvents: ['checkout.session.completed'],
    createdAt: created,
  };
  const event = { type: 'checkout.session.completed' as const, createdAt: created };

  it('When the endpoint is enabled, subscribed and not newer than the event, then it receives it', () => {
    expect(receives(endpoint, event)).toBe(true);
    expect(receives({ ...endpoint, enabledEvents: ['*'] }, event)).toBe(true);
  });

  it('When it is disabled, subscribed to other types, or created after the event, then it does not', () => {
    expect(receives({ ...endpoint, disabled: { reason: 'requested', message: 'off', at: created } }, event)).toBe(
      false,
    );
    expect(receives({ ...endpoint, enabledEvents: ['order.created'] }, event)).toBe(false);
    expect(receives({ ...endpoint, createdAt: new Date(created.getTime() + 1) }, event)).toBe(false);
  });
});
