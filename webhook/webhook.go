// Package webhook sends the service's events to the endpoints of its API
// clients, signed per the Standard Webhooks specification
// (https://www.standardwebhooks.com): each request carries the headers
// webhook-id (the event's id, the receiver's idempotency key),
// webhook-timestamp (Unix seconds) and webhook-signature ("v1," and the
// base64 of HMAC-SHA256(secret, id + "." + timestamp + "." + body)), and a
// JSON body {"type", "timestamp", "data"}.
//
// Events live in the store's outbox (store.Event), written in the
// transaction of their cause; a Deliverer claims their deliveries from the
// store, sends them and records the outcome, at least once, in order per
// connector and endpoint, with exponential back-off and jitter. Several
// processes sharing one PostgreSQL store share the deliveries.
package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-dev/tributary/store"
)

// The event types the service sends.
const (
	ConnectorCreated        = "connector.created"
	ConnectorDeleted        = "connector.deleted"
	ConnectorNeedsReconnect = "connector.needs_reconnect"
	SyncCompleted           = "sync.completed"
	SyncFailed              = "sync.failed"
	// ConnectCompleted: an end user finished a connect session; its data
	// names the connector created or reconnected.
	ConnectCompleted = "connect.completed"
	// ConnectFailed: a connect session ended without a connector (the
	// user declined, the vendor refused the code, ...); its data says why.
	ConnectFailed = "connect.failed"
)

// Types lists the event types, for validating subscriptions.
func Types() []string {
	return []string{ConnectorCreated, ConnectorDeleted, ConnectorNeedsReconnect, SyncCompleted, SyncFailed, ConnectCompleted, ConnectFailed}
}

// SecretPrefix starts every endpoint secret: "whsec_" and the base64 of
// the key's bytes.
const SecretPrefix = "whsec_"

// ErrSecret: an endpoint secret is not "whsec_" and the base64 of 24 to 64
// bytes. The error never includes the secret.
var ErrSecret = errors.New(`webhook: a secret is "whsec_" followed by the base64 of 24 to 64 random bytes`)

// ParseSecret returns the key of a secret in "whsec_<base64>" form.
func ParseSecret(secret string) ([]byte, error) {
	rest, ok := strings.CutPrefix(secret, SecretPrefix)
	if !ok {
		return nil, ErrSecret
	}
	key, err := base64.StdEncoding.DecodeString(rest)
	if err != nil || len(key) < 24 || len(key) > 64 {
		return nil, ErrSecret
	}
	return key, nil
}

// NewSecret returns a new random secret (32 bytes) in "whsec_" form.
func NewSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(b), nil
}

