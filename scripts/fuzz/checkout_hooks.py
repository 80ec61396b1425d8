"""Schemathesis hooks for `npm run fuzz` (loaded through SCHEMATHESIS_HOOKS by scripts/fuzz.ts).

positive_data_acceptance says "a request valid by the document must be accepted". A few rules of this API cannot
be written in JSON Schema, so a schema-valid request may still be refused with 400 by one of them. This check is
positive_data_acceptance with exactly those refusals let through, each named with the decision that makes it;
any other 400 to schema-valid data is still a failure (the document promising more than the server accepts).
"""

import re

import schemathesis
from schemathesis.specs.openapi.checks import ensure_resource_availability, positive_data_acceptance

# Codes that depend on other records or on state, never on the request's shape.
STATE_OR_REFERENCE_CODES = {
    "LOCATION_NOT_FOUND",  # D14: a well-formed id of a location that does not exist
    "PAYMENT_DESTINATION_NOT_FOUND",  # D15
    "PAYMENT_DESTINATION_NOT_ACTIVE",  # D15
    "ORDER_NOT_EDITABLE",  # spec: only an open, unpaid order can be edited
    "ORDER_CANCEL_FAILED",  # spec: only an open, unpaid order can be cancelled
    "SESSION_NOT_PAYABLE",  # D29: only a pending session can be paid
    "WEBHOOK_ENDPOINT_LIMIT_REACHED",  # D50: the organization and mode have 16 endpoints already
    "WEBHOOK_ENDPOINT_DISABLED",  # D50: a redelivery or a recovery to an endpoint that is disabled
}

PAGE_BOUND = r"^page × limit must be at most \d+ when filtering by deliveryStatus or endpointId"

# Failure codes whose message names a rule across fields, over stored data, or over the serialized size.
RULE_MESSAGES = [
    re.compile(r"^The order amounts are invalid\.$"),  # D10: computed amounts, discount above subtotal
    re.compile(r"^A checkout session needs an order total of at least 1\.$"),  # D24
    re.compile(r"only a pending session can be (extended|expired)\.$"),  # D23, D29
    re.compile(r"^A session may live at most 7 days from its creation\.$"),  # D23
    re.compile(r"^sessionData may (hold|be) at most .* after merging\.$"),  # D23: limits of the merged object
    re.compile(r"^customer\.email is required when the order has no customer yet\.$"),  # D11
    re.compile(r"^This event has no callback URL \(D32\); name a webhook endpoint"),  # D32: redeliver without endpointId
    re.compile(r"^since may be at most \d+ days ago\.$"),  # D44: relative to the time of the request
    # D48: what is refundable depends on the order's payments and refunds, and only a pending refund settles.
    re.compile(r"^Order \S+ has received no money, so nothing can be refunded\.$"),
    re.compile(r"^Nothing is left to refund on order \S+: "),
    re.compile(r"^The refund of \d+ exceeds what is refundable on order \S+ \(\d+\)\.$"),
    re.compile(r"^Order \S+ already has \d+ refunds, the most one order may have\.$"),
    re.compile(r"^Refund \S+ is already \w+; only a pending refund can be settled\.$"),
    # D51: page × limit, across two fields and only with the delivery filters (DELIVERY_SEARCH_MAX).
    re.compile(PAGE_BOUND),
    # D50, D33: an endpoint's URL by the key's mode (live is https only) and by address ranges (IP literals).
    re.compile(r"^url must be https in live mode"),
    re.compile(r"^url must not name an internal address"),
]
RULE_DETAILS = [
    re.compile(r"^sessionData may be at most \d+ bytes as JSON$"),  # D23: 8 KiB serialized
    re.compile(PAGE_BOUND),  # D51, as the gateway's own validation words it in details
    # D52: a report's window, across its two times (createdBefore after createdAfter, at most 366 days apart).
    re.compile(r"^must be after createdAfter$"),
    re.compile(r"^must be at most \d+ days after createdAfter$"),
]


def _is_rule_refusal(response) -> bool:
    if response.status_code != 400:
        return False
    try:
        body = response.json()
    except Exception:  # noqa: BLE001 - not JSON: not one of ours
        return False
    if not isinstance(body, dict):
        return False
    if body.get("code") in STATE_OR_REFERENCE_CODES:
        return True
    message = str(body.get("message", ""))
    if any(rule.search(message) for rule in RULE_MESSAGES):
        return True
    details = body.get("details") or []
    return bool(details) and all(any(rule.search(str(d.get("message", ""))) for rule in RULE_DETAILS) for d in details)


@schemathesis.check
def positive_data_acceptance_beyond_schema(ctx, response, case):
    if _is_rule_refusal(response):
        return None
    return positive_data_acceptance(ctx, response, case)


@schemathesis.check
def ensure_resource_availability_beyond_replay(ctx, response, case):
    """ensure_resource_availability, except after a replayed create.

    D42: a POST repeated with its Idempotency-Key and body answers the first response again
    (`Idempotent-Replayed: true`), as Stripe does, even when what it created was deleted since. The fuzzer reuses
    short keys ("0") with the same minimal body across sequences, so a replayed 201 may name an endpoint an earlier
    sequence deleted: the 404 that follows is the right answer, not a resource that vanished after its creation.
    """
    parent = ctx.internals.find_parent(case_id=case.id)
    parent_response = ctx.internals.find_response(case_id=parent.id) if parent is not None else None
    if parent_response is not None and parent_response.headers.get("idempotent-replayed", [""])[0] == "true":
        return None
    return ensure_resource_availability(ctx, response, case)
