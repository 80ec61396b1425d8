// A merchant's first hour, written against the client oapi-codegen generates from GET /v0/openapi.json:
// register a webhook endpoint (an httptest server here), create a checkout session, PATCH its sessionData, pay it
// with the test helper, read the completed session and its checkout.session.completed event, refund part of its
// order and read the refund back (D48), read the order's balance transactions and the balance (D52), verify the endpoint's signed delivery, find the event by endpoint, rotate the
// endpoint's secret, disable and delete it, read the event catalog, list orders two pages at a time.
//
// Run by `npm run clients`, which generates client.gen.go (package checkout) beside this file in a working copy.
// Environment: CHECKOUT_API_URL (the gateway), CHECKOUT_API_KEY (an sk_test_ key).
package checkout

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// delivery is one POST the merchant's endpoint received.
type delivery struct {
	header http.Header
	body   []byte
}

// signatureOK checks Standard Webhooks: v1,<base64 HMAC-SHA256 of id.timestamp.body> with the base64 key after whsec_.
func signatureOK(secret string, d delivery) bool {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(d.header.Get("webhook-id") + "." + d.header.Get("webhook-timestamp") + "."))
	mac.Write(d.body)
	expected := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	for _, entry := range strings.Split(d.header.Get("webhook-signature"), " ") {
		if hmac.Equal([]byte(entry), []byte(expected)) {
			return true
		}
	}
	return false
}

func newClient(t *testing.T) *ClientWithResponses {
	t.Helper()
	key := os.Getenv("CHECKOUT_API_KEY")
	bearer := func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+key)
		return nil
	}
	client, err := NewClientWithResponses(os.Getenv("CHECKOUT_API_URL"), WithRequestEditorFn(bearer))
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	return client
}

func step(t *testing.T, name string, ok bool, detail string) {
	t.Helper()
	if !ok {
		t.Fatalf("go journey: %s: FAILED (%s)", name, detail)
	}
	fmt.Printf("go journey: %s: ok %s\n", name, detail)
}

