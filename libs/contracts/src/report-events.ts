import { z } from 'zod';
import { Timestamp } from './common';
import { EventId, ModeSchema, type Mode } from './ids';
import { checkPublicEnvelope } from './events';
import { REPORT_EVENT_TYPES, ReportPublicEventBody, type ReportEventType } from './event-catalog';
import { ReportId } from './reports';

// ---- Report events on TOPICS.reportEvents (key reportId): produced by orders, recorded by the dispatcher (D52)
//
// As an order's public events (events.ts): orders writes each event in the same document write as the report's
// change (its outbox), and the dispatcher records each once (by its id) and delivers it to the webhook endpoints
// subscribed to it. A new shape gets a new version, and both stay in the union until nothing produces the old one.

const ReportPublicEventV1 = z
  .object({
    version: z.literal(1),
    eventId: EventId,
    occurredAt: Timestamp,
    organizationId: z.string().min(1),
    mode: ModeSchema,
    reportId: ReportId,
    type: z.enum(REPORT_EVENT_TYPES),
    body: ReportPublicEventBody,
  })
  .superRefine((message, ctx) =>
    checkPublicEnvelope(message, { name: 'reportId', id: message.reportId, path: ['body', 'report', 'id'] }, ctx),
  )
  .meta({ id: 'ReportPublicEventV1' });

/** The report-event message as the dispatcher parses it today: every version still produced. */
export const ReportPublicEventMessage = ReportPublicEventV1;
export type ReportPublicEventMessage = z.infer<typeof ReportPublicEventV1>;

/** One report event (D52), checked against its declaration here so that a producer bug fails at the source. */
export function reportPublicEvent(input: {
  type: ReportEventType;
  eventId: string;
  organizationId: string;
  mode: Mode;
  occurredAt: Date;
  report: { id: string };
}): ReportPublicEventMessage {
  const createdAt = input.occurredAt.toISOString();
  return ReportPublicEventMessage.parse({
    version: 1,
    eventId: input.eventId,
    occurredAt: createdAt,
    organizationId: input.organizationId,
    mode: input.mode,
    reportId: input.report.id,
    type: input.type,
    body: { id: input.eventId, event: input.type, createdAt, report: input.report },
  });
}
