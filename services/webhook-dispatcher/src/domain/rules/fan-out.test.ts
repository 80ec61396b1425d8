import { describe, expect, it } from 'vitest';
import { isIdOf } from '@checkout/contracts';
import { recoveryDeliveryId } from './recovery';

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
