package stripe

import (
	"context"

	"github.com/tributary-dev/tributary"
)

// ListParams page a list: Limit (1 to 100) and StartingAfter (the id of
// the previous page's last object). Zero fields are not sent; the
// entities' filters go through the generic tributary.Params.
type ListParams struct {
	Limit         int    `param:"limit"`
	StartingAfter string `param:"starting_after"`
}

// SearchParams are the params of the Search API: Query (Stripe's search
// language) is required; Page is the previous answer's next_page.
type SearchParams struct {
	Query string `param:"query"`
	Limit int    `param:"limit"`
	Page  string `param:"page"`
}

// Entity is a typed handle on one entity with a get by one id.
type Entity[T any] struct {
	tributary.Handle[T, ListParams]
	idParam string
}

// Get reads the object with this id.
func (e Entity[T]) Get(ctx context.Context, id string) (T, error) {
	return e.Handle.Get(ctx, tributary.Params{e.idParam: id})
}

// Search is the typed handle on the entity's Search API (api_search).
func (e Entity[T]) Search() tributary.Handle[T, SearchParams] {
	return tributary.Handle[T, SearchParams]{Conn: e.Conn, Entity: e.Entity}
}

func handle[T any](c *Client, entity, idParam string) Entity[T] {
	return Entity[T]{Handle: tributary.Handle[T, ListParams]{Conn: c, Entity: entity}, idParam: idParam}
}

// Customers is the typed handle on customers.
func (c *Client) Customers() Entity[Customer] { return handle[Customer](c, "customers", "customer") }

// Invoices is the typed handle on invoices.
func (c *Client) Invoices() Entity[Invoice] { return handle[Invoice](c, "invoices", "invoice") }

// Charges is the typed handle on charges.
func (c *Client) Charges() Entity[Charge] { return handle[Charge](c, "charges", "charge") }

// Subscriptions is the typed handle on subscriptions.
func (c *Client) Subscriptions() Entity[Subscription] {
	return handle[Subscription](c, "subscriptions", "subscription_exposed_id")
}

// PaymentIntents is the typed handle on payment_intents.
func (c *Client) PaymentIntents() Entity[PaymentIntent] {
	return handle[PaymentIntent](c, "payment_intents", "intent")
}

// Products is the typed handle on products.
func (c *Client) Products() Entity[Product] { return handle[Product](c, "products", "id") }

// Prices is the typed handle on prices.
func (c *Client) Prices() Entity[Price] { return handle[Price](c, "prices", "price") }

// Refunds is the typed handle on refunds.
func (c *Client) Refunds() Entity[Refund] { return handle[Refund](c, "refunds", "refund") }

// Disputes is the typed handle on disputes.
func (c *Client) Disputes() Entity[Dispute] { return handle[Dispute](c, "disputes", "dispute") }

// Payouts is the typed handle on payouts.
func (c *Client) Payouts() Entity[Payout] { return handle[Payout](c, "payouts", "payout") }

// BalanceTransactions is the typed handle on balance_transactions.
func (c *Client) BalanceTransactions() Entity[BalanceTransaction] {
	return handle[BalanceTransaction](c, "balance_transactions", "id")
}

// Events is the typed handle on events.
func (c *Client) Events() Entity[Event] { return handle[Event](c, "events", "id") }

// Files is the typed handle on files (Download for the bytes).
func (c *Client) Files() Entity[File] { return handle[File](c, "files", "file") }

// Balance reads the account's balance.
func (c *Client) Balance(ctx context.Context) (Balance, error) {
	return tributary.Handle[Balance, tributary.Params]{Conn: c, Entity: "balance"}.Get(ctx, nil)
}
