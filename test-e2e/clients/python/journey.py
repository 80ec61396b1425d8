"""A merchant's first hour, written against the client openapi-python-client generates from GET /v0/openapi.json:
register a webhook endpoint (a local server here), create a checkout session, PATCH its sessionData, pay it with
the test helper, read the completed session and its checkout.session.completed event, refund part of its order and
read the refund back (D48), read the order's balance transactions and the balance (D52), verify the endpoint's
signed delivery, find the event by endpoint, rotate the endpoint's secret, disable and delete it, read the event
catalog, list orders two pages at a time.

Run by `npm run clients`, which generates the `checkout_client` package and puts it on PYTHONPATH.
Environment: CHECKOUT_API_URL (the gateway), CHECKOUT_API_KEY (an sk_test_ key).
"""

import base64
import hashlib
import hmac
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

from checkout_client import AuthenticatedClient
from checkout_client.api.balance import get_balance, list_balance_transactions
from checkout_client.api.checkout_sessions import create_checkout_session, get_checkout_session, update_checkout_session
from checkout_client.api.events import get_event, list_event_types, list_events
from checkout_client.api.webhook_endpoints import (
    create_webhook_endpoint,
    delete_webhook_endpoint,
    get_webhook_endpoint,
    list_webhook_endpoints,
    rotate_webhook_endpoint_secret,
    update_webhook_endpoint,
)
from checkout_client.api.orders import create_order, list_orders
from checkout_client.api.refunds import create_refund, get_refund, list_refunds
from checkout_client.api.test_helpers import test_helper_pay
from checkout_client.models import (
    CheckoutSessionStatus,
    CreateOrderRequest,
    CreateRefundRequest,
    CreateRefundRequestReason,
    CreateSessionRequest,
    CreateWebhookEndpointRequest,
    EnabledEventTypesItem,
    ItemInput,
    ListEventsDeliveryStatus,
    ListEventsType,
    PayRequest,
    SessionData,
    UpdateSessionRequest,
    UpdateWebhookEndpointRequest,
)

RECEIVED: list = []


class Receiver(BaseHTTPRequestHandler):
    """The merchant's webhook endpoint: keeps every delivery (headers and raw body) and answers 200."""

    def do_POST(self) -> None:  # noqa: N802 (the http.server API)
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        RECEIVED.append((dict(self.headers.items()), body))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


def signature_ok(secret: str, headers: dict, body: bytes) -> bool:
    """Standard Webhooks: v1,<base64 HMAC-SHA256 of id.timestamp.body> with the base64 key after whsec_."""
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{headers['webhook-id']}.{headers['webhook-timestamp']}.".encode() + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    return any(entry == f"v1,{expected}" for entry in headers["webhook-signature"].split(" "))


def step(name: str, ok: bool, detail: str = "") -> None:
    print(f"python journey: {name}: {'ok' if ok else 'FAILED'}{(' (' + detail + ')') if detail else ''}", flush=True)
    if not ok:
        sys.exit(1)


