package main

import (
	"crypto/hmac"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/keyring"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/sandbox"
	"github.com/tributary-dev/tributary/server"
	"github.com/tributary-dev/tributary/store"
	"github.com/tributary-dev/tributary/webhook"
)

// The environment of `tributary serve`.
const (
	envServeKeys      = "TRIBUTARY_SERVE_KEYS"
	envServeClients   = "TRIBUTARY_SERVE_CLIENTS"
	envServeOAuthApps = "TRIBUTARY_SERVE_OAUTH_APPS"
	envServePublicURL = "TRIBUTARY_SERVE_PUBLIC_URL"
	envServeAppName   = "TRIBUTARY_SERVE_APP_NAME"
	envAdminPassword  = "TRIBUTARY_ADMIN_PASSWORD"
)

type serveFlags struct {
	store, listen         string
	keysFile, clientsFile string
	oauthAppsFile         string
	publicURL             string
	appName               string
	adminFile             string
	// listening is the address serve listens on, once it does.
	listening           string
	sandbox             bool
	syncEvery, tokenTTL time.Duration
	syncWorkers         int
	logFormat           string
	// pruneEvery and eventRetention: server.Config's PruneEvery and
	// EventRetention.
	pruneEvery, eventRetention time.Duration
	// changes is --sandbox-changes, a rate.
	changes string
	// vendorURLs is --vendor-url, KIND=URL each.
	vendorURLs []string
}

