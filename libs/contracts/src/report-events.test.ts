import { describe, expect, it } from 'vitest';
import { newId } from './ids';
import { ReportPublicEventMessage, reportPublicEvent } from './report-events';

// D52's report events on their topic: what the dispatcher's consumer takes, and the producer bugs it refuses.

const report = {
  id: newId('rpt', 'test'),
  type: 'orders',
  status: 'succeeded',
  createdAfter: '2026-01-01T00:00:00.000Z',
  createdBefore: '2026-02-01T00:00:00.000Z',
  createdAt: '2026-02-01T10:00:00.000Z',
  expiresAt: '2026-03-03T10:00:00.000Z',
  rows: 3,
  asOf: '2026-02-01T09:59:58.000Z',
  fileUrl: '',
};
report.fileUrl = `/v0/reports/${report.id}/file`;

const event = () =>
  reportPublicEvent({
    type: 'report.succeeded',
    eventId: newId('evt', 'test'),
    organizationId: 'org_1',
    mode: 'test',
    occurredAt: new Date('2026-02-01T10:00:05.000Z'),
    report,
  });

const pathsOf = (value: unknown) =>
  ReportPublicEventMessage.safeParse(value).error?.issues.map((issue) => issue.path.join('.')) ?? [];

describe('report events (D52)', () => {
  it('When orders builds report.succeeded, then its body is D49’s {id, event, createdAt, report}, keyed by the report', () => {
    const message = event();
    expect(Object.keys(message.body)).toEqual(['id', 'event', 'createdAt', 'report']);
    expect(message).toMatchObject({ reportId: report.id, eventId: message.body.id, type: 'report.succeeded' });
    expect(ReportPublicEventMessage.parse(JSON.parse(JSON.stringify(message)))).toEqual(message);
  });

  it('When an envelope disagrees with its body or its mode, then the consumer refuses it', () => {
    const message = event();
    expect(pathsOf({ ...message, reportId: newId('rpt', 'test') })).toEqual(['body.report.id']);
    expect(pathsOf({ ...message, body: { ...message.body, id: newId('evt', 'test') } })).toEqual(['body.id']);
    expect(pathsOf({ ...message, body: { ...message.body, event: 'report.failed' } })).toEqual(['body.event']);
    expect(pathsOf({ ...message, mode: 'live' })).toEqual(['eventId', 'reportId']);
    expect(() =>
      reportPublicEvent({
        type: 'report.succeeded',
        eventId: message.eventId,
        organizationId: 'org_1',
        mode: 'test',
        occurredAt: new Date(),
        report: { ...report, id: 'rpt_nope' },
      }),
    ).toThrow();
  });
});
