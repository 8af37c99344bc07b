package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/tributary-dev/tributary/connect"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/sandbox"
)

// The environment variables of the OAuth app `tributary connect` runs as.
const (
	envOAuthClientID     = "TRIBUTARY_OAUTH_CLIENT_ID"
	envOAuthClientSecret = "TRIBUTARY_OAUTH_CLIENT_SECRET"
)

// callbackPath is the path of the loopback redirect URI.
const callbackPath = "/callback"

// connectFlags are the flags of `tributary connect`.
type connectFlags struct {
	clientID   string
	secretFile string
	inputs     []string
	out        string
	force      bool
	port       int
	noBrowser  bool
	timeout    time.Duration
	sandbox    bool
}

func (a *app) connectCmd() *cobra.Command {
	var f connectFlags
	cmd := &cobra.Command{
		Use:   "connect <type>",
		Short: "Connect an account: consent in the browser, save the credentials to a file",
		Long: `connect obtains a kind's credentials through the vendor's OAuth consent page,
in the manner of 'gh auth login': it listens on a loopback address
(http://127.0.0.1:PORT/callback, RFC 8252), opens the consent page in your
browser ($BROWSER, else the system's opener) and prints its URL on stderr,
waits for the vendor to redirect back, exchanges the code and writes the
credentials object, the one every other command takes with --credentials, to
a file readable by you only (mode 0600).

The OAuth app is yours: --client-id and --client-secret-file, or
$` + envOAuthClientID + ` and $` + envOAuthClientSecret + `. Register
http://127.0.0.1:PORT/callback as its redirect URI; vendors that match the
redirect URI exactly (all but GitHub) need the same --port every time.
Zendesk needs --input subdomain=ACCOUNT; Salesforce takes --input
login_url=https://test.salesforce.com for a sandbox org.

--sandbox runs the whole flow against the kind's built-in fake, with the
fake's own OAuth app: its consent page, its token endpoint, then one read
with the new credentials to show they work. It saves nothing: those
credentials open only the fake, which stops with the command, and anywhere
else they would be sent to the real vendor (--out - prints them).

The credentials go to --out (default: tributary/<type>.json in your user
configuration directory); an existing file is replaced only with --force.
They are printed only with --out -. No token is ever printed otherwise.

` + exitHelp,
		Example: `  tributary connect github --client-id Iv1.abc --client-secret-file github-secret.txt
  tributary exec github viewer_repositories list --credentials ~/.config/tributary/github.json

  export TRIBUTARY_OAUTH_CLIENT_ID=... TRIBUTARY_OAUTH_CLIENT_SECRET=...
  tributary connect zendesk-support --input subdomain=acme --port 8765 --out zendesk.json

  # the whole flow against the built-in fake, consent page included
  tributary connect salesforce --sandbox`,
		Args:              exactArgs(1),
		ValidArgsFunction: completeTypeEntity(nil),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			return a.connect(cmd, args[0], &f)
		}),
	}
	fs := cmd.Flags()
	fs.StringVar(&f.clientID, "client-id", "", "your OAuth app's client id (default $"+envOAuthClientID+")")
	fs.StringVar(&f.secretFile, "client-secret-file", "", "file holding your OAuth app's client secret (default $"+envOAuthClientSecret+")")
	fs.StringArrayVar(&f.inputs, "input", nil, "an input of the kind's flow, name=value (repeatable): subdomain for zendesk-support, login_url for salesforce, region for intercom (us, eu or au)")
	fs.StringVarP(&f.out, "out", "o", "", "file to write the credentials to, created with mode 0600 (- for stdout); default: tributary/<type>.json in the user configuration directory (with --sandbox: none, only -)")
	fs.BoolVar(&f.force, "force", false, "replace an existing --out file")
	fs.IntVar(&f.port, "port", 0, "loopback port of the redirect URI, for vendors that match it exactly (default: a random free port)")
	fs.BoolVar(&f.noBrowser, "no-browser", false, "only print the consent URL; do not open a browser")
	fs.DurationVar(&f.timeout, "timeout", 5*time.Minute, "how long to wait for the browser's answer")
	fs.BoolVar(&f.sandbox, "sandbox", false, "run the flow against the kind's built-in fake and its OAuth app")
	cmd.MarkFlagsMutuallyExclusive("sandbox", "client-id")
	cmd.MarkFlagsMutuallyExclusive("sandbox", "client-secret-file")
	_ = cmd.RegisterFlagCompletionFunc("input", completeOAuthInput)
	return cmd
}

