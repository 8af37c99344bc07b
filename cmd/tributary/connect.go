package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/hosted"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/sandbox"
	"golang.org/x/oauth2"
)

// The environment variables of hosted mode.
const (
	envHostedToken  = "TRIBUTARY_HOSTED_TOKEN"
	envClientID     = "TRIBUTARY_CLIENT_ID"
	envClientSecret = "TRIBUTARY_CLIENT_SECRET"
	envConnectorID  = "TRIBUTARY_CONNECTOR_ID"
	envExternalUser = "TRIBUTARY_EXTERNAL_USER_ID"
)

// connFlags are the flags that choose how a command reaches the source.
type connFlags struct {
	credentials string
	sandbox     bool
	baseURL     string
	hosted      string
	hostedPaths string
	connectorID string
	verbose     bool
	retries     int
	// changes, for commands that take --sandbox-changes (sync): how the
	// sandbox's fakes change their records.
	changes sandbox.Changes
}

// add registers the flags on cmd.
func (f *connFlags) add(cmd *cobra.Command, withConnectorID bool) {
	fs := cmd.Flags()
	fs.StringVar(&f.credentials, "credentials", "", "JSON file with the kind's credentials object (- for stdin); default: the environment variables 'tributary describe <type>' lists")
	fs.BoolVar(&f.sandbox, "sandbox", false, "run against the built-in fake of the kind, with no credentials")
	fs.StringVar(&f.baseURL, "base-url", "", "direct mode: send requests to this origin instead of the vendor's (GitHub Enterprise, a proxy, a fake)")
	fs.StringVar(&f.hosted, "hosted", "", "run through the hosted service at this base URL (token from "+envHostedToken+", or "+envClientID+" and "+envClientSecret+")")
	fs.StringVar(&f.hostedPaths, "hosted-paths", "default", "the hosted service's path set: default or integrations")
	if withConnectorID {
		fs.StringVar(&f.connectorID, "connector-id", "", "hosted mode: the connector to run on (default $"+envConnectorID+")")
	}
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "log every HTTP attempt on stderr (secrets redacted)")
	fs.IntVar(&f.retries, "retries", tributary.DefaultRetryPolicy.MaxRetries, "retries of one request on 429, 5xx and dropped connections")
	cmd.MarkFlagsMutuallyExclusive("sandbox", "hosted")
	cmd.MarkFlagsMutuallyExclusive("sandbox", "credentials")
	cmd.MarkFlagsMutuallyExclusive("sandbox", "base-url")
	cmd.MarkFlagsMutuallyExclusive("hosted", "base-url")
	cmd.MarkFlagsMutuallyExclusive("hosted", "credentials")
	_ = cmd.RegisterFlagCompletionFunc("hosted-paths", cobra.FixedCompletions([]string{"default", "integrations"}, cobra.ShellCompDirectiveNoFileComp))
}

// session is an open connector and what must be released with it.
type session struct {
	conn    tributary.Connector
	counter *pageCounter
	close   func()
	// sandbox is the sandbox of --sandbox (nil otherwise).
	sandbox *sandbox.Sandbox
}

// pageCounter counts the successful API responses, which are the pages of a
// walk, for progress: tributary.All does not show its pages.
type pageCounter struct {
	mu     sync.Mutex
	onPage func()
}

func (p *pageCounter) set(f func()) {
	p.mu.Lock()
	p.onPage = f
	p.mu.Unlock()
}

func (p *pageCounter) page() {
	p.mu.Lock()
	f := p.onPage
	p.mu.Unlock()
	if f != nil {
		f()
	}
}

// countingTransport calls counter.page for every 2xx answer that is not an
// OAuth token exchange.
type countingTransport struct {
	next    http.RoundTripper
	counter *pageCounter
}

func (t countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(r)
	if err == nil && resp.StatusCode/100 == 2 && !strings.Contains(r.URL.Path, "token") {
		t.counter.page()
	}
	return resp, err
}