func (a *app) serveCmd() *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the connector execution service (the platform contract) over a store",
		Long: `serve runs the hosted connector execution service that package hosted and
'tributary --hosted' talk to: API clients exchange their id and secret for
tokens, create connectors with their users' credentials (sealed with
AES-256-GCM in the store, never returned), execute operations, and search
copies that the service keeps current in the background.

Keys: ` + envServeKeys + ` (or --keys-file) holds the key-encryption keys, one
"<id>:<base64 of 32 bytes>" per line, the first sealing; 'tributary serve
keygen' makes one. To rotate: put a new key first on every process, run
'tributary serve rotate-keys', then drop the old key.

Clients: ` + envServeClients + ` (or --clients-file) holds the API clients, one
"<client id>:<secret>" per line; each client is a tenant that sees only its
own connectors. In YAML ("clients: [{id, secret, webhooks: [{url, secret,
events}]}]") it also gives each client's webhook endpoints, which receive
its events signed per Standard Webhooks (see docs/webhooks.md).

Several processes may share one --store postgres://… behind a load balancer:
they share the background sync with leases and survive one of them dying.

Connect sessions: ` + envServeOAuthApps + ` (or --oauth-apps-file) holds the
service's OAuth apps, one "<kind>:<client id>:<client secret>" per line (or
YAML: "oauth_apps: [{kind, client_id, client_secret, scopes, inputs}]"),
--public-url (or ` + envServePublicURL + `) the URL browsers reach the
service at, and --app-name (or ` + envServeAppName + `) the name of the
application the connect page says is asking; register <public URL>` + server.CallbackPath + ` as each app's
redirect URL. POST /v1/connect/sessions then gives a single-use link to the
connect page (see docs/connect.md). --sandbox configures every kind's fake
OAuth app, so the whole flow runs offline.

Sandbox: --sandbox points every connector at the built-in fakes, seals
credentials with a key kept in the store (a restart keeps the connectors),
and, without clients, makes up the client sandbox, whose webhook endpoint
is this command: it prints each event it receives on stderr.
--sandbox-changes RATE makes the fakes change their records (updates,
inserts, deletes), so that the sync, the change feeds and the webhooks
have something to report.

Endpoints: POST /api/v1/account/applications/token, POST
/v1/integrations/connectors (and /api/v1/integrations/connectors), POST
/api/v1/connectors/sources/{id}/execute (and
/api/v1/integrations/connectors/{id}/execute), POST /v1/connect/sessions,
GET /connect/{token}, GET ` + server.CallbackPath + `, POST /mcp (the
tools of tributary mcp over the token's connectors, streamable HTTP), GET
/healthz, /readyz, /metrics (Prometheus).

Vendors: --vendor-url KIND=URL (repeatable) sends KIND's requests to URL's
origin instead of the vendor's: a proxy, a GitHub Enterprise server, a
fake. Every connector of that kind uses it; the vendors' rate limits are
kept to as usual.

Console: with an operator's password in $` + envAdminPassword + ` (or
--admin-password-file; at least 12 characters), /console serves the
operator's console in a browser: connectors and their copies, "sync now",
webhooks and replays, a search playground, the keys (docs/console.md).`,
		Example: `  export TRIBUTARY_SERVE_KEYS="$(tributary serve keygen)"
  export TRIBUTARY_SERVE_CLIENTS="app:$(openssl rand -hex 24)"
  tributary serve --store serve.db --listen 127.0.0.1:8080
  tributary serve --store postgres://tributary@db/tributary --listen :8080 --sync-every 10m
  tributary serve --sandbox --store sandbox.db --listen 127.0.0.1:8080   # every kind's fake
  tributary serve --sandbox --store sandbox.db --sandbox-changes 10/min --sync-every 30s   # fakes that change
  tributary serve --store postgres://tributary@db/tributary --vendor-url github=https://github.example.com/api/v3   # GitHub Enterprise`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error { return a.serve(cmd, &f) }),
	}
	service := f.serviceFlags()
	fs := cmd.Flags()
	fs.AddFlagSet(service)
	fs.StringVar(&f.listen, "listen", "127.0.0.1:8080", "the address to listen on (host:port)")
	fs.StringVar(&f.oauthAppsFile, "oauth-apps-file", "", "a file of OAuth apps for connect sessions, \"kind:client_id:client_secret\" per line (default: $"+envServeOAuthApps+")")
	fs.StringVar(&f.publicURL, "public-url", "", "the service's URL as browsers reach it, for the connect page and the OAuth redirect URL (default: $"+envServePublicURL+"; with --sandbox, the listening address)")
	fs.StringVar(&f.appName, "app-name", "", "the name of your application, which the connect page names as the one asking for the user's data (default: $"+envServeAppName+")")
	fs.StringVar(&f.adminFile, "admin-password-file", "", "a file holding the operator's password of the console at /console (default: $"+envAdminPassword+"; none: no console)")
	fs.DurationVar(&f.syncEvery, "sync-every", server.DefaultSyncEvery, "how stale a copy may grow before the background sync updates it (negative: never in the background)")
	fs.IntVar(&f.syncWorkers, "sync-workers", server.DefaultSyncWorkers, "how many copies this process synchronizes at once, at most (a sync mostly waits for its vendor; one waiting for a rate limit gives its place to another)")
	fs.DurationVar(&f.tokenTTL, "token-ttl", server.DefaultTokenTTL, "the lifetime of issued tokens")
	fs.StringVar(&f.logFormat, "log-format", "json", "log lines as json or text, on stderr")
	fs.StringVar(&f.changes, "sandbox-changes", "", "with --sandbox: every fake changes its records at this RATE (10/min, 2/s): updates, inserts and deletes, the same every run, each logged")
	fs.DurationVar(&f.pruneEvery, "prune-every", server.DefaultPruneEvery, "how often to delete old events and expired connect sessions (negative: never)")
	fs.DurationVar(&f.eventRetention, "event-retention", server.DefaultEventRetention, "how long to keep an event once its deliveries are done (replays can send it until then)")
	fs.StringArrayVar(&f.vendorURLs, "vendor-url", nil, "KIND=URL: send KIND's requests to this origin instead of the vendor's (a proxy, GitHub Enterprise, a fake); repeatable, one a kind")
	cmd.AddCommand(a.serveKeygenCmd(), a.serveRotateCmd(&f, service), a.serveReplayCmd(&f, service))
	return cmd
}

// serviceFlags are the flags that say which service a command works on:
// its store, keys, API clients and --sandbox. serve and its subcommands
// (rotate-keys, replay) take this one set, so that a flag has the same
// name, default and environment variable in each.
func (f *serveFlags) serviceFlags() *pflag.FlagSet {
	fs := pflag.NewFlagSet("service", pflag.ContinueOnError)
	fs.StringVar(&f.store, "store", "", "the store: a SQLite file, or postgres://… (or $"+envStore+")")
	fs.StringVar(&f.keysFile, "keys-file", "", "a file of key-encryption keys (default: $"+envServeKeys+")")
	fs.StringVar(&f.clientsFile, "clients-file", "", "a file of API clients, \"id:secret\" per line, or YAML with their webhooks (default: $"+envServeClients+")")
	fs.BoolVar(&f.sandbox, "sandbox", false, "point every connector at the built-in fakes (offline); without keys, the store's sandbox key (kept in the store, for --sandbox only); without clients, the client \"sandbox\"")
	return fs
}

