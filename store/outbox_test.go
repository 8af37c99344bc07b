package store_test

import "slices"

// dropV5 turns a current PostgreSQL store's tables into version 4's (the
// connect sessions, the copies' last synchronization and the outbox
// removed); with dropV4 after it, into version 3's.
var dropV5 = append(slices.Clone(dropV8), []string{
	dropV7Index,
	dropV7,
	dropV6,
	"DROP TABLE tributary_events",
	"DROP TABLE tributary_deliveries",
	"DROP TABLE tributary_webhook_endpoints",
}...)
