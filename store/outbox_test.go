package store_test

// dropV5 turns a current PostgreSQL store's tables into version 4's (the
// copies' last synchronization and the outbox removed); with dropV4 after
// it, into version 3's.
var dropV5 = []string{
	"ALTER TABLE tributary_entities DROP COLUMN last_sync",
	"DROP TABLE tributary_events",
	"DROP TABLE tributary_deliveries",
	"DROP TABLE tributary_webhook_endpoints",
}