func (a *app) serveKeygenCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "keygen",
		Short: "Print a new key-encryption key line for " + envServeKeys,
		Args:  cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			// A generated id: the day and random hex, so that two keys
			// made in the same second still differ.
			line, err := keyring.NewKey("")
			if err != nil {
				return err
			}
			fmt.Fprintln(a.stdout, line)
			return nil
		}),
	}
}

func (a *app) serveRotateCmd(f *serveFlags, service *pflag.FlagSet) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rotate-keys",
		Short: "Re-seal every connector's credentials under the first key (while the service runs)",
		Long: `rotate-keys re-seals, under the first key of ` + envServeKeys + ` (or
--keys-file), every connector's credentials sealed under another key, each
in its own transaction, while the service runs. Put the new key first on
every process before, and drop the old key after.`,
		Example: `  printf '%s\n%s\n' "$(tributary serve keygen)" "$OLD_KEY" > keys.txt   # the new key first, on every process
  tributary serve rotate-keys --store serve.db --keys-file keys.txt
  TRIBUTARY_SERVE_KEYS="$(cat keys.txt)" tributary serve rotate-keys --store postgres://tributary@db/tributary`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			srv, closeAll, err := a.newServer(cmd, f, slog.New(slog.NewTextHandler(a.stderr, nil)), false)
			if err != nil {
				return err
			}
			defer closeAll()
			n, err := srv.RotateKeys(cmd.Context())
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "re-sealed %d connectors\n", n)
			return nil
		}),
	}
	cmd.Flags().AddFlagSet(service)
	return cmd
}

func (a *app) serveReplayCmd(f *serveFlags, service *pflag.FlagSet) *cobra.Command {
	var client, endpoint, event, from, to string
	cmd := &cobra.Command{
		Use:   "replay",
		Short: "Send events again to a client's webhook endpoint: one event, or those of a time range",
		Long: `replay queues new deliveries of past events to one webhook endpoint of a
client (its URL or id, as GET /v1/webhooks shows it); the running service
sends them, after the endpoint's pending ones. The events keep their ids
(webhook-id), so a receiver that deduplicates drops those it had.`,
		Example: `  tributary serve replay --store serve.db --client app --endpoint https://app.example.com/hooks --event evt_0123
  tributary serve replay --store serve.db --client app --endpoint ep_d5fe8cf9ca7668e4 --from 2026-01-02T00:00:00Z --to 2026-01-02T06:00:00Z`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			if client == "" || endpoint == "" || (event == "") == (from == "") {
				return usageErr(cmd, "replay needs --client, --endpoint, and --event or --from (with --to, optionally)")
			}
			r := store.Replay{EventID: event}
			for _, t := range []struct {
				flag, v string
				out     *time.Time
			}{{"--from", from, &r.From}, {"--to", to, &r.To}} {
				if t.v == "" {
					continue
				}
				v, err := time.Parse(time.RFC3339, t.v)
				if err != nil {
					return usageErr(cmd, "%s: %q is not an RFC 3339 time (2026-01-02T15:04:05Z)", t.flag, t.v)
				}
				*t.out = v
			}
			srv, closeAll, err := a.newServer(cmd, f, slog.New(slog.NewTextHandler(a.stderr, nil)), false)
			if err != nil {
				return err
			}
			defer closeAll()
			n, err := srv.Replay(cmd.Context(), client, endpoint, r)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "queued %d deliveries\n", n)
			return nil
		}),
	}
	fs := cmd.Flags()
	fs.StringVar(&client, "client", "", "the API client whose endpoint receives the events")
	fs.StringVar(&endpoint, "endpoint", "", "the endpoint's URL or id")
	fs.StringVar(&event, "event", "", "the id of the event to send again")
	fs.StringVar(&from, "from", "", "send the events written from this time (RFC 3339)")
	fs.StringVar(&to, "to", "", "until this time, excluded (default: now)")
	fs.AddFlagSet(service)
	return cmd
}

