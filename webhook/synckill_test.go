package webhook_test

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/zendesk"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/store"
	"github.com/tributary-dev/tributary/webhook"
)

// The sync kill test: a child process (this test binary) keeps a Zendesk
// copy current with a replica.Worker whose claimed syncs write their
// sync.completed event in their last transaction (store.WithEvent), and
// prints a line once each sync has returned. The parent changes the
// source and kills the child with SIGKILL at random moments, mid-sync
// included. An event exists if and only if its sync committed: there are
// at least as many events as syncs the child saw end, and at most one
// more per kill (a sync that committed just before its process died).
// Every event is then delivered, each once after dedup by webhook-id.

const syncKillEnvURL, syncKillEnvDB, syncKillEnvHook = "TRIBUTARY_SYNCKILL_URL", "TRIBUTARY_SYNCKILL_DB", "TRIBUTARY_SYNCKILL_HOOK"

// TestSyncKillChild is the child: it syncs until it is killed.
func TestSyncKillChild(t *testing.T) {
	url, db, hook := os.Getenv(syncKillEnvURL), os.Getenv(syncKillEnvDB), os.Getenv(syncKillEnvHook)
	if url == "" {
		t.Skip("the child of TestKilledSyncEmitsEventIffCommitted")
	}
	ctx := context.Background()
	st := openStore(t, db)
	ep := webhook.Endpoint{Tenant: "app", URL: hook, Secret: secret}
	open := func(ctx context.Context, name string) (tributary.Connector, error) {
		return kinds.Open("zendesk-support", map[string]any{"subdomain": zendesktest.DefaultSubdomain, "email": zendesktest.DefaultEmail, "api_token": zendesktest.DefaultAPIToken},
			tributary.WithBaseURL(url), zendesk.WithExportRateLimit(0, 0), zendesk.WithAPIRateLimit(0, 0))
	}
	out := bufio.NewWriter(os.Stdout)
	w := replica.NewWorker(st, open, replica.WithEvery(0), replica.WithPoll(5*time.Millisecond), replica.WithLeaseTTL(time.Second),
		replica.WithReplicaOptions(replica.WithReconcile(0)),
		replica.WithLoadOptions(func(connector, entity string) []store.LoadOption {
			return []store.LoadOption{store.WithEvent(func(d store.SyncDone) (*store.Event, error) {
				return webhook.NewEvent(webhook.SyncCompleted, "app", connector, time.Now(),
					map[string]any{"connector_id": connector, "entity": entity, "cursor": d.Cursor}, []webhook.Endpoint{ep})
			})}
		}),
		replica.WithReport(func(connector string, rep replica.EntityReport, err error) {
			if err == nil {
				fmt.Fprintf(out, "synced %s %s\n", connector, rep.Entity)
				out.Flush()
			}
		}))
	for {
		if _, err := w.RunOnce(ctx); err != nil {
			os.Exit(5)
		}
	}
}

func TestKilledSyncEmitsEventIffCommitted(t *testing.T) {
	killSyncs(t, t.TempDir()+"/synckill.db", crashTrials(4))
}

func TestKilledSyncEmitsEventIffCommittedPostgres(t *testing.T) {
	killSyncs(t, pgtest.DSN(t), crashTrials(3))
}

func killSyncs(t *testing.T, db string, trials int) {
	ctx := context.Background()
	fake := zendesktest.New(zendesktest.WithTickets(300))
	defer fake.Close()
	st := openStore(t, db)
	if err := st.Register(ctx, "zd", "tickets", "users", "ticket_comments"); err != nil {
		t.Fatal(err)
	}
	rc := newReceiver(t, func(*http.Request) int { return http.StatusOK })
	ep := webhook.Endpoint{Tenant: "app", URL: rc.URL, Secret: secret}
	rng := rand.New(rand.NewPCG(7, 8))
	synced := 0
	for trial := range trials {
		fake.Clock().Advance(5 * time.Minute)
		ids := fake.IDs("tickets")
		for range 30 {
			if _, err := fake.AddComment(ids[rng.IntN(len(ids))]); err != nil {
				t.Fatal(err)
			}
		}
		if err := fake.Delete("tickets", ids[rng.IntN(len(ids))]); err != nil {
			t.Fatal(err)
		}
		fake.Clock().Advance(2 * time.Minute)
		cmd := exec.Command(os.Args[0], "-test.run=^TestSyncKillChild$")
		cmd.Env = append(os.Environ(), syncKillEnvURL+"="+fake.URL, syncKillEnvDB+"="+db, syncKillEnvHook+"="+rc.URL)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines, first := make(chan int), make(chan struct{})
		go func() {
			n := 0
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				if strings.HasPrefix(sc.Text(), "synced ") {
					if n++; n == 1 {
						close(first)
					}
				}
			}
			lines <- n
		}()
		// Once a first sync has ended (however slow the machine, -race
		// included), a random moment of the syncs that follow; every
		// other run, any moment from the start (the first full walks).
		if trial%2 == 1 {
			select {
			case <-first:
			case <-time.After(time.Minute):
			}
		}
		time.Sleep(time.Duration(rng.IntN(800)) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		n := <-lines
		err = cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("trial %d: the child ended on its own: %v", trial, err)
		}
		synced += n
		time.Sleep(1100 * time.Millisecond) // the dead child's claims lapse
	}
	// The events the store holds: every one is delivered, once after
	// dedup.
	events := countEvents(t, db)
	if events < synced || events > synced+trials {
		t.Fatalf("%d sync.completed events for %d syncs seen to end and %d kills: want between %d and %d", events, synced, trials, synced, synced+trials)
	}
	d := newDeliverer(t, st, []webhook.Endpoint{ep}, func(c *webhook.DelivererConfig) { c.ClaimTTL = crashClaimTTL })
	if !runUntil(t, d, 60*time.Second, func() bool { return len(dedupe(rc.received())) == events }) {
		t.Fatalf("%d of %d events delivered", len(dedupe(rc.received())), events)
	}
	if synced < trials/2 {
		t.Errorf("only %d syncs ended in %d runs: the kills landed too early to test much", synced, trials)
	}
	t.Logf("%d kills: %d syncs seen to end, %d events committed and delivered (%d requests)", trials, synced, events, len(rc.received()))
}

// countEvents counts the sync.completed events of the store at target.
func countEvents(t *testing.T, target string) int {
	t.Helper()
	driver, dsn := "sqlite", "file:"+target
	if strings.HasPrefix(target, "postgres://") {
		driver, dsn = "pgx", target
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM tributary_events WHERE type = 'sync.completed'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
