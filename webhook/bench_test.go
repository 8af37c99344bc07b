package webhook_test

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/store"
	"github.com/tributary-dev/tributary/webhook"
)

// BenchmarkDelivery commits events on a SQLite store (10 connectors) at
// 12,000 a minute while one deliverer sends them to a loopback receiver,
// and reports the latency from each event's commit to the receiver's 2xx
// (p50, p99) and the events per minute delivered.
//
//	go test ./webhook -run '^$' -bench Delivery -benchtime 10000x
func BenchmarkDelivery(b *testing.B) { benchDelivery(b, 12000) }

// BenchmarkDeliveryBacklog commits events as fast as it can: the events
// per minute are then one process's ceiling (the latencies grow with the
// backlog).
func BenchmarkDeliveryBacklog(b *testing.B) { benchDelivery(b, 0) }

func benchDelivery(b *testing.B, perMinute int) {
	st := openStore(b, b.TempDir()+"/bench.db")
	var mu sync.Mutex
	var lat []time.Duration
	rc := newReceiver(b, func(*http.Request) int { return http.StatusOK })
	ep := webhook.Endpoint{Tenant: "app", URL: rc.URL, Secret: secret}
	d := newDeliverer(b, st, []webhook.Endpoint{ep}, func(c *webhook.DelivererConfig) {
		c.Poll = 50 * time.Millisecond
		c.Batch = 32
		c.Observe = func(o webhook.Outcome) {
			if o.State == store.DeliveryDelivered {
				mu.Lock()
				lat = append(lat, o.Latency)
				mu.Unlock()
			}
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = d.Run(ctx) }()
	conns := []string{"c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9"}
	b.ResetTimer()
	start := time.Now()
	var tick *time.Ticker
	if perMinute > 0 {
		tick = time.NewTicker(time.Minute / time.Duration(perMinute))
		defer tick.Stop()
	}
	for i := range b.N {
		if tick != nil {
			<-tick.C
		}
		ev, err := webhook.NewEvent(webhook.SyncCompleted, "app", conns[i%len(conns)], time.Now(), map[string]any{"seq": i}, []webhook.Endpoint{ep})
		if err != nil {
			b.Fatal(err)
		}
		if err := st.AddEvent(ctx, ev); err != nil {
			b.Fatal(err)
		}
		d.Notify()
	}
	for {
		mu.Lock()
		n := len(lat)
		mu.Unlock()
		if n >= b.N {
			break
		}
		time.Sleep(time.Millisecond)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	cancel()
	<-done
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Milliseconds()), "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Milliseconds()), "p99-ms")
	b.ReportMetric(float64(b.N)/elapsed.Minutes(), "events/min")
}