// completeOAuthInput completes --input with the names of the kind's flow
// inputs, followed by "=".
func completeOAuthInput(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) == 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	app, err := kinds.OAuthApp(args[0])
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	var out []cobra.Completion
	for _, in := range app.Inputs {
		if name, _, ok := strings.Cut(toComplete, "="); ok && name == in.Name {
			// The value of an input with choices (region=eu).
			for _, v := range in.ChoiceValues() {
				if c := in.Name + "=" + v; strings.HasPrefix(c, toComplete) {
					out = append(out, cobra.Completion(c))
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		}
		if strings.HasPrefix(in.Name, toComplete) {
			out = append(out, cobra.CompletionWithDesc(in.Name+"=", firstSentence(in.Doc)))
		}
	}
	return out, cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
}

// connect runs the authorization-code flow of kind on a loopback redirect.
func (a *app) connect(cmd *cobra.Command, kind string, f *connectFlags) error {
	ctx := cmd.Context()
	if _, err := kinds.OAuthApp(kind); err != nil {
		return err
	}
	if f.timeout <= 0 {
		return usageErr(cmd, "--timeout must be positive, not %s", f.timeout)
	}
	if f.port < 0 || f.port > 65535 {
		return usageErr(cmd, "--port must be between 1 and 65535 (0: a random port), not %d", f.port)
	}
	inputs := map[string]string{}
	for _, in := range f.inputs {
		name, value, ok := strings.Cut(in, "=")
		if !ok || name == "" {
			return usageErr(cmd, "--input %q must be name=value", in)
		}
		inputs[name] = value
	}
	cfg := connect.Config{Inputs: inputs}
	var sb *sandbox.Sandbox
	if f.sandbox && f.out != "" && f.out != "-" {
		return usageErr(cmd, "--out %s: connect --sandbox saves no credentials: they open only the sandbox's fake, which stops with this command, and anywhere else they would be sent to the real vendor (--out - prints them)", f.out)
	}
	if f.sandbox {
		if sb = a.sandbox; sb == nil {
			sb = sandbox.New()
			defer sb.Close()
		}
		oc, err := sb.OAuthClient(kind)
		if err != nil {
			return err
		}
		if cfg.BaseURL, err = sb.URL(kind); err != nil {
			return err
		}
		cfg.ClientID, cfg.ClientSecret = oc.ClientID, oc.ClientSecret
		for k, v := range oc.Inputs {
			if _, given := inputs[k]; !given {
				inputs[k] = v
			}
		}
	} else {
		var err error
		if cfg.ClientID, cfg.ClientSecret, err = a.oauthClient(cmd, f); err != nil {
			return err
		}
		cfg.BaseURL = a.vendorURL // "" but in tests: the vendor's
	}
	out, err := connectOut(cmd, kind, f)
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(f.port)))
	if err != nil {
		return fmt.Errorf("connect %s: listening on 127.0.0.1 for the browser's redirect (--port %d): %w", kind, f.port, err)
	}
	cfg.RedirectURL = fmt.Sprintf("http://%s%s", ln.Addr(), callbackPath)
	flow, err := connect.New(kind, cfg)
	if err != nil {
		ln.Close()
		return err
	}
	auth := flow.AuthCodeURL()

	var mu sync.Mutex // stderr is written by the handlers and the opener too
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(a.stderr, format, args...)
	}
	w := &waiter{kind: kind, vendor: vendorName(kind), flow: flow, state: auth.State, say: say,
		calls: make(chan callback), quit: make(chan struct{})}
	srv := &http.Server{Handler: w, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(ln)
	}()

	say("To connect your %s account, open this URL in your browser:\n\n  %s\n\n", w.vendor, auth.URL)
	say("Waiting for the answer at %s (up to %s; Ctrl-C cancels)...\n", cfg.RedirectURL, f.timeout)
	openCtx, stopOpen := context.WithCancel(ctx)
	opened := make(chan struct{})
	go func() {
		defer close(opened)
		if f.noBrowser {
			return
		}
		open := a.openURL
		if open == nil {
			open = a.openBrowser
		}
		if err := open(openCtx, auth.URL); err != nil {
			say("tributary: could not open a browser (%v); open the URL above yourself\n", err)
		}
	}()

	var creds connect.Credentials
	timer := time.NewTimer(f.timeout)
	select {
	case c := <-w.calls:
		err = c.err
		if err == nil {
			creds, err = flow.Exchange(ctx, c.code, auth.Verifier)
		}
		if err == nil && out != "" {
			err = a.saveCredentials(kind, out, creds, f.force)
		}
		c.outcome <- err
	case <-ctx.Done():
		err = &interrupted{done: "no credentials were saved", err: ctx.Err()}
	case <-timer.C:
		err = fmt.Errorf("connect %s: no answer from the browser within %s (--timeout); nothing was saved", kind, f.timeout)
	}
	timer.Stop()
	close(w.quit)
	// Shutdown lets the handler that is answering the browser finish its page.
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	if srv.Shutdown(sctx) != nil {
		srv.Close()
	}
	cancel()
	<-served
	stopOpen()
	<-opened
	if err != nil {
		return err
	}
	switch out {
	case "-":
		say("tributary: connected %s; the credentials went to stdout\n", kind)
	case "": // --sandbox
		say("tributary: connected %s in the sandbox; the credentials were not saved: they open only the fake, which stops now (to keep credentials, connect your own account: 'tributary connect %s --help')\n", kind, kind)
	default:
		say("tributary: connected %s; credentials written to %s (mode 0600); use them with --credentials %s\n", kind, out, out)
	}
	if sb != nil {
		return a.sandboxCheck(ctx, sb, kind, creds, say)
	}
	return nil
}