func TestMerchantJourney(t *testing.T) {
	ctx := context.Background()
	client := newClient(t)

	received := make(chan delivery, 16)
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		received <- delivery{header: r.Header.Clone(), body: body}
		w.WriteHeader(http.StatusOK)
	}))
	defer server.Close()
	// enabledEvents is a union (exactly ["*"], or catalog types): this endpoint takes one catalog type.
	var enabledEvents CreateWebhookEndpointRequest_EnabledEvents
	if err := enabledEvents.FromEnabledEventTypes(EnabledEventTypes{"checkout.session.completed"}); err != nil {
		t.Fatalf("enabled events: %v", err)
	}
	registered, err := client.CreateWebhookEndpointWithResponse(ctx, nil, CreateWebhookEndpointRequest{
		Url:           server.URL + "/webhooks",
		EnabledEvents: enabledEvents,
	})
	if err != nil || registered.JSON201 == nil {
		t.Fatalf("register endpoint: %v %s", err, registered.Body)
	}
	endpoint := registered.JSON201.Endpoint
	step(t, "register a webhook endpoint", strings.HasPrefix(endpoint.Secret, "whsec_"), endpoint.Id)

	created, err := client.CreateCheckoutSessionWithResponse(ctx, nil, CreateSessionRequest{Items: []ItemInput{{Name: "Latte", Quantity: 2, UnitPrice: 450}}})
	if err != nil || created.JSON201 == nil {
		t.Fatalf("create session: %v %s", err, created.Body)
	}
	session := created.JSON201.Session
	step(t, "create session", session.Status == CheckoutSessionStatusPending && session.Order.Amounts.Total == 900, session.Id)

	data := SessionData{"cart": map[string]any{"note": "no sugar", "lines": []any{1, 2}}, "source": "go"}
	updated, err := client.UpdateCheckoutSessionWithResponse(ctx, session.Id, UpdateSessionRequest{SessionData: &data})
	if err != nil || updated.JSON200 == nil {
		t.Fatalf("patch session: %v %s", err, updated.Body)
	}
	want := map[string]any{"cart": map[string]any{"note": "no sugar", "lines": []any{float64(1), float64(2)}}, "source": "go"}
	got := map[string]any{}
	for k, v := range updated.JSON200.Session.SessionData {
		got[k] = v
	}
	step(t, "patch sessionData", reflect.DeepEqual(got, want), fmt.Sprint(got))

	paid, err := client.TestHelperPayWithResponse(ctx, session.Id, nil, PayRequest{})
	if err != nil || paid.JSON200 == nil {
		t.Fatalf("pay: %v %s", err, paid.Body)
	}
	step(t, "pay with the test helper", paid.JSON200.Session.Status == CheckoutSessionStatusCompleted, "")

	read, err := client.GetCheckoutSessionWithResponse(ctx, session.Id)
	if err != nil || read.JSON200 == nil {
		t.Fatalf("get session: %v", err)
	}
	done := read.JSON200.Session
	step(t, "read the completed session", done.Status == CheckoutSessionStatusCompleted && !done.Active && done.Order.Amounts.Paid == 900, "")

	// The event is recorded by the webhook dispatcher from Kafka, moments after the payment: wait for it.
	completedType := ListEventsParamsTypeCheckoutSessionCompleted
	var events []WebhookEvent
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		listed, err := client.ListEventsWithResponse(ctx, &ListEventsParams{SessionId: &session.Id, Type: &completedType})
		if err != nil || listed.JSON200 == nil {
			t.Fatalf("list events: %v", err)
		}
		if events = listed.JSON200.Events; len(events) > 0 {
			break
		}
	}
	step(t, "find its checkout.session.completed event", len(events) == 1, fmt.Sprintf("%d found", len(events)))
	listedEvent, err := events[0].AsSessionCompletedEvent()
	if err != nil {
		t.Fatalf("event: %v", err)
	}
	got1, err := client.GetEventWithResponse(ctx, listedEvent.Id)
	if err != nil || got1.JSON200 == nil {
		t.Fatalf("get event: %v", err)
	}
	kind, _ := got1.JSON200.Event.Discriminator()
	event, err := got1.JSON200.Event.AsSessionCompletedEvent()
	step(t, "read the event", err == nil && kind == "checkout.session.completed" && event.Session.Id == session.Id && event.Session.Status == CheckoutSessionStatusCompleted, event.Id)

	amount, reason := int64(300), CreateRefundRequestReasonRequestedByCustomer
	refunded, err := client.CreateRefundWithResponse(ctx, done.Order.Id, nil, CreateRefundRequest{Amount: &amount, Reason: &reason})
	if err != nil || refunded.JSON201 == nil {
		t.Fatalf("create refund: %v %s", err, refunded.Body)
	}
	refund := refunded.JSON201.Refund
	step(t, "refund part of the order", refund.Status == RefundStatusSucceeded && refund.Amount == 300 && refund.OrderId == done.Order.Id, refund.Id)
	readRefund, err := client.GetRefundWithResponse(ctx, refund.Id)
	if err != nil || readRefund.JSON200 == nil {
		t.Fatalf("get refund: %v", err)
	}
	listedRefunds, err := client.ListRefundsWithResponse(ctx, done.Order.Id, nil)
	if err != nil || listedRefunds.JSON200 == nil {
		t.Fatalf("list refunds: %v", err)
	}
	step(t, "read the refund and list the order's refunds", readRefund.JSON200.Refund.Id == refund.Id && len(listedRefunds.JSON200.Refunds) == 1 && listedRefunds.JSON200.Refunds[0].Id == refund.Id, "")
	after, err := client.GetCheckoutSessionWithResponse(ctx, session.Id)
	if err != nil || after.JSON200 == nil {
		t.Fatalf("get session: %v", err)
	}
	order := after.JSON200.Session.Order
	step(t, "the session's order shows the refund", order.Amounts.Refunded == 300 && order.PaymentStatus == OrderPaymentStatusPartiallyRefunded, string(order.PaymentStatus))

	// D52: the payment and the refund are lines of the books, built off the payment path moments later.
	orderID := done.Order.Id
	var lines []BalanceTransaction
	for deadline := time.Now().Add(30 * time.Second); len(lines) < 2 && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		listedLines, err := client.ListBalanceTransactionsWithResponse(ctx, &ListBalanceTransactionsParams{OrderId: &orderID})
		if err != nil || listedLines.JSON200 == nil {
			t.Fatalf("list balance transactions: %v", err)
		}
		lines = listedLines.JSON200.BalanceTransactions
	}
	sum := 0
	for _, line := range lines {
		sum += int(line.Amount)
	}
	step(t, "the order's balance transactions: its payment and its refund", len(lines) == 2 && sum == 600, fmt.Sprintf("%d lines, sum %d", len(lines), sum))
	balance, err := client.GetBalanceWithResponse(ctx, nil)
	if err != nil || balance.JSON200 == nil {
		t.Fatalf("get balance: %v", err)
	}
	totals := balance.JSON200.Balance
	step(t, "read the balance", totals.Currency == "USD" && totals.Count >= 2 && totals.Net >= 600, fmt.Sprintf("net %d of %d lines", totals.Net, totals.Count))

	var signed delivery
	select {
	case signed = <-received:
	case <-time.After(30 * time.Second):
		t.Fatalf("the endpoint got no delivery")
	}
	step(t, "the endpoint got the event, signed with its secret", signed.header.Get("X-Service-Event-Id") == event.Id && signatureOK(endpoint.Secret, signed), "")
	succeeded := ListEventsParamsDeliveryStatusSucceeded
	byEndpoint, err := client.ListEventsWithResponse(ctx, &ListEventsParams{EndpointId: &endpoint.Id, DeliveryStatus: &succeeded})
	if err != nil || byEndpoint.JSON200 == nil {
		t.Fatalf("list events by endpoint: %v", err)
	}
	step(t, "find the event by endpoint and delivery status", len(byEndpoint.JSON200.Events) == 1, fmt.Sprintf("%d found", byEndpoint.JSON200.Pagination.Total))
	rotated, err := client.RotateWebhookEndpointSecretWithResponse(ctx, endpoint.Id)
	step(t, "rotate the endpoint's secret", err == nil && rotated.JSON200 != nil && rotated.JSON200.Endpoint.Secret != endpoint.Secret, "")
	disable := true
	disabled, err := client.UpdateWebhookEndpointWithResponse(ctx, endpoint.Id, UpdateWebhookEndpointRequest{Disabled: &disable})
	step(t, "disable the endpoint", err == nil && disabled.JSON200 != nil && disabled.JSON200.Endpoint.Disabled, "")
	read1, err := client.GetWebhookEndpointWithResponse(ctx, endpoint.Id)
	step(t, "read the endpoint", err == nil && read1.JSON200 != nil && read1.JSON200.Endpoint.DisabledReason != nil, "")
	listed, err := client.ListWebhookEndpointsWithResponse(ctx, nil)
	step(t, "list endpoints", err == nil && listed.JSON200 != nil && len(listed.JSON200.Endpoints) == 1, "")
	deleted, err := client.DeleteWebhookEndpointWithResponse(ctx, endpoint.Id)
	step(t, "delete the endpoint", err == nil && deleted.JSON200 != nil && deleted.JSON200.Id == endpoint.Id, "")
	types, err := client.ListEventTypesWithResponse(ctx, nil)
	step(t, "read the event catalog", err == nil && types.JSON200 != nil && len(types.JSON200.EventTypes) >= 2, "")

	for i := 0; i < 3; i++ {
		made, err := client.CreateOrderWithResponse(ctx, nil, CreateOrderRequest{Items: []ItemInput{{Name: fmt.Sprintf("Order %d", i), Quantity: 1, UnitPrice: int64(100 + i)}}})
		step(t, fmt.Sprintf("create order %d", i+1), err == nil && made.JSON201 != nil, "")
	}
	page, limit := int32(1), int32(2)
	first, err := client.ListOrdersWithResponse(ctx, &ListOrdersParams{Page: &page, Limit: &limit})
	if err != nil || first.JSON200 == nil {
		t.Fatalf("list orders: %v", err)
	}
	page = 2
	second, err := client.ListOrdersWithResponse(ctx, &ListOrdersParams{Page: &page, Limit: &limit})
	if err != nil || second.JSON200 == nil {
		t.Fatalf("list orders page 2: %v", err)
	}
	seen := map[string]bool{}
	for _, o := range append(first.JSON200.Orders, second.JSON200.Orders...) {
		seen[o.Id] = true
	}
	step(t, "list orders, page 1 of limit 2", len(first.JSON200.Orders) == 2 && first.JSON200.Pagination.HasMore && first.JSON200.Pagination.Total >= 4, "")
	step(t, "list orders, page 2", second.JSON200.Pagination.Page == 2 && len(seen) == len(first.JSON200.Orders)+len(second.JSON200.Orders), fmt.Sprintf("total %d", second.JSON200.Pagination.Total))
	fmt.Println("go journey: passed")
}
