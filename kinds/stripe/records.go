package stripe

import "encoding/json"

// Records keep Stripe's JSON as the API returns it (at Version); the
// structs below type the fields most callers read. Times are Unix seconds
// (created); amounts are integers in the currency's smallest unit (cents);
// an expandable field (customer, …) is an id, or the object when asked to
// expand it, so it is kept raw.

// Customer is a customer (/v1/customers). A deleted customer is
// {id, object, deleted: true}.
type Customer struct {
	ID            string            `json:"id"`
	Object        string            `json:"object"`
	Created       int64             `json:"created"`
	Email         string            `json:"email,omitempty"`
	Name          string            `json:"name,omitempty"`
	Phone         string            `json:"phone,omitempty"`
	Description   string            `json:"description,omitempty"`
	Currency      string            `json:"currency,omitempty"`
	Balance       int64             `json:"balance"`
	Delinquent    bool              `json:"delinquent"`
	Livemode      bool              `json:"livemode"`
	InvoicePrefix string            `json:"invoice_prefix,omitempty"`
	Deleted       bool              `json:"deleted,omitempty"`
	Metadata      map[string]string `json:"metadata,omitempty"`
}

// Invoice is an invoice (/v1/invoices).
type Invoice struct {
	ID               string            `json:"id"`
	Object           string            `json:"object"`
	Created          int64             `json:"created"`
	Customer         json.RawMessage   `json:"customer,omitempty"`
	CustomerEmail    string            `json:"customer_email,omitempty"`
	Subscription     json.RawMessage   `json:"subscription,omitempty"`
	Status           string            `json:"status,omitempty"`
	Number           string            `json:"number,omitempty"`
	Currency         string            `json:"currency"`
	AmountDue        int64             `json:"amount_due"`
	AmountPaid       int64             `json:"amount_paid"`
	AmountRemaining  int64             `json:"amount_remaining"`
	Total            int64             `json:"total"`
	CollectionMethod string            `json:"collection_method,omitempty"`
	DueDate          int64             `json:"due_date,omitempty"`
	Paid             bool              `json:"paid"`
	HostedInvoiceURL string            `json:"hosted_invoice_url,omitempty"`
	InvoicePDF       string            `json:"invoice_pdf,omitempty"`
	Livemode         bool              `json:"livemode"`
	Metadata         map[string]string `json:"metadata,omitempty"`
}

// Charge is a charge (/v1/charges).
type Charge struct {
	ID             string            `json:"id"`
	Object         string            `json:"object"`
	Created        int64             `json:"created"`
	Amount         int64             `json:"amount"`
	AmountCaptured int64             `json:"amount_captured"`
	AmountRefunded int64             `json:"amount_refunded"`
	Currency       string            `json:"currency"`
	Customer       json.RawMessage   `json:"customer,omitempty"`
	PaymentIntent  json.RawMessage   `json:"payment_intent,omitempty"`
	Description    string            `json:"description,omitempty"`
	Status         string            `json:"status"`
	Paid           bool              `json:"paid"`
	Captured       bool              `json:"captured"`
	Refunded       bool              `json:"refunded"`
	Disputed       bool              `json:"disputed"`
	FailureCode    string            `json:"failure_code,omitempty"`
	ReceiptEmail   string            `json:"receipt_email,omitempty"`
	Livemode       bool              `json:"livemode"`
	Metadata       map[string]string `json:"metadata,omitempty"`
}

// Subscription is a subscription (/v1/subscriptions).
type Subscription struct {
	ID                 string            `json:"id"`
	Object             string            `json:"object"`
	Created            int64             `json:"created"`
	Customer           json.RawMessage   `json:"customer"`
	Status             string            `json:"status"`
	Currency           string            `json:"currency"`
	CollectionMethod   string            `json:"collection_method"`
	CurrentPeriodStart int64             `json:"current_period_start"`
	CurrentPeriodEnd   int64             `json:"current_period_end"`
	CancelAtPeriodEnd  bool              `json:"cancel_at_period_end"`
	CanceledAt         int64             `json:"canceled_at,omitempty"`
	StartDate          int64             `json:"start_date"`
	Items              json.RawMessage   `json:"items,omitempty"`
	Livemode           bool              `json:"livemode"`
	Metadata           map[string]string `json:"metadata,omitempty"`
}

// PaymentIntent is a PaymentIntent (/v1/payment_intents).
type PaymentIntent struct {
	ID             string            `json:"id"`
	Object         string            `json:"object"`
	Created        int64             `json:"created"`
	Amount         int64             `json:"amount"`
	AmountReceived int64             `json:"amount_received"`
	Currency       string            `json:"currency"`
	Customer       json.RawMessage   `json:"customer,omitempty"`
	Description    string            `json:"description,omitempty"`
	Status         string            `json:"status"`
	LatestCharge   json.RawMessage   `json:"latest_charge,omitempty"`
	ReceiptEmail   string            `json:"receipt_email,omitempty"`
	Livemode       bool              `json:"livemode"`
	Metadata       map[string]string `json:"metadata,omitempty"`
}