// oauthClient returns the OAuth app's client id and secret from the flags
// or the environment.
func (a *app) oauthClient(cmd *cobra.Command, f *connectFlags) (id, secret string, err error) {
	id = f.clientID
	if id == "" {
		id = a.env(envOAuthClientID)
	}
	if id == "" {
		return "", "", usageErr(cmd, "connect needs your OAuth app's client id: --client-id or $%s (or try --sandbox)", envOAuthClientID)
	}
	if f.secretFile != "" {
		b, err := os.ReadFile(f.secretFile)
		if err != nil {
			return "", "", usageErr(cmd, "reading --client-secret-file: %v", err)
		}
		if secret = strings.TrimSpace(string(b)); secret == "" {
			return "", "", usageErr(cmd, "--client-secret-file %s is empty", f.secretFile)
		}
		return id, secret, nil
	}
	if secret = a.env(envOAuthClientSecret); secret == "" {
		return "", "", usageErr(cmd, "connect needs your OAuth app's client secret: --client-secret-file FILE or $%s", envOAuthClientSecret)
	}
	return id, secret, nil
}

// connectOut resolves --out and refuses, before any browser step, a file
// that exists without --force or a directory that does not; "" with
// --sandbox, which saves nothing.
func connectOut(cmd *cobra.Command, kind string, f *connectFlags) (string, error) {
	out := f.out
	if out == "-" || f.sandbox {
		return out, nil
	}
	if out == "" {
		dir, err := os.UserConfigDir()
		if err != nil {
			return "", usageErr(cmd, "no default for --out (%v): give --out FILE", err)
		}
		dir = filepath.Join(dir, "tributary")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", fmt.Errorf("connect %s: creating %s for the credentials: %w", kind, dir, err)
		}
		out = filepath.Join(dir, kind+".json")
	} else if st, err := os.Stat(filepath.Dir(out)); err != nil || !st.IsDir() {
		return "", usageErr(cmd, "--out %s: the directory %s does not exist", out, filepath.Dir(out))
	}
	if st, err := os.Lstat(out); err == nil && st.IsDir() {
		return "", usageErr(cmd, "--out %s is a directory: give a file name", out)
	} else if err == nil && !f.force {
		return "", usageErr(cmd, "--out %s already exists: give --force to replace it, or another --out", out)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("connect %s: --out %s: %w", kind, out, err)
	}
	return out, nil
}

