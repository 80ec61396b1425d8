import {
  ALL_EVENTS,
  EVENT_TYPES,
  WEBHOOK_ENDPOINTS_MAX,
  type EndpointDeliveriesResponse,
  type WebhookEndpoint,
  type WebhookEndpointWithSecret,
} from '@checkout/contracts';
import { escapeHtml as e, markup } from '@checkout/html';
import { timeTag } from './html';
import { layout, type PageContext } from './layout';
import { answerOf, extraError, notice, pager, row, scrollTable, status, type Cell } from './parts';

// D50's dashboard pages: the merchant's webhook endpoints, one endpoint with the attempts of its deliveries, the form
// that registers one and the page that shows a new secret, once. Same kit and rules as the other pages (no script;
// every action that changes something is a form with the session's CSRF token, reached through a confirm page).

const eventsOf = (endpoint: WebhookEndpoint) =>
  endpoint.enabledEvents.includes(ALL_EVENTS) ? 'All event types' : endpoint.enabledEvents.join(', ');

function state(endpoint: WebhookEndpoint): string {
  if (!endpoint.disabled) return status('enabled');
  const reason = endpoint.disabledReason;
  if (!reason) return status('disabled');
  return `${status('disabled')} <span>${e(reason.code === 'failing' ? 'every attempt failed' : 'by request')}</span>`;
}

export function endpointsPage(ctx: PageContext, endpoints: readonly WebhookEndpoint[], message?: string): string {
  const rows = endpoints
    .map((endpoint) =>
      row(`<a href="/dashboard/webhook_endpoints/${e(endpoint.id)}"><code>${e(endpoint.id)}</code></a>`, [
        `<code>${e(endpoint.url)}</code>`,
        [e(eventsOf(endpoint)), 'hide-narrow'],
        state(endpoint),
        [timeTag(endpoint.createdAt), 'hide-narrow'],
      ]),
    )
    .join('');
  const add =
    WEBHOOK_ENDPOINTS_MAX - endpoints.length > 0
      ? '<p><a class="button" href="/dashboard/webhook_endpoints/new">Add an endpoint…</a></p>'
      : '<p>Delete an endpoint to add another.</p>';
  const table = scrollTable({
    caption: 'Webhook endpoints, newest first',
    columns: ['Endpoint', 'URL', ['Events', 'hide-narrow'], 'Status', ['Created', 'hide-narrow']],
    rows,
    empty: 'No webhook endpoints yet.',
  });
  const body = markup`
    <h1>Webhook endpoints</h1>${notice(message)}
    <div class="card">
      <p>Every event of the types an endpoint is subscribed to is POSTed to it, signed with its own secret (Standard
        Webhooks). ${endpoints.length} of ${WEBHOOK_ENDPOINTS_MAX} in this mode.</p>${add}
    </div>
    ${table}`;
  return layout(ctx, 'Webhook endpoints', body);
}

/** The form that registers an endpoint; `values` refills it after a refusal. */
export function newEndpointPage(
  ctx: PageContext,
  values: { url?: string; description?: string; events?: readonly string[] } = {},
  error?: string,
): string {
  const chosen = new Set(values.events ?? [ALL_EVENTS]);
  const box = (value: string, label: string) => {
    const checked = chosen.has(value) ? ' checked' : '';
    return markup`
      <li><input type="checkbox" id="ev-${e(value)}" name="events" value="${e(value)}"${checked}> <label
        for="ev-${e(value)}">${e(label)}</label></li>`;
  };
  const body = markup`
    <h1>Add a webhook endpoint</h1>${notice(error, 'error')}
    <div class="card">
      <form method="post" action="/dashboard/webhook_endpoints">
        <input type="hidden" name="csrf" value="${e(ctx.csrfToken)}">
        <p>
          <label for="url">URL</label>
          <input id="url" name="url" type="url" required value="${e(values.url ?? '')}"
            placeholder="https://example.com/webhooks" autocomplete="off">
        </p>
        <p>
          <label for="description">Description (optional)</label>
          <input id="description" name="description" type="text" maxlength="500"
            value="${e(values.description ?? '')}" autocomplete="off">
        </p>
        <fieldset>
          <legend>Events to send</legend>
          <ul class="plain">
            ${box(ALL_EVENTS, 'All event types, those added later too')}
            ${EVENT_TYPES.map((type) => box(type, type)).join('')}
          </ul>
        </fieldset>
        <p><button type="submit">Add the endpoint</button> <a href="/dashboard/webhook_endpoints">Cancel</a></p>
      </form>
    </div>`;
  return layout(ctx, 'Add a webhook endpoint', body);
}

