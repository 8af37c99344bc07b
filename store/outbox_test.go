package store_test

// dropV5 turns a current PostgreSQL store's tables into version 3's (the
// outbox removed); version 4's change feed is another branch's.
var dropV5 = []string{
	"DROP TABLE tributary_events",
	"DROP TABLE tributary_deliveries",
	"DROP TABLE tributary_webhook_endpoints",
}