// saveCredentials writes creds to out: a new file created with mode 0600,
// or with replace a temporary 0600 file renamed over the old one; "-" is
// stdout.
func (a *app) saveCredentials(kind, out string, creds connect.Credentials, replace bool) error {
	if out == "-" {
		b, err := json.MarshalIndent(creds, "", "  ")
		if err != nil {
			return err
		}
		_, err = a.stdout.Write(append(b, '\n'))
		return err
	}
	fail := func(err error) error {
		return fmt.Errorf("connect %s: saving the credentials (the vendor's code is spent: run the command again): %w", kind, err)
	}
	if replace {
		if err := writeFileAtomic(out, creds); err != nil {
			return fail(err)
		}
		return nil
	}
	b, err := json.MarshalIndent(creds, "", "  ")
	if err != nil {
		return fail(err)
	}
	file, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fail(err)
	}
	if _, err := file.Write(append(b, '\n')); err != nil {
		file.Close()
		os.Remove(out)
		return fail(err)
	}
	if err := file.Close(); err != nil {
		os.Remove(out)
		return fail(err)
	}
	return nil
}

// sandboxCheck opens kind with the new credentials against the sandbox's
// fake and reads one page, and says so in one line.
func (a *app) sandboxCheck(ctx context.Context, sb *sandbox.Sandbox, kind string, creds connect.Credentials, say func(string, ...any)) error {
	entity, params, ok := sb.Probe(kind)
	if !ok || entity == "" {
		return nil
	}
	opts, err := sb.Options(kind)
	if err != nil {
		return err
	}
	conn, err := kinds.Open(kind, creds, opts...)
	if err != nil {
		return fmt.Errorf("connect %s: the new credentials do not open the sandbox's %s: %w", kind, kind, err)
	}
	page, err := conn.List(ctx, entity, params)
	if err != nil {
		return fmt.Errorf("connect %s: reading %s with the new credentials: %w", kind, entity, err)
	}
	say("tributary: sandbox check: %s %s list read %d %s with the new credentials\n", kind, entity, len(page.Records), plural(int64(len(page.Records)), "record"))
	return nil
}

// vendorName is the vendor's name for kind, for the messages.
func vendorName(kind string) string {
	if info, ok := kindInfos()[kind]; ok {
		name, _, _ := strings.Cut(info.vendor, " ")
		return name
	}
	return kind
}

// openBrowser opens url in the user's browser: $BROWSER (a command; %s
// stands for the URL, else it is appended), else the system's opener. It
// does not wait for the browser.
func (a *app) openBrowser(_ context.Context, url string) error {
	var argv []string
	if b := a.env("BROWSER"); b != "" {
		b, _, _ = strings.Cut(b, string(os.PathListSeparator)) // a list: the first
		argv = strings.Fields(b)
		if strings.Contains(b, "%s") {
			for i := range argv {
				argv[i] = strings.ReplaceAll(argv[i], "%s", url)
			}
		} else {
			argv = append(argv, url)
		}
	} else {
		switch runtime.GOOS {
		case "darwin":
			argv = []string{"open", url}
		case "windows":
			argv = []string{"rundll32", "url.dll,FileProtocolHandler", url}
		default:
			argv = []string{"xdg-open", url}
		}
	}
	if len(argv) == 0 {
		return errors.New("$BROWSER is blank")
	}
	c := exec.Command(argv[0], argv[1:]...)
	if err := c.Start(); err != nil {
		return err
	}
	go func() { _ = c.Wait() }() // reap it; a browser may outlive the command
	return nil
}