def main() -> None:
    client = AuthenticatedClient(base_url=os.environ["CHECKOUT_API_URL"], token=os.environ["CHECKOUT_API_KEY"], raise_on_unexpected_status=True)

    server = HTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    registered = create_webhook_endpoint.sync_detailed(client=client, body=CreateWebhookEndpointRequest(
        url=f"http://127.0.0.1:{server.server_address[1]}/webhooks",
        enabled_events=[EnabledEventTypesItem.CHECKOUT_SESSION_COMPLETED],
    ))
    endpoint = registered.parsed.endpoint
    step("register a webhook endpoint", registered.status_code == 201 and endpoint.secret.startswith("whsec_"), endpoint.id)

    created = create_checkout_session.sync_detailed(client=client, body=CreateSessionRequest(items=[ItemInput(name="Latte", quantity=2, unit_price=450)]))
    session = created.parsed.session
    step("create session", created.status_code == 201 and session.status == CheckoutSessionStatus.PENDING and session.order.amounts.total == 900, session.id)

    patch = SessionData.from_dict({"cart": {"note": "no sugar", "lines": [1, 2]}, "source": "python"})
    updated = update_checkout_session.sync_detailed(session.id, client=client, body=UpdateSessionRequest(session_data=patch))
    data = updated.parsed.session.session_data.to_dict()
    step("patch sessionData", updated.status_code == 200 and data == {"cart": {"note": "no sugar", "lines": [1, 2]}, "source": "python"}, str(data))

    paid = test_helper_pay.sync_detailed(session.id, client=client, body=PayRequest())
    step("pay with the test helper", paid.status_code == 200 and paid.parsed.session.status == CheckoutSessionStatus.COMPLETED)

    read = get_checkout_session.sync_detailed(session.id, client=client)
    completed = read.parsed.session
    step("read the completed session", completed.status == CheckoutSessionStatus.COMPLETED and not completed.active and completed.order.amounts.paid == 900)

    # The event is recorded by the webhook dispatcher from Kafka, moments after the payment: wait for it.
    deadline = time.monotonic() + 30
    events = []
    while time.monotonic() < deadline:
        events = list_events.sync_detailed(client=client, session_id=session.id, type_=ListEventsType.CHECKOUT_SESSION_COMPLETED).parsed.events
        if events:
            break
        time.sleep(0.2)
    step("find its checkout.session.completed event", len(events) == 1, f"{len(events)} found")
    event = get_event.sync_detailed(events[0].id, client=client).parsed.event
    step("read the event", event.event == "checkout.session.completed" and event.session.id == session.id and event.session.status == CheckoutSessionStatus.COMPLETED, event.id)

    refunded = create_refund.sync_detailed(completed.order.id, client=client, body=CreateRefundRequest(amount=300, reason=CreateRefundRequestReason.REQUESTED_BY_CUSTOMER))
    refund = refunded.parsed.refund
    step("refund part of the order", refunded.status_code == 201 and refund.status == "succeeded" and refund.amount == 300 and refund.order_id == completed.order.id, refund.id)
    again = get_refund.sync_detailed(refund.id, client=client).parsed.refund
    listed_refunds = list_refunds.sync_detailed(completed.order.id, client=client).parsed
    step("read the refund and list the order's refunds", again.id == refund.id and [r.id for r in listed_refunds.refunds] == [refund.id] and listed_refunds.pagination.total == 1)
    after = get_checkout_session.sync_detailed(session.id, client=client).parsed.session.order
    step("the session's order shows the refund", after.amounts.refunded == 300 and after.payment_status == "partially_refunded", str(after.payment_status))

    # D52: the payment and the refund are lines of the books, built off the payment path moments later.
    deadline = time.monotonic() + 30
    lines = []
    while len(lines) < 2 and time.monotonic() < deadline:
        lines = list_balance_transactions.sync_detailed(client=client, order_id=completed.order.id).parsed.balance_transactions
        if len(lines) < 2:
            time.sleep(0.2)
    step("the order's balance transactions: its payment and its refund", len(lines) == 2 and sum(line.amount for line in lines) == 600, f"{len(lines)} lines")
    totals = get_balance.sync_detailed(client=client).parsed.balance
    step("read the balance", totals.currency == "USD" and totals.count >= 2 and totals.net >= 600, f"net {totals.net} of {totals.count} lines")

    deadline = time.monotonic() + 30
    while not RECEIVED and time.monotonic() < deadline:
        time.sleep(0.1)
    headers, body = RECEIVED[0] if RECEIVED else ({}, b"")
    headers = {name.lower(): value for name, value in headers.items()}
    step("the endpoint got the event, signed with its secret", headers.get("x-service-event-id") == event.id and signature_ok(endpoint.secret, headers, body))
    found = list_events.sync_detailed(client=client, endpoint_id=endpoint.id, delivery_status=ListEventsDeliveryStatus.SUCCEEDED).parsed
    step("find the event by endpoint and delivery status", [e.id for e in found.events] == [event.id], f"{found.pagination.total} found")
    rotated = rotate_webhook_endpoint_secret.sync_detailed(endpoint.id, client=client).parsed.endpoint
    step("rotate the endpoint's secret", rotated.secret.startswith("whsec_") and rotated.secret != endpoint.secret)
    disabled = update_webhook_endpoint.sync_detailed(endpoint.id, client=client, body=UpdateWebhookEndpointRequest(disabled=True)).parsed.endpoint
    step("disable the endpoint", disabled.disabled and get_webhook_endpoint.sync_detailed(endpoint.id, client=client).parsed.endpoint.disabled)
    listed = list_webhook_endpoints.sync_detailed(client=client).parsed
    step("list endpoints", [e.id for e in listed.endpoints] == [endpoint.id])
    deleted = delete_webhook_endpoint.sync_detailed(endpoint.id, client=client).parsed
    step("delete the endpoint", deleted.deleted and deleted.id == endpoint.id)
    server.shutdown()
    types = list_event_types.sync_detailed(client=client).parsed.event_types
    step("read the event catalog", "checkout.session.completed" in [str(t.type_) for t in types], f"{len(types)} types")

    for i in range(3):
        made = create_order.sync_detailed(client=client, body=CreateOrderRequest(items=[ItemInput(name=f"Order {i}", quantity=1, unit_price=100 + i)]))
        step(f"create order {i + 1}", made.status_code == 201)
    first = list_orders.sync_detailed(client=client, page=1, limit=2).parsed
    second = list_orders.sync_detailed(client=client, page=2, limit=2).parsed
    ids = [o.id for o in first.orders] + [o.id for o in second.orders]
    step("list orders, page 1 of limit 2", len(first.orders) == 2 and first.pagination.has_more and first.pagination.total >= 4)
    step("list orders, page 2", second.pagination.page == 2 and len(ids) == len(set(ids)), f"{len(second.orders)} on page 2, total {second.pagination.total}")
    print("python journey: passed", flush=True)


if __name__ == "__main__":
    main()
