package stripetest

import (
	"fmt"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// epoch is when the generated data begins: a fixed date, so that two
// fakes started at different times serve the same records.
var epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// prefixes are the id prefixes of each entity's objects, and objects
// their object names.
var (
	prefixes = map[string]string{"customers": "cus_", "invoices": "in_", "charges": "ch_", "subscriptions": "sub_", "payment_intents": "pi_",
		"products": "prod_", "prices": "price_", "refunds": "re_", "balance_transactions": "txn_", "disputes": "dp_", "payouts": "po_", "files": "file_"}
	objects = map[string]string{"customers": "customer", "invoices": "invoice", "charges": "charge", "subscriptions": "subscription",
		"payment_intents": "payment_intent", "products": "product", "prices": "price", "refunds": "refund",
		"balance_transactions": "balance_transaction", "disputes": "dispute", "payouts": "payout", "files": "file"}
)

// ID is the id of the i-th object of entity (from 0).
func ID(entity string, i int) string { return fmt.Sprintf("%s%014d", prefixes[entity], i+1) }

// sizes are the number of objects of each entity for n customers: the
// others grow with n up to a hundred customers' worth.
func sizes(n int) map[string]int {
	m := min(n, 100)
	return map[string]int{"customers": n, "invoices": m, "charges": m, "subscriptions": max(m/2, 1), "payment_intents": m,
		"products": max(m/3, 1), "prices": max(m/3, 1), "refunds": max(m/5, 1), "balance_transactions": m, "disputes": max(m/10, 1),
		"payouts": max(m/10, 1), "files": max(m/10, 1)}
}

// generate fills every table, each object created a minute after the
// previous one of its entity.
func (s *Server) generate() {
	for entity, n := range sizes(s.cfg.customers) {
		t := &fakeserver.Table[object]{}
		s.tables[entity] = t
		for i := range n {
			at := epoch.Add(time.Duration(i) * time.Minute)
			t.Put(ID(entity, i), s.make(entity, i, at), at)
		}
	}
}

// list is a Stripe list object of data at url.
func list(url string, data []any) object {
	if data == nil {
		data = []any{}
	}
	return object{"object": "list", "data": data, "has_more": false, "url": url}
}

// make builds the i-th object of entity, created at, in Stripe's shape at
// Version (the fields the description requires, and those callers read).
func (s *Server) make(entity string, i int, at time.Time) object {
	n := sizes(s.cfg.customers)
	id, created := ID(entity, i), at.Unix()
	cus := ID("customers", i%n["customers"])
	o := object{"id": id, "object": objects[entity], "created": created, "livemode": false, "metadata": map[string]any{}}
	switch entity {
	case "customers":
		o["email"], o["name"] = fmt.Sprintf("customer%d@example.com", i+1), fmt.Sprintf("Customer %d", i+1)
		o["balance"], o["currency"], o["delinquent"], o["description"] = 0, "usd", false, nil
		o["invoice_prefix"], o["phone"], o["default_source"] = fmt.Sprintf("FAKE%04d", i%10000), nil, nil
		o["metadata"] = map[string]any{"plan": []string{"free", "pro", "team"}[i%3]}
	case "invoices":
		status := []string{"paid", "open", "draft", "void"}[i%4]
		amount := int64(1000 * (i%9 + 1))
		paid := map[bool]int64{true: amount}[status == "paid"]
		o["customer"], o["customer_email"], o["subscription"] = cus, fmt.Sprintf("customer%d@example.com", i%n["customers"]+1), nil
		o["status"], o["currency"], o["collection_method"] = status, "usd", "charge_automatically"
		o["amount_due"], o["amount_paid"], o["amount_remaining"], o["amount_shipping"] = amount, paid, amount-paid, 0
		o["total"], o["subtotal"], o["starting_balance"], o["attempt_count"], o["attempted"] = amount, amount, 0, 0, status == "paid"
		o["paid"], o["paid_out_of_band"], o["number"] = status == "paid", false, fmt.Sprintf("FAKE-%04d", i+1)
		o["automatic_tax"] = object{"enabled": false, "status": nil}
		o["default_tax_rates"], o["total_tax_amounts"] = []any{}, []any{}
		o["lines"] = list("/v1/invoices/"+id+"/lines", nil)
		o["payment_settings"] = object{"default_mandate": nil, "payment_method_options": nil, "payment_method_types": nil}
		o["period_start"], o["period_end"] = created, created
		o["post_payment_credit_notes_amount"], o["pre_payment_credit_notes_amount"] = 0, 0
		o["status_transitions"] = object{"finalized_at": nil, "marked_uncollectible_at": nil, "paid_at": nil, "voided_at": nil}
		o["due_date"], o["hosted_invoice_url"], o["invoice_pdf"] = nil, nil, nil
	case "charges":
		amount := int64(500 * (i%7 + 1))
		o["amount"], o["amount_captured"], o["amount_refunded"], o["currency"] = amount, amount, 0, "usd"
		o["billing_details"] = object{"address": nil, "email": nil, "name": nil, "phone": nil}
		o["captured"], o["disputed"], o["paid"], o["refunded"], o["status"] = true, false, true, false, "succeeded"
		o["customer"], o["payment_intent"], o["description"] = cus, ID("payment_intents", i%n["payment_intents"]), nil
		o["failure_code"], o["receipt_email"] = nil, nil
	case "subscriptions":
		o["customer"], o["status"], o["currency"], o["collection_method"] = cus, "active", "usd", "charge_automatically"
		o["automatic_tax"] = object{"enabled": false}
		o["billing_cycle_anchor"], o["start_date"], o["current_period_start"], o["current_period_end"] = created, created, created, created+30*86400
		o["cancel_at_period_end"], o["canceled_at"] = false, nil
		o["items"] = list("/v1/subscription_items?subscription="+id, nil)
	case "payment_intents":
		o["amount"], o["amount_received"], o["currency"], o["status"] = int64(500*(i%7+1)), int64(500*(i%7+1)), "usd", "succeeded"
		o["capture_method"], o["confirmation_method"], o["payment_method_types"] = "automatic", "automatic", []any{"card"}
		o["customer"], o["description"], o["latest_charge"], o["receipt_email"] = cus, nil, ID("charges", i%n["charges"]), nil
	case "products":
		o["name"], o["active"], o["description"], o["updated"] = fmt.Sprintf("Product %d", i+1), true, nil, created
		o["features"], o["images"], o["url"], o["shippable"] = []any{}, []any{}, nil, nil
	case "prices":
		o["active"], o["billing_scheme"], o["currency"], o["type"] = true, "per_unit", "usd", "recurring"
		o["product"], o["unit_amount"], o["nickname"], o["lookup_key"] = ID("products", i%n["products"]), int64(1000*(i%5+1)), nil, nil
		o["recurring"] = object{"interval": "month", "interval_count": 1, "usage_type": "licensed", "aggregate_usage": nil, "trial_period_days": nil}
	case "refunds":
		delete(o, "livemode")
		o["amount"], o["currency"], o["charge"], o["payment_intent"], o["reason"], o["status"] = int64(500), "usd", ID("charges", i%n["charges"]), nil, "requested_by_customer", "succeeded"
	case "balance_transactions":
		delete(o, "livemode")
		delete(o, "metadata")
		amount := int64(500 * (i%7 + 1))
		o["amount"], o["fee"], o["net"], o["currency"], o["available_on"] = amount, amount/30, amount-amount/30, "usd", created+2*86400
		o["fee_details"], o["reporting_category"], o["status"], o["type"] = []any{}, "charge", "available", "charge"
		o["source"], o["description"] = ID("charges", i%n["charges"]), nil
	case "disputes":
		o["amount"], o["currency"], o["charge"], o["payment_intent"], o["reason"], o["status"] = int64(500), "usd", ID("charges", i%n["charges"]), nil, "fraudulent", "needs_response"
		o["balance_transactions"], o["is_charge_refundable"], o["evidence"] = []any{}, false, object{}
		o["evidence_details"] = object{"due_by": created + 7*86400, "has_evidence": false, "past_due": false, "submission_count": 0}
	case "payouts":
		o["amount"], o["currency"], o["arrival_date"], o["automatic"], o["method"] = int64(10000*(i%3+1)), "usd", created+2*86400, true, "standard"
		o["reconciliation_status"], o["source_type"], o["status"], o["type"], o["destination"], o["description"] = "completed", "card", "paid", "bank_account", nil, "STRIPE PAYOUT"
	case "files":
		delete(o, "livemode")
		delete(o, "metadata")
		o["filename"], o["purpose"], o["size"], o["title"], o["type"] = fmt.Sprintf("evidence-%d.pdf", i+1), "dispute_evidence", s.cfg.fileSize, nil, "pdf"
		o["url"], o["expires_at"] = FileHost+"/v1/files/"+id+"/contents", nil
		o["links"] = list("/v1/file_links?file="+id, nil)
	}
	return o
}

// fileContent is a file's bytes: its id, repeated to its size.
func (s *Server) fileContent(id string) []byte {
	b := make([]byte, s.cfg.fileSize)
	for i := range b {
		b[i] = id[i%len(id)]
	}
	return b
}
