import {
  DELIVERY_STATUSES,
  EVENT_TYPES,
  type Delivery,
  type EventPageResponse,
  type EventResponse,
  type FailedDeliveriesResponse,
  type WebhookEvent,
} from '@checkout/contracts';
import { escapeHtml as e, markup } from '@checkout/html';
import { timeTag } from './html';
import { layout, type PageContext } from './layout';
import {
  answerOf,
  extraError,
  filterSection,
  notice,
  pager,
  row,
  scrollTable,
  select,
  status,
  text,
  timeInput,
} from './parts';

/** The events page's filters (D34, D51), as the form sends them; times are datetime-local values read as UTC. */
export interface EventFilters {
  type?: string | undefined;
  deliveryStatus?: string | undefined;
  endpointId?: string | undefined;
  createdAfter?: string | undefined;
  createdBefore?: string | undefined;
}

/** What an event is about (D49): its session, or its order (and refund), or a report (D52); a link to its page. */
function eventSubject(ev: WebhookEvent): { label: string; id: string; href?: string } {
  if ('report' in ev) return { label: 'Report', id: ev.report.id };
  if ('session' in ev) return { label: 'Session', id: ev.session.id, href: `/dashboard/sessions/${ev.session.id}` };
  if ('refund' in ev) return { label: 'Refund of order', id: ev.refund.id, href: `/dashboard/orders/${ev.order.id}` };
  return { label: 'Order', id: ev.order.id, href: `/dashboard/orders/${ev.order.id}` };
}

const eventLink = (id: string) => `<a href="/dashboard/events/${e(id)}"><code>${e(id)}</code></a>`;

function failedDeliveriesTable(failed: FailedDeliveriesResponse): string {
  if (failed.deliveries.length === 0) return '<p>No failed deliveries. Every webhook that ended has landed.</p>';
  const rows = failed.deliveries
    .map((d) => {
      const last = d.attempts.at(-1);
      const why = last ? extraError(last) : null;
      return row(eventLink(d.eventId), [
        [`<code>${e(d.url)}</code>`, 'hide-narrow'],
        `${e(last ? answerOf(last) : '—')}${why ? ` — ${e(why)}` : ''}`,
        [timeTag(d.updatedAt), 'hide-narrow'],
      ]);
    })
    .join('');
  return scrollTable({
    caption: 'Most recent failed deliveries',
    columns: ['Event', ['Callback URL', 'hide-narrow'], 'Last answer', ['Failed at', 'hide-narrow']],
    rows,
    card: false,
  });
}

function filterForm(filters: EventFilters): string {
  return filterSection('/dashboard/events', [
    select('type', 'Event type', EVENT_TYPES, filters.type),
    select('deliveryStatus', 'A delivery that is', DELIVERY_STATUSES, filters.deliveryStatus),
    text('endpointId', 'Webhook endpoint id', filters.endpointId, 'we_test_…'),
    timeInput('createdAfter', 'Created from (UTC)', filters.createdAfter),
    timeInput('createdBefore', 'Created before (UTC)', filters.createdBefore),
  ]);
}

export function eventsPage(
  ctx: PageContext,
  list: EventPageResponse,
  failed: FailedDeliveriesResponse,
  filters: EventFilters,
  message?: string,
  error?: string,
): string {
  const filtered = Object.values(filters).some((value) => value !== undefined && value !== '');
  const rows = list.events
    .map((ev) => {
      const about = `<code>${e(eventSubject(ev).id)}</code>`;
      return row(eventLink(ev.id), [e(ev.event), [about, 'hide-narrow'], [timeTag(ev.createdAt), 'hide-narrow']]);
    })
    .join('');
  const table = scrollTable({
    caption: 'Events, newest first',
    columns: ['Event', 'Type', ['About', 'hide-narrow'], ['Created', 'hide-narrow']],
    rows,
    empty: filtered ? 'No events match.' : 'No events yet.',
    after: pager(list.pagination, '/dashboard/events', { ...filters }),
  });
  const body = markup`
    <h1>Events</h1>${notice(message)}${notice(error, 'error')}
    <section class="card" aria-labelledby="h-failed">
      <h2 id="h-failed">Failed deliveries</h2>
      ${failedDeliveriesTable(failed)}
      <p><a href="/dashboard/recover">Recover failed deliveries…</a></p>
    </section>
    ${filterForm(filters)}
    ${table}`;
  return layout(ctx, 'Events', body);
}

function deliverySection(delivery: Delivery, index: number): string {
  const attempts = delivery.attempts
    .map((a) => {
      const why = extraError(a);
      return markup`
        <li data-attempt="${a.attempt}"><strong>Attempt ${a.attempt}</strong> at ${timeTag(a.at)}: ${answerOf(a)},
          ${a.durationMs} ms${why ? ` — ${e(why)}` : ''}</li>`;
    })
    .join('');
  const to = delivery.endpointId
    ? ` (webhook endpoint <a href="/dashboard/webhook_endpoints/${e(delivery.endpointId)}"><code>${e(delivery.endpointId)}</code></a>)`
    : " (the session's callback URL)";
  return markup`
    <section class="card delivery" aria-labelledby="h-d${index}" data-delivery-status="${e(delivery.status)}">
      <h2 id="h-d${index}">Delivery <code>${e(delivery.id)}</code> ${status(delivery.status)}</h2>
      <p>To <code>${e(delivery.url)}</code>${to}</p>
      <h3>Attempts</h3>
      ${attempts ? `<ol class="timeline" aria-label="Attempts of ${e(delivery.id)}">${attempts}</ol>` : '<p>No attempt yet.</p>'}
    </section>`;
}

const NO_DELIVERY = {
  session: 'This event has no delivery: its session has no callback URL and no webhook endpoint was subscribed to it.',
  other:
    "This event has no delivery: no webhook endpoint was subscribed to it (a session's callback URL receives only " +
    "its session's events).",
};

export function eventPage(ctx: PageContext, found: EventResponse, message?: string): string {
  const ev: WebhookEvent = found.event;
  const subject = eventSubject(ev);
  const subjectCode = `<code>${e(subject.id)}</code>`;
  const subjectLink = subject.href ? `<a href="${e(subject.href)}">${subjectCode}</a>` : subjectCode;
  // D49: a session's callback URL receives its session's events only; an order's or a refund's has no delivery.
  const ofSession = 'session' in ev;
  const redeliver = ofSession
    ? `<p><a class="button" href="/dashboard/events/${e(ev.id)}/redeliver">Redeliver this event…</a></p>`
    : '';
  const deliveries =
    found.deliveries.length === 0
      ? `<div class="card"><p>${ofSession ? NO_DELIVERY.session : NO_DELIVERY.other}</p></div>`
      : found.deliveries.map(deliverySection).join('');
  const body = markup`
    <h1>Event <code>${e(ev.id)}</code></h1>${notice(message)}
    <section class="card" aria-labelledby="h-ev">
      <h2 id="h-ev">Summary</h2>
      <dl class="facts">
        <dt>Type</dt><dd>${e(ev.event)}</dd>
        <dt>Created</dt><dd>${timeTag(ev.createdAt)}</dd>
        <dt>${e(subject.label)}</dt><dd>${subjectLink}</dd>
      </dl>
      ${redeliver}
    </section>
    ${deliveries}`;
  return layout(ctx, `Event ${ev.id}`, body);
}