// serve runs the service until Ctrl-C.
func (a *app) serve(cmd *cobra.Command, f *serveFlags) error {
	var h slog.Handler
	switch f.logFormat {
	case "json":
		h = slog.NewJSONHandler(a.stderr, nil)
	case "text":
		h = slog.NewTextHandler(a.stderr, nil)
	default:
		return usageErr(cmd, "--log-format is json or text, not %q", f.logFormat)
	}
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return usageErr(cmd, "--listen: %v", err)
	}
	f.listening = ln.Addr().String()
	srv, closeAll, err := a.newServer(cmd, f, slog.New(h), true)
	if err != nil {
		ln.Close()
		return err
	}
	defer closeAll()
	fmt.Fprintf(a.stderr, "tributary serve: listening on http://%s\n", ln.Addr())
	if f.sandbox {
		clients, _ := a.secretText(f.clientsFile, envServeClients)
		sandboxNotice(a.stderr, "http://"+ln.Addr().String(), clients == "")
	}
	return srv.Serve(cmd.Context(), ln)
}

// sandboxReplicationConfig is a replication_config with the keys kind
// requires (nil when it requires none): a date (a date-time, or a string
// named *_date) is the start of 2024.
func sandboxReplicationConfig(kind string) map[string]any {
	var out map[string]any
	for _, p := range kinds.ReplicationParams(kind) {
		if !p.Required {
			continue
		}
		if out == nil {
			out = map[string]any{}
		}
		switch {
		case p.Type == tributary.TypeDateTime, strings.HasSuffix(p.Name, "_date"): // Intercom's start_date
			out[p.Name] = "2024-01-01T00:00:00Z"
		default:
			out[p.Name] = p.Default
		}
	}
	return out
}

// sandboxClient is the API client --sandbox makes up when none is given.
const sandboxClient, sandboxClientSecret = "sandbox", "sandbox-client-secret"

// sandboxNotice prints, for serve --sandbox, the credentials each kind's
// fake accepts (the only ones it accepts: a create with others is refused)
// and a create call to paste into a shell, with the made-up client when
// madeUp is true; the secret of a client given in a file is never
// printed (the example names it $CLIENT_SECRET).
func sandboxNotice(w io.Writer, base string, madeUp bool) {
	sb := sandbox.New()
	defer sb.Close()
	fmt.Fprintln(w, "tributary serve: --sandbox credentials (each kind's fake accepts these, and no others):")
	creds := map[string]string{}
	for _, kind := range sb.Types() {
		b, _ := json.Marshal(sb.Credentials(kind))
		creds[kind] = string(b)
		fmt.Fprintf(w, "  %-16s %s\n", kind, b)
	}
	for _, kind := range sb.Types() {
		if cfg := sandboxReplicationConfig(kind); cfg != nil {
			b, _ := json.Marshal(cfg)
			fmt.Fprintf(w, "  (%s also needs \"replication_config\": %s)\n", kind, b)
		}
	}
	id, secret := sandboxClient, sandboxClientSecret
	if !madeUp {
		id, secret = "$CLIENT_ID", "$CLIENT_SECRET"
	}
	fmt.Fprintf(w, `tributary serve: create a connector with them (any kind above, any external_user_id):
  TOKEN=$(curl -s %[1]s/api/v1/account/applications/token -H 'Content-Type: application/json' \
    -d "{\"client_id\":\"%[2]s\",\"client_secret\":\"%[3]s\"}" | sed -E 's/.*"access_token":"([^"]+)".*/\1/')
  curl -s %[1]s/v1/integrations/connectors -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
    -d '{"external_user_id":"user-1","connector_type":"zendesk-support","credentials":%[4]s}'
`, base, id, secret, creds["zendesk-support"])
}