// callback is the vendor's redirect with this flow's state: a code, or the
// error the vendor sent. outcome takes the result of the flow, for the page.
type callback struct {
	code    string
	err     error
	outcome chan error
}

// waiter serves the loopback redirect URI: it hands the first callback
// that carries the flow's state to the command and answers the browser
// with the outcome; it refuses callbacks with another state and ignores
// other paths, without ending the wait.
type waiter struct {
	kind, vendor string
	flow         *connect.Flow
	state        string
	say          func(string, ...any)
	calls        chan callback
	quit         chan struct{} // closed when the command stops waiting
	answered     atomic.Bool
}

func (w *waiter) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	if r.URL.Path != callbackPath {
		resultPage(rw, http.StatusNotFound, false, "Not found", "This address only takes the vendor's redirect to "+callbackPath+".")
		return
	}
	code, err := w.flow.Callback(r.URL.Query(), w.state)
	if errors.Is(err, connect.ErrState) {
		w.say("tributary: connect %s: refused a callback whose state is not this command's (a stale tab or a forged link); still waiting\n", w.kind)
		resultPage(rw, http.StatusBadRequest, false, "Refused: not this command's request",
			"This answer does not carry the state the running 'tributary connect "+w.kind+"' issued (a stale tab or a forged link), so it was refused and nothing was saved. "+
				"The command is still waiting: use the URL it printed.")
		return
	}
	if !w.answered.CompareAndSwap(false, true) {
		resultPage(rw, http.StatusConflict, false, "Already answered", "The command has already received its answer. You can close this tab.")
		return
	}
	c := callback{code: code, err: err, outcome: make(chan error, 1)}
	select {
	case w.calls <- c:
	case <-w.quit:
		resultPage(rw, http.StatusServiceUnavailable, false, "The command stopped waiting", "'tributary connect "+w.kind+"' is no longer waiting for this answer. Nothing was saved.")
		return
	}
	err = <-c.outcome
	switch {
	case err == nil:
		resultPage(rw, http.StatusOK, true, "Connected — you can close this tab",
			"Tributary received the credentials of your "+w.vendor+" account and saved them where the command says.")
	case errors.Is(err, connect.ErrAccessDenied):
		resultPage(rw, http.StatusForbidden, false, "Access denied",
			"You declined at "+w.vendor+"'s consent page, so nothing was saved. Run 'tributary connect "+w.kind+"' again to retry.")
	default:
		resultPage(rw, http.StatusBadGateway, false, "Connecting "+w.vendor+" failed", err.Error())
	}
}

var resultTmpl = template.Must(template.New("result").Parse(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>{{.Title}} – tributary connect</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;line-height:1.5}h1{color:{{if .OK}}#1a7f37{{else}}#b3261e{{end}}}</style>
</head>
<body>
<main>
<h1 id="result">{{.Title}}</h1>
<p id="detail">{{.Detail}}</p>
</main>
</body>
</html>
`))

// resultPage answers the browser with a small page; no secret is in it.
func resultPage(rw http.ResponseWriter, status int, ok bool, title, detail string) {
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	rw.Header().Set("Cache-Control", "no-store")
	rw.Header().Set("Referrer-Policy", "no-referrer")
	rw.WriteHeader(status)
	_ = resultTmpl.Execute(rw, map[string]any{"Title": title, "Detail": detail, "OK": ok})
}