// options are the library options every mode shares, over a transport of
// the session's own.
func (a *app) options(f *connFlags, counter *pageCounter, tr *http.Transport) []tributary.Option {
	opts := []tributary.Option{
		tributary.WithHTTPClient(&http.Client{Transport: countingTransport{next: tr, counter: counter}}),
		tributary.WithUserAgent("tributary-cli/" + version()),
	}
	if f.retries != tributary.DefaultRetryPolicy.MaxRetries && f.retries >= 0 {
		p := tributary.DefaultRetryPolicy
		p.MaxRetries = f.retries
		opts = append(opts, tributary.WithRetry(p))
	}
	if f.verbose {
		a.noProgress = true // the log lines would break the progress line
		opts = append(opts, tributary.WithLogger(slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	} else if a.isTerminal(a.stderr) {
		opts = append(opts, tributary.WithRetryHook(a.retryLine()))
	}
	return opts
}

// retryLine returns the retry hook of a terminal: one line on stderr per
// retry, as it is about to wait, so that a slow failure is not a silent
// one. The line clears a progress line first; the bar redraws below it.
func (a *app) retryLine() func(tributary.Retrying) {
	var mu sync.Mutex
	return func(r tributary.Retrying) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(a.stderr, "\r\x1b[Kretrying in %s (attempt %d/%d): %s\n", r.Wait.Round(100*time.Millisecond), r.Attempt, r.Attempts, r.Reason)
	}
}

// open opens a connector of kind in the mode the flags choose.
func (a *app) open(cmd *cobra.Command, f *connFlags, kind string) (*session, error) {
	if _, err := kinds.Catalogue(kind); err != nil {
		return nil, err
	}
	counter := &pageCounter{}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	opts := a.options(f, counter, tr)
	s, err := a.openWith(cmd, f, kind, opts)
	if err != nil {
		tr.CloseIdleConnections()
		return nil, err
	}
	s.counter = counter
	closeConn := s.close
	s.close = func() {
		tr.CloseIdleConnections()
		closeConn()
	}
	return s, nil
}

func (a *app) openWith(cmd *cobra.Command, f *connFlags, kind string, opts []tributary.Option) (*session, error) {
	switch {
	case f.sandbox:
		sb := sandbox.New(sandbox.WithChanges(f.changes))
		c, err := sb.Open(kind, opts...)
		if err != nil {
			sb.Close()
			return nil, err
		}
		return &session{conn: c, close: sb.Close, sandbox: sb}, nil
	case f.hosted != "":
		client, err := a.hostedClient(cmd, f, "", opts)
		if err != nil {
			return nil, err
		}
		id := f.connectorID
		if id == "" {
			id = a.env(envConnectorID)
		}
		if id == "" {
			return nil, usageErr(cmd, "--hosted needs --connector-id (or %s); 'tributary create-connector' makes one", envConnectorID)
		}
		c, err := client.Connector(id, kind)
		if err != nil {
			return nil, err
		}
		return &session{conn: c, close: func() {}}, nil
	}
	creds, err := a.loadCredentials(kind, f.credentials)
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	opts = append(opts, tributary.WithTokenRefresh(func(t *oauth2.Token) {
		mu.Lock()
		defer mu.Unlock()
		a.saveRotatedToken(kind, creds, t)
	}))
	if f.baseURL != "" {
		opts = append(opts, tributary.WithBaseURL(f.baseURL))
	}
	opts = append(opts, a.connOptions...)
	c, err := kinds.Open(kind, creds.values, opts...)
	if err != nil {
		var te *tributary.Error
		if errors.Is(err, tributary.ErrInvalidCredentials) && errors.As(err, &te) {
			e := *te
			e.Message = strings.TrimSpace(e.Message + " (" + credentialsHint(kind, creds) + ")")
			return nil, &e
		}
		return nil, err
	}
	return &session{conn: c, close: func() {}}, nil
}

// hostedClient builds the hosted client from the flags and the environment;
// externalUserID is needed only to create connectors.
func (a *app) hostedClient(cmd *cobra.Command, f *connFlags, externalUserID string, opts []tributary.Option) (*hosted.Client, error) {
	cfg := hosted.Config{BaseURL: f.hosted, Token: a.env(envHostedToken),
		ClientID: a.env(envClientID), ClientSecret: a.env(envClientSecret), ExternalUserID: externalUserID}
	switch f.hostedPaths {
	case "default", "":
	case "integrations":
		cfg.Paths = hosted.IntegrationsPaths
	default:
		return nil, usageErr(cmd, "--hosted-paths must be default or integrations, not %q", f.hostedPaths)
	}
	if cfg.Token == "" && (cfg.ClientID == "" || cfg.ClientSecret == "") {
		return nil, &tributary.Error{Err: tributary.ErrInvalidCredentials,
			Message: fmt.Sprintf("hosted mode needs %s, or %s and %s, in the environment", envHostedToken, envClientID, envClientSecret)}
	}
	return hosted.New(cfg, opts...)
}

// readAllLimit reads r whole, up to 1 MiB: credentials and params are small.
func readAllLimit(r io.Reader) ([]byte, error) {
	var b bytes.Buffer
	n, err := io.Copy(&b, io.LimitReader(r, 1<<20+1))
	if err != nil {
		return nil, err
	}
	if n > 1<<20 {
		return nil, errors.New("input larger than 1 MiB")
	}
	return b.Bytes(), nil
}
