// Package reliability holds the library's reliability suite: tests, and no
// code of its own, that drive every connector kind against its in-process
// fake while the fake misbehaves.
//
// The suite checks, for each kind:
//
//   - faults: a walk of 10,000 records through seeded random rate limits,
//     server errors and connections cut mid-body delivers every record
//     exactly once and in order, or ends with a typed *tributary.Error
//     (the retry budget, Salesforce's quota); so does a walk of Intercom
//     companies past the list's limit, through scroll restarts;
//   - downloads: a 64 MiB file whose connection is cut every MiB arrives
//     intact through ranged resumes (byte ranges too, and under API faults),
//     and a file that changes between attempts fails with
//     download.ErrChanged instead of being spliced;
//   - cancellation: cancelling the context mid-walk, mid-retry-wait and
//     mid-download, or breaking out of a walk, returns within 100 ms, and no
//     goroutine outlives the tests (goleak);
//   - rate budgets: a client-side rate limit holds when one connector is used
//     from many goroutines at once, and a rate-limit wait longer than the
//     retry policy or the deadline allows is refused at once.
//
// Run it with
//
//	go test -race -v ./internal/reliability/
//
// The verbose log prints the per-kind figures (faults injected and
// survived, records, timings). Environment variables:
// TRIBUTARY_RELIABILITY_KINDS=github,gong runs only those kinds;
// TRIBUTARY_RELIABILITY_FULL=1 gives every kind's download 64 MiB (slow:
// most fakes generate the file anew for each ranged request).
package reliability
