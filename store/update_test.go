package store_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/store"
)

// UpdateConnector replaces the sealed credentials, the replication
// configuration or both at version+1, and forgets the failures of the
// connector's copies (not another connector's) in the same transaction;
// a change of nothing, a replication configuration that is not JSON and
// an unknown id change nothing.
func TestUpdateConnector(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, open func() *store.Store) {
		ctx := context.Background()
		st := open()
		repl := []byte(`{"start_date":"2024-01-01T00:00:00Z"}`)
		if _, err := st.CreateConnector(ctx, store.Connector{ID: "c", Tenant: "acme", Kind: "intercom", Sealed: sealedBytes, Replication: repl}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.CreateConnector(ctx, store.Connector{ID: "other", Tenant: "acme", Kind: "intercom", Sealed: []byte("x")}); err != nil {
			t.Fatal(err)
		}
		if err := st.Register(ctx, "c", "contacts", "conversations", "companies"); err != nil {
			t.Fatal(err)
		}
		if err := st.Register(ctx, "other", "contacts"); err != nil {
			t.Fatal(err)
		}
		fail := func(connector, entity string, class store.FailureClass) {
			t.Helper()
			if _, err := st.RecordFailure(ctx, connector, entity, class, "refused", doubling); err != nil {
				t.Fatal(err)
			}
		}
		fail("c", "contacts", store.FailureAuth)
		fail("c", "conversations", store.FailureTransient)
		fail("other", "contacts", store.FailureAuth)

		// Nothing to change, bad JSON, an unknown id: errors, and nothing
		// changed.
		for _, c := range []struct {
			name string
			id   string
			ch   store.ConnectorChange
			want error
		}{
			{"nothing", "c", store.ConnectorChange{}, store.ErrInvalid},
			{"bad json", "c", store.ConnectorChange{Sealed: []byte("new"), Replication: []byte(`{"a":`)}, store.ErrInvalid},
			{"unknown", "nope", store.ConnectorChange{Sealed: []byte("new")}, store.ErrNotFound},
			{"not text", "c\x00", store.ConnectorChange{Sealed: []byte("new")}, store.ErrNotFound},
		} {
			if _, n, err := st.UpdateConnector(ctx, c.id, c.ch); !errors.Is(err, c.want) || n != 0 {
				t.Errorf("%s: %d, %v; want %v", c.name, n, err, c.want)
			}
		}
		if got, err := st.Connector(ctx, "c"); err != nil || got.Version != 1 || !bytes.Equal(got.Sealed, sealedBytes) {
			t.Fatalf("after the refused updates: %v %v", got, err)
		}
		if f, err := st.CopyFailure(ctx, "c", "contacts"); err != nil || f == nil {
			t.Fatalf("a refused update reset the failures: %+v %v", f, err)
		}

		// The credentials only.
		creds := []byte{0, 0xff, 'n', 'e', 'w'}
		got, n, err := st.UpdateConnector(ctx, "c", store.ConnectorChange{Sealed: creds})
		if err != nil || n != 2 || got.Version != 2 || !bytes.Equal(got.Sealed, creds) || !bytes.Equal(got.Replication, repl) ||
			got.Tenant != "acme" || got.Kind != "intercom" || got.Created.IsZero() {
			t.Fatalf("update of the credentials: %v, %d reset, %v", got, n, err)
		}
		other := open() // another process reads it
		if read, err := other.Connector(ctx, "c"); err != nil || read.Version != 2 || !bytes.Equal(read.Sealed, creds) || !bytes.Equal(read.Replication, repl) {
			t.Fatalf("read back: %v %v", read, err)
		}
		for _, e := range []string{"contacts", "conversations", "companies"} {
			if f, err := other.CopyFailure(ctx, "c", e); err != nil || f != nil {
				t.Errorf("%s after the update: %+v %v", e, f, err)
			}
		}
		if f, err := other.CopyFailure(ctx, "other", "contacts"); err != nil || f == nil || f.Class != store.FailureAuth {
			t.Errorf("another connector's failure: %+v %v", f, err)
		}
		// Given out again at once.
		if c, err := st.ClaimNext(ctx, "w", time.Minute, time.Hour); err != nil || c == nil || c.Connector != "c" {
			t.Fatalf("ClaimNext after the update: %+v %v", c, err)
		} else if err := c.Release(ctx); err != nil {
			t.Fatal(err)
		}

		// The replication configuration only; the credentials stay.
		fail("c", "companies", store.FailureConfig)
		repl2 := []byte(`{"start_date":"2020-01-01T00:00:00Z"}`)
		got, n, err = st.UpdateConnector(ctx, "c", store.ConnectorChange{Replication: repl2})
		if err != nil || n != 1 || got.Version != 3 || !bytes.Equal(got.Sealed, creds) || !bytes.Equal(got.Replication, repl2) {
			t.Fatalf("update of the replication: %v, %d reset, %v", got, n, err)
		}
		// Both, without failures to reset.
		got, n, err = st.UpdateConnector(ctx, "c", store.ConnectorChange{Sealed: []byte("third"), Replication: []byte(`{}`)})
		if err != nil || n != 0 || got.Version != 4 || string(got.Sealed) != "third" || string(got.Replication) != "{}" {
			t.Fatalf("update of both: %v, %d reset, %v", got, n, err)
		}
		// Printing the change never shows the sealed bytes.
		if s := fmt.Sprintf("%v %+v %#v %x %s", store.ConnectorChange{Sealed: []byte("SECRETBYTES")}, store.ConnectorChange{Sealed: []byte("SECRETBYTES")},
			store.ConnectorChange{Sealed: []byte("SECRETBYTES")}, store.ConnectorChange{Sealed: []byte("SECRETBYTES")}, store.ConnectorChange{Sealed: []byte("SECRETBYTES")}); bytes.Contains([]byte(s), []byte("SECRET")) ||
			bytes.Contains([]byte(s), []byte(fmt.Sprintf("%x", "SECRETBYTES"))) {
			t.Errorf("printed: %s", s)
		}
	})
}

// An update waits for a LockConnector on the connector (an OAuth refresh
// in another process) and then replaces what it saved.
func TestUpdateConnectorWaitsForTheLock(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, open func() *store.Store) {
		ctx := context.Background()
		st, other := open(), open()
		if _, err := st.CreateConnector(ctx, store.Connector{ID: "c", Tenant: "acme", Kind: "zendesk-support", Sealed: []byte("old")}); err != nil {
			t.Fatal(err)
		}
		locked, release := make(chan struct{}), make(chan struct{})
		done := make(chan error, 1)
		go func() {
			_, err := st.LockConnector(ctx, "c", func(ctx context.Context, c *store.Connector) ([]byte, error) {
				close(locked)
				<-release
				return []byte("refreshed"), nil
			})
			done <- err
		}()
		<-locked
		updated := make(chan error, 1)
		go func() {
			_, _, err := other.UpdateConnector(ctx, "c", store.ConnectorChange{Sealed: []byte("patched")})
			updated <- err
		}()
		select {
		case err := <-updated:
			t.Fatalf("the update did not wait for the lock: %v", err)
		case <-time.After(200 * time.Millisecond):
		}
		close(release)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if err := <-updated; err != nil {
			t.Fatal(err)
		}
		got, err := st.Connector(ctx, "c")
		if err != nil || string(got.Sealed) != "patched" || got.Version != 3 {
			t.Fatalf("after the lock and the update: %v %v", got, err)
		}
	})
}
