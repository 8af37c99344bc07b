package replica_test

import (
	"context"
	"os"
	"testing"

	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/replica"
)

func TestProfSync(t *testing.T) {
	if os.Getenv("PROF") == "" {
		t.Skip()
	}
	srv := zendesktest.New(zendesktest.WithTickets(20000))
	defer srv.Close()
	r, err := replica.Open(context.Background(), open(t, srv), replica.SQLite(t.TempDir()+"/p.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Sync(context.Background(), "tickets"); err != nil {
		t.Fatal(err)
	}
}