// newServer builds the server the flags describe; closeAll closes what it
// opened. serving is true for serve itself: the subcommands (rotate-keys,
// replay) only work on the store, so they need no API client, start no
// fake and read none of serve's other settings (OAuth apps, console).
func (a *app) newServer(cmd *cobra.Command, f *serveFlags, log *slog.Logger, serving bool) (_ *server.Server, _ func(), err error) {
	var closers []func()
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	defer func() {
		if err != nil {
			closeAll()
		}
	}()
	keys, err := a.secretText(f.keysFile, envServeKeys)
	if err != nil {
		return nil, nil, usageErr(cmd, "%v", err)
	}
	clientsText, err := a.secretText(f.clientsFile, envServeClients)
	if err != nil {
		return nil, nil, usageErr(cmd, "%v", err)
	}
	cfg := server.Config{TokenTTL: f.tokenTTL, SyncEvery: f.syncEvery, SyncWorkers: f.syncWorkers, Logger: log,
		ConnectorOptions: map[string][]tributary.Option{}, PruneEvery: f.pruneEvery, EventRetention: f.eventRetention}
	if serving {
		if err := a.servingConfig(cmd, f, &cfg); err != nil {
			return nil, nil, err
		}
		if err := vendorURLs(cmd, f, cfg.ConnectorOptions); err != nil {
			return nil, nil, err
		}
	}
	var changes sandbox.Changes
	if f.changes != "" {
		if !f.sandbox {
			return nil, nil, usageErr(cmd, "--sandbox-changes changes the records of the sandbox's fakes: give --sandbox")
		}
		if changes.Every, err = sandbox.ParseRate(f.changes); err != nil {
			return nil, nil, usageErr(cmd, "--sandbox-changes: %v", err)
		}
		changes.Seed = 1
		changes.Log = func(c sandbox.Change) {
			log.Info("sandbox change", "kind", c.Kind, "entity", c.Entity, "id", c.ID, "op", c.Op)
		}
	}
	if keys == "" && !f.sandbox {
		return nil, nil, usageErr(cmd, "%s needs keys in $%s or --keys-file ('tributary serve keygen' makes one)", cmd.CommandPath(), envServeKeys)
	}
	madeUp := f.sandbox && clientsText == ""
	if madeUp {
		clientsText = sandboxClient + ":" + sandboxClientSecret
		if serving {
			fmt.Fprintf(a.stderr, "tributary serve: --sandbox client: id %q, secret %q\n", sandboxClient, sandboxClientSecret)
		}
	}
	if cfg.Clients, err = parseClients(clientsText); err != nil {
		return nil, nil, usageErr(cmd, "%v", err)
	}
	if madeUp {
		// The made-up client's webhooks: an endpoint this command
		// receives itself, printing what it gets.
		hook, tr, err := a.sandboxWebhook()
		if err != nil {
			return nil, nil, err
		}
		cfg.Clients[0].Webhooks = append(cfg.Clients[0].Webhooks, hook)
		cfg.Delivery.Transport = tr
		if serving {
			fmt.Fprintf(a.stderr, "tributary serve: --sandbox webhooks: client %q's endpoint %s (changes_only: sync.completed when records changed) is this command: it prints here each event it receives\n", sandboxClient, hook.URL)
		}
	}
	if len(cfg.Clients) == 0 && serving {
		return nil, nil, usageErr(cmd, "serve needs at least one API client in $%s or --clients-file (\"id:secret\" per line)", envServeClients)
	}
	target, err := a.storeTarget(cmd, f.store, false)
	if err != nil {
		return nil, nil, err
	}
	if _, err := os.Stat(target.raw); !serving && !target.postgres && errors.Is(err, fs.ErrNotExist) {
		// A subcommand works on a service's store: it never makes one.
		return nil, nil, usageErr(cmd, "--store %s: no such file: give the store 'tributary serve --store' runs on", target.raw)
	}
	st, err := target.open(cmd.Context())
	if err != nil {
		return nil, nil, err
	}
	closers = append(closers, func() { st.Close() })
	cfg.Store = st
	if keys == "" {
		// --sandbox without keys: the store's sandbox key. It is kept in
		// the store rather than in a file next to it, so that it works
		// for a PostgreSQL store as for a SQLite file, and travels with
		// the store; what it seals are the fakes' published test
		// credentials (a --sandbox service verifies every credential at
		// its fake, which accepts no other), so a key kept next to them
		// reveals nothing. Only --sandbox with no keys given reads it: a
		// service started with its own keys never holds it, so the
		// connectors sealed under it do not open there (they are listed
		// as credentials_unreadable) and never reach a real vendor.
		if keys, err = st.SandboxKey(cmd.Context(), func() (string, error) { return keyring.NewKey("sandbox") }); err != nil {
			return nil, nil, err
		}
		if serving {
			fmt.Fprintf(a.stderr, "tributary serve: --sandbox key: kept in the store %s, for --sandbox only: connectors created now open again after a restart\n", target.name)
		}
	}
	cfg.Keys = keys
	if f.sandbox && serving {
		sb := sandbox.New(sandbox.WithChanges(changes))
		closers = append(closers, sb.Close)
		if err := sandboxConfig(sb, f, &cfg); err != nil {
			return nil, nil, err
		}
		if cfg.Admin == "" {
			cfg.Admin = "sandbox-" + rand.Text()[:16]
			fmt.Fprintf(a.stderr, "tributary serve: --sandbox console: /console, operator password %q\n", cfg.Admin)
		}
	}
	srv, err := server.New(cfg)
	if err != nil {
		return nil, nil, usageErr(cmd, "%v", f.configError(err))
	}
	closers = append(closers, func() { srv.Close() })
	return srv, closeAll, nil
}

