import { ReportPublicEventMessage } from '@checkout/contracts';
import { publicEventParser } from './order-public-events.consumer';

/**
 * What the report-events consumer (events.consumer.ts) does with a received message's JSON: orders' report events
 * (report.succeeded, report.failed, D52), checked with ReportPublicEventMessage, recorded in the events API and
 * delivered to the webhook endpoints subscribed to them (D50), as order events are. Exported for the message fixtures
 * test.
 */
export const parseReportEvent = publicEventParser(ReportPublicEventMessage);
