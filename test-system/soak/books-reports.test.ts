import { describe, expect, it } from 'vitest';
import { totalsOfCsv } from './books-reports';

const HEADER = 'id,type,orderId,sourceId,amount,currency,createdAt,recordedAt';
const line = (amount: number, n: number) =>
  `txn_test_${n},${amount >= 0 ? 'payment' : 'refund'},ord_test_1,src_${n},${amount},USD,2026-11-29T09:00:00.000Z,2026-11-29T09:00:01.000Z`;

describe("the soak's reading of a balance transactions report (D52)", () => {
  it('When a report holds payments and refunds, then it sums them apart and counts its lines', () => {
    const csv = [HEADER, line(900, 1), line(-150, 2), line(250, 3), ''].join('\r\n');
    expect(totalsOfCsv(csv)).toEqual({ payments: 1150, refunds: 150, count: 3 });
  });

  it('When a report holds no line, then its totals are zero', () => {
    expect(totalsOfCsv(`${HEADER}\r\n`)).toEqual({ payments: 0, refunds: 0, count: 0 });
  });

  it('When the header is not the contract’s, or an amount is not an integer, then it refuses to sum', () => {
    expect(() => totalsOfCsv('id,amount\r\n1,2\r\n')).toThrow(/unexpected report header/);
    expect(() => totalsOfCsv(`${HEADER}\r\n${line(900, 1).replace(',900,', ",'900,")}\r\n`)).toThrow(/integer/);
  });
});