// servingConfig reads the settings only serve itself uses: the console's
// password, the OAuth apps and the public URL.
func (a *app) servingConfig(cmd *cobra.Command, f *serveFlags, cfg *server.Config) error {
	appsText, err := a.secretText(f.oauthAppsFile, envServeOAuthApps)
	if err != nil {
		return usageErr(cmd, "%v", err)
	}
	admin, err := a.secretText(f.adminFile, envAdminPassword)
	if err != nil {
		return usageErr(cmd, "%v", err)
	}
	cfg.Admin = strings.TrimSpace(admin)
	if cfg.AppName = f.appName; cfg.AppName == "" {
		cfg.AppName = a.env(envServeAppName)
	}
	if cfg.PublicURL = f.publicURL; cfg.PublicURL == "" {
		cfg.PublicURL = a.env(envServePublicURL)
	}
	if cfg.OAuthApps, err = parseOAuthApps(appsText); err != nil {
		return usageErr(cmd, "%v", err)
	}
	return nil
}

// vendorURLs reads --vendor-url KIND=URL into opts: KIND's connectors
// send their requests to URL's origin (tributary.WithBaseURL). KIND must be
// a known kind, given once, and URL an absolute http or https URL without
// user info; --sandbox, which points every kind at its fake, excludes it.
func vendorURLs(cmd *cobra.Command, f *serveFlags, opts map[string][]tributary.Option) error {
	if len(f.vendorURLs) > 0 && f.sandbox {
		return usageErr(cmd, "--vendor-url and --sandbox: the sandbox points every kind at its own fake; give one or the other")
	}
	for _, v := range f.vendorURLs {
		kind, raw, ok := strings.Cut(v, "=")
		if !ok || kind == "" || raw == "" {
			return usageErr(cmd, "--vendor-url: expected KIND=URL, e.g. github=https://github.example.com/api/v3")
		}
		if _, err := kinds.Catalogue(kind); err != nil {
			return usageErr(cmd, "--vendor-url: unknown kind %q (kinds: %s)", kind, strings.Join(kinds.Types(), ", "))
		}
		if _, dup := opts[kind]; dup {
			return usageErr(cmd, "--vendor-url: kind %s is given twice", kind)
		}
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			// The URL is not repeated: it could hold a secret.
			return usageErr(cmd, "--vendor-url %s=…: the URL must be absolute, http:// or https://, with a host and no user info", kind)
		}
		opts[kind] = append(opts[kind], tributary.WithBaseURL(raw))
	}
	return nil
}

// sandboxConfig points every kind of cfg at its fake in sb, with the
// fake's OAuth app where none is given, so that connect sessions run
// offline.
func sandboxConfig(sb *sandbox.Sandbox, f *serveFlags, cfg *server.Config) error {
	if cfg.OAuthApps == nil {
		cfg.OAuthApps = map[string]server.OAuthApp{}
	}
	for _, t := range sb.Types() {
		var err error
		if cfg.ConnectorOptions[t], err = sb.Options(t); err != nil {
			return err
		}
		if _, given := cfg.OAuthApps[t]; !given {
			u, _ := sb.URL(t)
			oc, err := sb.OAuthClient(t)
			if err != nil {
				return err
			}
			cfg.OAuthApps[t] = server.OAuthApp{ClientID: oc.ClientID, ClientSecret: oc.ClientSecret, BaseURL: u, Inputs: oc.Inputs}
		}
	}
	if cfg.PublicURL == "" && f.listening != "" {
		cfg.PublicURL = "http://" + f.listening
	}
	return nil
}