// Product is a product (/v1/products).
type Product struct {
	ID          string            `json:"id"`
	Object      string            `json:"object"`
	Created     int64             `json:"created"`
	Updated     int64             `json:"updated"`
	Name        string            `json:"name"`
	Description string            `json:"description,omitempty"`
	Active      bool              `json:"active"`
	Shippable   bool              `json:"shippable,omitempty"`
	URL         string            `json:"url,omitempty"`
	Livemode    bool              `json:"livemode"`
	Metadata    map[string]string `json:"metadata,omitempty"`
}

// Price is a price of a product (/v1/prices).
type Price struct {
	ID         string            `json:"id"`
	Object     string            `json:"object"`
	Created    int64             `json:"created"`
	Product    json.RawMessage   `json:"product"`
	Active     bool              `json:"active"`
	Currency   string            `json:"currency"`
	UnitAmount int64             `json:"unit_amount,omitempty"`
	Type       string            `json:"type"`
	Nickname   string            `json:"nickname,omitempty"`
	LookupKey  string            `json:"lookup_key,omitempty"`
	Recurring  json.RawMessage   `json:"recurring,omitempty"`
	Livemode   bool              `json:"livemode"`
	Metadata   map[string]string `json:"metadata,omitempty"`
}

// Refund is a refund of a charge (/v1/refunds).
type Refund struct {
	ID            string            `json:"id"`
	Object        string            `json:"object"`
	Created       int64             `json:"created"`
	Amount        int64             `json:"amount"`
	Currency      string            `json:"currency"`
	Charge        json.RawMessage   `json:"charge,omitempty"`
	PaymentIntent json.RawMessage   `json:"payment_intent,omitempty"`
	Reason        string            `json:"reason,omitempty"`
	Status        string            `json:"status,omitempty"`
	Metadata      map[string]string `json:"metadata,omitempty"`
}

// BalanceTransaction is a movement of the balance
// (/v1/balance_transactions).
type BalanceTransaction struct {
	ID                string          `json:"id"`
	Object            string          `json:"object"`
	Created           int64           `json:"created"`
	AvailableOn       int64           `json:"available_on"`
	Amount            int64           `json:"amount"`
	Fee               int64           `json:"fee"`
	Net               int64           `json:"net"`
	Currency          string          `json:"currency"`
	Description       string          `json:"description,omitempty"`
	Source            json.RawMessage `json:"source,omitempty"`
	Status            string          `json:"status"`
	Type              string          `json:"type"`
	ReportingCategory string          `json:"reporting_category"`
}

// Dispute is a dispute of a charge (/v1/disputes).
type Dispute struct {
	ID            string            `json:"id"`
	Object        string            `json:"object"`
	Created       int64             `json:"created"`
	Amount        int64             `json:"amount"`
	Currency      string            `json:"currency"`
	Charge        json.RawMessage   `json:"charge"`
	PaymentIntent json.RawMessage   `json:"payment_intent,omitempty"`
	Reason        string            `json:"reason"`
	Status        string            `json:"status"`
	Livemode      bool              `json:"livemode"`
	Metadata      map[string]string `json:"metadata,omitempty"`
}

// Payout is a payout to a bank account or card (/v1/payouts).
type Payout struct {
	ID          string            `json:"id"`
	Object      string            `json:"object"`
	Created     int64             `json:"created"`
	ArrivalDate int64             `json:"arrival_date"`
	Amount      int64             `json:"amount"`
	Currency    string            `json:"currency"`
	Description string            `json:"description,omitempty"`
	Destination json.RawMessage   `json:"destination,omitempty"`
	Method      string            `json:"method"`
	Status      string            `json:"status"`
	Type        string            `json:"type"`
	Automatic   bool              `json:"automatic"`
	Livemode    bool              `json:"livemode"`
	Metadata    map[string]string `json:"metadata,omitempty"`
}

// Event is an event (/v1/events): Type ("customer.updated") and the
// object as it became (Data.Object), with the fields it changed from
// (Data.PreviousAttributes) on an update.
type Event struct {
	ID         string    `json:"id"`
	Object     string    `json:"object"`
	Created    int64     `json:"created"`
	Type       string    `json:"type"`
	APIVersion string    `json:"api_version,omitempty"`
	Livemode   bool      `json:"livemode"`
	Data       EventData `json:"data"`
}

// EventData is an event's object and, on an update, the previous values
// of the fields that changed.
type EventData struct {
	Object             json.RawMessage `json:"object"`
	PreviousAttributes json.RawMessage `json:"previous_attributes,omitempty"`
}

// File is a file uploaded to Stripe (/v1/files); its bytes are at URL, on
// files.stripe.com (Download).
type File struct {
	ID        string `json:"id"`
	Object    string `json:"object"`
	Created   int64  `json:"created"`
	ExpiresAt int64  `json:"expires_at,omitempty"`
	Filename  string `json:"filename,omitempty"`
	Purpose   string `json:"purpose"`
	Size      int64  `json:"size"`
	Title     string `json:"title,omitempty"`
	Type      string `json:"type,omitempty"`
	URL       string `json:"url,omitempty"`
}

// Balance is the account's balance (/v1/balance): funds by currency.
type Balance struct {
	Object    string         `json:"object"`
	Available []BalanceFunds `json:"available"`
	Pending   []BalanceFunds `json:"pending"`
	Livemode  bool           `json:"livemode"`
}

// BalanceFunds is an amount in one currency.
type BalanceFunds struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
}
