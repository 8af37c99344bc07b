// Package secrets holds the library's cross-kind security tests and
// nothing else: that no secret of any kind's credentials reaches an error,
// a log line or a printed value, even when the source echoes what it
// received (secrets_test.go), and that credentials are only ever sent to
// the connector's own origin (containment_test.go).
package secrets