// configError names, in an error of server.New about a field of its
// Config, the flag or the environment variable the value came from: a
// user of the command never sees Go's field names.
func (f *serveFlags) configError(err error) error {
	var ce *server.ConfigError
	if !errors.As(err, &ce) {
		return err
	}
	source := func(flag, value, env string) string {
		if value != "" {
			return flag + " " + value
		}
		return "$" + env
	}
	var where string
	switch ce.Field {
	case "Admin":
		where = source("--admin-password-file", f.adminFile, envAdminPassword)
	case "Keys":
		where = source("--keys-file", f.keysFile, envServeKeys)
	case "OAuthApps":
		where = source("--oauth-apps-file", f.oauthAppsFile, envServeOAuthApps)
	case "PublicURL":
		where = source("--public-url", f.publicURL, envServePublicURL)
	default:
		return err
	}
	msg := where + ": " + ce.Reason
	if ce.Err != nil {
		msg += ": " + ce.Err.Error()
	}
	return errors.New(msg)
}

// oauthAppsYAML is the YAML form of the OAuth apps file.
type oauthAppsYAML struct {
	OAuthApps []struct {
		Kind         string            `yaml:"kind"`
		ClientID     string            `yaml:"client_id"`
		ClientSecret string            `yaml:"client_secret"`
		Scopes       []string          `yaml:"scopes"`
		Inputs       map[string]string `yaml:"inputs"`
	} `yaml:"oauth_apps"`
}

// parseOAuthApps reads "kind:client_id:client_secret" lines (blank lines
// and # comments skipped), or YAML ("oauth_apps: [{kind, client_id,
// client_secret, scopes, inputs}]"); errors name the line or the kind,
// never a secret.
func parseOAuthApps(text string) (map[string]server.OAuthApp, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	out := map[string]server.OAuthApp{}
	add := func(where, kind string, app server.OAuthApp) error {
		if kind == "" || app.ClientID == "" || app.ClientSecret == "" {
			return fmt.Errorf("OAuth apps, %s: a kind, a client id and a client secret are required", where)
		}
		if _, dup := out[kind]; dup {
			return fmt.Errorf("OAuth apps, %s: kind %q is given twice", where, kind)
		}
		out[kind] = app
		return nil
	}
	if strings.HasPrefix(strings.TrimSpace(text), "oauth_apps:") {
		var y oauthAppsYAML
		if err := yaml.Unmarshal([]byte(text), &y); err != nil {
			return nil, errors.New("OAuth apps: not valid YAML (expected oauth_apps: [{kind, client_id, client_secret, scopes, inputs}])")
		}
		for i, a := range y.OAuthApps {
			if err := add(fmt.Sprintf("entry %d", i+1), a.Kind, server.OAuthApp{ClientID: a.ClientID, ClientSecret: a.ClientSecret, Scopes: a.Scopes, Inputs: a.Inputs}); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			return nil, fmt.Errorf("OAuth apps, line %d: expected \"<kind>:<client id>:<client secret>\"", i+1)
		}
		if err := add(fmt.Sprintf("line %d", i+1), parts[0], server.OAuthApp{ClientID: parts[1], ClientSecret: parts[2]}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// secretText reads a secret from a file, or else from an environment
// variable; neither is ever printed.
func (a *app) secretText(file, env string) (string, error) {
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("reading %s: %w", file, err)
		}
		return string(b), nil
	}
	return a.env(env), nil
}

// clientsYAML is the YAML form of the clients file, which also gives
// each client's webhook endpoints.
type clientsYAML struct {
	Clients []struct {
		ID       string `yaml:"id"`
		Secret   string `yaml:"secret"`
		Webhooks []struct {
			URL         string   `yaml:"url"`
			Secret      string   `yaml:"secret"`
			Events      []string `yaml:"events"`
			ChangesOnly bool     `yaml:"changes_only"`
		} `yaml:"webhooks"`
	} `yaml:"clients"`
}

// parseClients reads "id:secret" lines (blank lines and # comments
// skipped), or YAML ("clients: [{id, secret, webhooks: [{url, secret,
// events}]}]"); errors name the line or the client, never a secret.
func parseClients(text string) ([]server.Client, error) {
	if strings.HasPrefix(strings.TrimSpace(text), "clients:") {
		var y clientsYAML
		if err := yaml.Unmarshal([]byte(text), &y); err != nil {
			return nil, errors.New("clients: not valid YAML (expected clients: [{id, secret, webhooks: [{url, secret, events}]}])")
		}
		var out []server.Client
		seen := map[string]bool{}
		for i, c := range y.Clients {
			if c.ID == "" || c.Secret == "" {
				return nil, fmt.Errorf("clients, entry %d: an id and a secret are required", i+1)
			}
			if seen[c.ID] {
				return nil, fmt.Errorf("clients: client %q is given twice", c.ID)
			}
			seen[c.ID] = true
			sc := server.Client{ID: c.ID, Secret: c.Secret}
			for _, w := range c.Webhooks {
				sc.Webhooks = append(sc.Webhooks, server.Webhook{URL: w.URL, Secret: w.Secret, Events: w.Events, ChangesOnly: w.ChangesOnly})
			}
			out = append(out, sc)
		}
		return out, nil
	}
	var out []server.Client
	seen := map[string]bool{}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, secret, ok := strings.Cut(line, ":")
		if !ok || id == "" || secret == "" {
			return nil, fmt.Errorf("clients, line %d: expected \"<client id>:<secret>\"", i+1)
		}
		if seen[id] {
			return nil, fmt.Errorf("clients, line %d: client %q is given twice", i+1, id)
		}
		seen[id] = true
		out = append(out, server.Client{ID: id, Secret: secret})
	}
	return out, nil
}