/** Shows a signing secret once: after a create or a rotation. */
export function secretPage(ctx: PageContext, endpoint: WebhookEndpointWithSecret, rotated: boolean): string {
  const title = rotated ? 'New signing secret' : 'Webhook endpoint added';
  const what = rotated
    ? 'Deliveries are now signed with this secret, and for 24 hours also with the one it replaces, so your receiver ' +
      'can switch over.'
    : `Deliveries to <code>${e(endpoint.url)}</code> are signed with this secret.`;
  const body = markup`
    <h1>${title}</h1>
    <div class="card">
      <p>${what} <strong>It is shown only now:</strong> copy it into your receiver's configuration.</p>
      <p><label for="secret">Signing secret</label><input id="secret" type="text" readonly value="${e(endpoint.secret)}"></p>
      <p><a href="/dashboard/webhook_endpoints/${e(endpoint.id)}">Continue to the endpoint</a></p>
    </div>`;
  return layout(ctx, title, body);
}

function deliveriesTable(endpoint: WebhookEndpoint, page: EndpointDeliveriesResponse): string {
  const rows = page.deliveries
    .map((d) => {
      const last = d.attempts.at(-1);
      const why = last ? extraError(last) : null;
      const cells: Cell[] = [
        [e(d.eventType), 'hide-narrow'],
        status(d.status),
        [String(d.attempts.length), 'num'],
        `${e(last ? answerOf(last) : '—')}${why ? ` — ${e(why)}` : ''}`,
        [timeTag(d.updatedAt), 'hide-narrow'],
      ];
      const event = `<a href="/dashboard/events/${e(d.eventId)}"><code>${e(d.eventId)}</code></a>`;
      return row(event, cells, ` data-delivery-status="${e(d.status)}"`);
    })
    .join('');
  return scrollTable({
    caption: 'Deliveries to this endpoint, newest first',
    columns: [
      'Event',
      ['Type', 'hide-narrow'],
      'Status',
      ['Attempts', 'num'],
      'Last answer',
      ['Last change', 'hide-narrow'],
    ],
    rows,
    empty: 'No deliveries yet.',
    after: pager(page.pagination, `/dashboard/webhook_endpoints/${endpoint.id}`, {}),
  });
}

function recoverSection(endpoint: WebhookEndpoint, recoverSince: string): string {
  const form = endpoint.disabled
    ? '<p>Enable it first.</p>'
    : markup`
      <form method="get" action="/dashboard/webhook_endpoints/${e(endpoint.id)}/recover" class="filters">
        <div>
          <label for="since">Since (UTC)</label>
          <input id="since" name="since" type="datetime-local" value="${e(recoverSince)}" step="1" required>
        </div>
        <div><button type="submit">Review recovery</button></div>
      </form>`;
  return markup`
    <section class="card" aria-labelledby="h-rec">
      <h2 id="h-rec">Recover what it missed</h2>
      <p>Sends it, once each, every delivery to it that failed since a time and every event it is subscribed to that
        it did not get while it was disabled (at most 14 days back). You confirm on the next page.</p>
      ${form}
    </section>`;
}

export function endpointPage(
  ctx: PageContext,
  endpoint: WebhookEndpoint,
  deliveries: EndpointDeliveriesResponse,
  recoverSince: string,
  message?: string,
): string {
  const id = e(endpoint.id);
  const reason = endpoint.disabledReason;
  const toggle = endpoint.disabled
    ? `<a class="button" href="/dashboard/webhook_endpoints/${id}/enable">Enable it…</a>`
    : `<a class="button" href="/dashboard/webhook_endpoints/${id}/disable">Disable it…</a>`;
  const body = markup`
    <h1>Webhook endpoint <code>${id}</code></h1>${notice(message)}
    <section class="card" aria-labelledby="h-sum">
      <h2 id="h-sum">Summary</h2>
      <dl class="facts">
        <dt>URL</dt><dd><code>${e(endpoint.url)}</code></dd>
        <dt>Events</dt><dd>${e(eventsOf(endpoint))}</dd>
        <dt>Description</dt><dd>${e(endpoint.description ?? '—')}</dd>
        <dt>Status</dt><dd>${state(endpoint)}</dd>
        ${reason ? `<dt>Disabled</dt><dd>${timeTag(reason.at)}: ${e(reason.message)}</dd>` : ''}
        <dt>Created</dt><dd>${timeTag(endpoint.createdAt)}</dd>
      </dl>
      <p>${toggle} <a href="/dashboard/webhook_endpoints/${id}/rotate_secret">Rotate its signing secret…</a></p>
    </section>
    ${recoverSection(endpoint, recoverSince)}
    ${deliveriesTable(endpoint, deliveries)}`;
  return layout(ctx, `Webhook endpoint ${endpoint.id}`, body);
}