// Sign returns the webhook-signature header of a message: "v1," and the
// base64 of HMAC-SHA256(key, id + "." + timestamp + "." + body).
func Sign(key []byte, id string, timestamp time.Time, body []byte) string {
	m := hmac.New(sha256.New, key)
	io.WriteString(m, id+"."+strconv.FormatInt(timestamp.Unix(), 10)+".")
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// Endpoint is one webhook endpoint of an API client.
type Endpoint struct {
	// Tenant is the API client whose events the endpoint receives.
	Tenant string
	// URL is where events are POSTed (http or https, no user info).
	URL string
	// Secret signs the requests, in "whsec_<base64>" form.
	Secret string
	// Events are the event types sent to it ("sync.*" matches every sync
	// event); empty: every type.
	Events []string
	// ChangesOnly sends sync.completed only for the syncs that inserted,
	// updated or deleted a record (NewSyncCompleted's changed): a copy
	// synchronized every few minutes otherwise sends an event each time,
	// most of them saying nothing changed. Other types are unaffected.
	ChangesOnly bool
}

// String describes the endpoint without its secret.
func (e Endpoint) String() string {
	return fmt.Sprintf("webhook.Endpoint{ID: %s, Tenant: %q, URL: %q, Events: %q, ChangesOnly: %v, Secret: [REDACTED]}", e.ID(), e.Tenant, redactURL(e.URL), e.Events, e.ChangesOnly)
}

// Format prints String for every verb, so that no verb prints the secret.
func (e Endpoint) Format(f fmt.State, _ rune) { io.WriteString(f, e.String()) }

// LogValue describes the endpoint to log/slog without its secret.
func (e Endpoint) LogValue() slog.Value {
	return slog.GroupValue(slog.String("id", e.ID()), slog.String("tenant", e.Tenant), slog.String("url", redactURL(e.URL)))
}

// ID names the endpoint in the store: "ep_" and a digest of its tenant and
// URL, so that it stays the same across restarts and processes.
func (e Endpoint) ID() string {
	h := sha256.Sum256([]byte(e.Tenant + "\x00" + e.URL))
	return "ep_" + hex.EncodeToString(h[:8])
}

// Check validates the endpoint; its errors name the URL without its query,
// never the secret.
func (e Endpoint) Check() error {
	u, err := url.Parse(e.URL)
	switch {
	case e.Tenant == "":
		return errors.New("webhook: an endpoint needs a tenant (its API client)")
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return fmt.Errorf("webhook: endpoint %q: the URL must be http:// or https:// with a host", redactURL(e.URL))
	case u.User != nil:
		return fmt.Errorf("webhook: endpoint %q: the URL must not carry user info (it would be sent and logged)", redactURL(e.URL))
	}
	if _, err := ParseSecret(e.Secret); err != nil {
		return fmt.Errorf("webhook: endpoint %q: %w", redactURL(e.URL), err)
	}
	for _, t := range e.Events {
		if !knownPattern(t) {
			return fmt.Errorf("webhook: endpoint %q: unknown event type %q (types: %s, or a prefix such as sync.*)", redactURL(e.URL), t, strings.Join(Types(), ", "))
		}
	}
	return nil
}

func knownPattern(p string) bool {
	for _, t := range Types() {
		if match(p, t) {
			return true
		}
	}
	return false
}

func match(pattern, typ string) bool {
	if prefix, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(typ, prefix)
	}
	return pattern == typ
}

// Wants reports whether the endpoint receives events of type typ.
func (e Endpoint) Wants(typ string) bool {
	if len(e.Events) == 0 {
		return true
	}
	for _, p := range e.Events {
		if match(p, typ) {
			return true
		}
	}
	return false
}

// redactURL is a URL without its query and fragment (which may hold
// tokens), for messages.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(invalid URL)"
	}
	u.RawQuery, u.Fragment, u.User = "", "", nil
	return u.String()
}

// Payload is the body of every webhook request.
type Payload struct {
	// Type is the event's type.
	Type string `json:"type"`
	// Timestamp is when the event happened.
	Timestamp time.Time `json:"timestamp"`
	// Data is the event's data.
	Data any `json:"data"`
}

// NewEvent builds the store's event of type typ about connector of
// tenant, with data, for the endpoints among eps that want it: a new id
// ("evt_" and 16 random bytes in hex), and the body the endpoints receive.
// A sync.completed event is NewSyncCompleted's.
func NewEvent(typ, tenant, connector string, at time.Time, data any, eps []Endpoint) (*store.Event, error) {
	return newEvent(typ, tenant, connector, at, data, eps, true)
}

// NewSyncCompleted builds a sync.completed event, as NewEvent does;
// changed says whether the sync inserted, updated or deleted a record: an
// endpoint with ChangesOnly receives the event only then. The event is
// made whoever receives it (the service's sync history reads it).
func NewSyncCompleted(tenant, connector string, at time.Time, data any, changed bool, eps []Endpoint) (*store.Event, error) {
	return newEvent(SyncCompleted, tenant, connector, at, data, eps, changed)
}

func newEvent(typ, tenant, connector string, at time.Time, data any, eps []Endpoint, changed bool) (*store.Event, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	body, err := json.Marshal(Payload{Type: typ, Timestamp: at.UTC(), Data: data})
	if err != nil {
		return nil, fmt.Errorf("webhook: encoding a %s event: %w", typ, err)
	}
	ev := &store.Event{ID: "evt_" + hex.EncodeToString(b), Type: typ, Tenant: tenant, Connector: connector, Body: body}
	for _, e := range eps {
		if e.Tenant == tenant && e.Wants(typ) && (changed || !e.ChangesOnly || typ != SyncCompleted) {
			ev.Endpoints = append(ev.Endpoints, e.ID())
		}
	}
	return ev, nil
}