// sandboxHooks is the URL of serve --sandbox's made-up client's webhook
// endpoint: the command itself receives what is sent there (a .invalid
// host, which no resolver answers, so that it reaches nothing else).
const sandboxHooks = "http://tributary-sandbox.invalid/hooks"

// sandboxWebhook is the made-up client's webhook endpoint, and the
// transport that delivers to it in-process: each request's signature is
// checked (Standard Webhooks, as a receiver would) and the event printed
// on stderr, one line each; other URLs go out as usual. The endpoint takes
// sync.completed only when records changed (changes_only), so that a
// sandbox synchronized every few seconds prints what changed, not every
// sync. Its URL is the same in every run, so that a restart, or serve
// replay, names the same endpoint.
func (a *app) sandboxWebhook() (server.Webhook, http.RoundTripper, error) {
	secret, err := webhook.NewSecret()
	if err != nil {
		return server.Webhook{}, nil, err
	}
	key, err := webhook.ParseSecret(secret)
	if err != nil {
		return server.Webhook{}, nil, err
	}
	return server.Webhook{URL: sandboxHooks, Secret: secret, ChangesOnly: true}, &sandboxTransport{a: a, key: key, next: http.DefaultTransport}, nil
}

// sandboxTransport delivers the requests to sandboxHooks in-process.
type sandboxTransport struct {
	a    *app
	key  []byte
	next http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t *sandboxTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	u := *r.URL
	u.RawQuery = ""
	if u.String() != sandboxHooks {
		return t.next.RoundTrip(r)
	}
	status := t.receive(r)
	return &http.Response{StatusCode: status, Status: http.StatusText(status), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{}, Body: http.NoBody, Request: r}, nil
}

// receive checks one webhook request and prints its event.
func (t *sandboxTransport) receive(r *http.Request) int {
	var body []byte
	var err error
	if r.Body != nil {
		body, err = io.ReadAll(io.LimitReader(r.Body, 1<<20))
		r.Body.Close()
	}
	ts, terr := strconv.ParseInt(r.Header.Get("webhook-timestamp"), 10, 64)
	id := r.Header.Get("webhook-id")
	if err != nil || terr != nil || r.Method != http.MethodPost ||
		!hmac.Equal([]byte(webhook.Sign(t.key, id, time.Unix(ts, 0), body)), []byte(r.Header.Get("webhook-signature"))) {
		return http.StatusUnauthorized
	}
	var p struct {
		Type string          `json:"type"`
		Data json.RawMessage `json:"data"`
	}
	if json.Unmarshal(body, &p) != nil {
		return http.StatusBadRequest
	}
	fmt.Fprintf(t.a.stderr, "tributary serve: --sandbox webhook received %s %s %s\n", id, p.Type, p.Data)
	return http.StatusNoContent
}
