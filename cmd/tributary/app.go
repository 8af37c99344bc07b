package main

import (
	"context"
	"errors"
	"io"
	"os"
	"runtime/debug"
	"slices"

	"github.com/spf13/cobra"
	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/sandbox"
	"golang.org/x/term"
)

// app is one invocation of the command: its streams, its environment and the
// flags every command shares. Nothing in it outlives run.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) (string, bool)
	isTerminal     func(io.Writer) bool
	// openURL opens a URL in the user's browser for 'connect'; nil means
	// openBrowser. Tests play the browser with it.
	openURL func(ctx context.Context, url string) error
	// sandbox, when set, is the sandbox 'connect --sandbox' runs against,
	// left running after it: tests read from the same fakes with the
	// credentials it obtained. Nil means a sandbox of its own.
	sandbox *sandbox.Sandbox
	// connOptions are added to the options of every connector opened in
	// direct mode; tests turn off the pacing to the vendors' rate limits
	// with them, which the fakes do not enforce.
	connOptions []tributary.Option
	// vendorURL, when set, is where 'connect' with your own OAuth app
	// reaches the vendor (tests: a fake); "" means the vendor's own.
	vendorURL string

	jsonErrors bool
	noProgress bool
}

// exitHelp documents the exit codes, in the root command's help.
const exitHelp = `Exit codes:
  0    success
  1    any other failure (a server error, a network failure, paging that does not advance)
  2    usage or validation: a bad flag or argument, an unknown kind, entity or action,
       a missing or ill-typed parameter, an invalid search query or range, a --store
       that is neither a file nor a postgres:// URL, an entity with no copy in the store
  3    authentication: missing, malformed or rejected credentials (401, 403);
       for connect, access denied at the consent page or an exchange the
       vendor refused
  4    not found (404)
  5    rate limited, after the retries the policy allows
  130  interrupted (Ctrl-C), sync --every included; what was written stays valid,
       and a store keeps the previous copy of an entity whose sync was interrupted`

func (a *app) root() *cobra.Command {
	root := &cobra.Command{
		Use:   "tributary",
		Short: "Read business systems through one contract, from the shell",
		Long: `tributary runs the operations of the Tributary contract: every read is an
operation {entity, action, params} on a connector kind (zendesk-support,
github, salesforce, ...). It lists the kinds, describes their catalogues, runs
one operation or walks every page, downloads files and searches, and keeps
durable copies to search (sync, search --store, store stats).

Three modes reach a source:
  direct (default)  your credentials: --credentials file.json, or the
                    environment variables 'tributary describe <type>' lists
  --sandbox         the built-in fakes of every kind, no credentials at all
  --hosted URL      the hosted service holds the credentials: set
                    TRIBUTARY_HOSTED_TOKEN, or TRIBUTARY_CLIENT_ID and
                    TRIBUTARY_CLIENT_SECRET, and give --connector-id

Results go to stdout as JSON (NDJSON with --all); errors and progress go to
stderr. Progress is shown only when stderr is a terminal.

` + exitHelp,
		Example: `  tributary kinds
  tributary describe zendesk-support tickets
  tributary exec zendesk-support tickets list --sandbox -p per_page=5
  tributary exec zendesk-support tickets list --sandbox --all > tickets.ndjson
  tributary download github release_assets --sandbox -p owner=octo -p repo=hello -p asset_id=40000028 -o hello.tar.gz
  tributary search zendesk-support tickets --sandbox --sync --query '{"filter": {"eq": {"status": "open"}}}'
  tributary sync zendesk-support --sandbox --store tributary.db
  tributary connect github --client-id ID --client-secret-file secret.txt --out github.json
  tributary search zendesk-support tickets --store tributary.db --query '{"filter": {"eq": {"status": "open"}}}'`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       version(),
	}
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageErr(c, "%v", err) })
	root.Flags().Bool("version", false, "print the version") // no -v: that is --verbose
	root.PersistentFlags().BoolVar(&a.jsonErrors, "json-errors", false, "print errors as one JSON object on stderr, for programs")
	root.PersistentFlags().BoolVar(&a.noProgress, "no-progress", false, "never show progress, even on a terminal")
	root.AddCommand(a.kindsCmd(), a.describeCmd(), a.execCmd(), a.downloadCmd(), a.searchCmd(), a.syncCmd(), a.storeCmd(), a.changesCmd(), a.createConnectorCmd(), a.connectCmd(), a.mcpCmd(), a.serveCmd())
	// cobra's own help and completion commands, with examples too.
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		switch c.Name() {
		case "help":
			c.Example = "  tributary help exec"
		case "completion":
			c.Example = `  source <(tributary completion bash)
  tributary completion zsh > "${fpath[1]}/_tributary"
  tributary completion fish > ~/.config/fish/completions/tributary.fish`
		}
	}
	return root
}

// run parses args, runs the command and returns the exit code.
func (a *app) run(ctx context.Context, args []string) int {
	if args == nil {
		args = []string{}
	}
	root := a.root()
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return 0
	}
	var oe *opError
	if errors.As(err, &oe) {
		err = oe.err
	} else {
		// Errors from before a command ran (an unknown command, a wrong
		// number of arguments) are usage errors, and the flags may not
		// have been parsed.
		if !isUsage(err) {
			err = usageErr(cmd, "%v", err)
		}
		if i := slices.Index(args, "--"); i >= 0 {
			args = args[:i]
		}
		a.jsonErrors = a.jsonErrors || slices.Contains(args, "--json-errors")
	}
	return a.report(ctx, err)
}

// opError marks an error returned by a command's own work, as opposed to
// cobra's parsing of the command line.
type opError struct{ err error }

func (e *opError) Error() string { return e.err.Error() }
func (e *opError) Unwrap() error { return e.err }

// runE adapts a command body so that its errors are told apart from parse
// errors.
func runE(f func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := f(cmd, args); err != nil {
			return &opError{err}
		}
		return nil
	}
}

// showProgress reports whether progress goes to stderr: stderr is a
// terminal, progress is not switched off, and the results do not go to the
// same terminal (toStdout: the work writes them to stdout).
func (a *app) showProgress(toStdout bool) bool {
	return !a.noProgress && a.isTerminal(a.stderr) && !(toStdout && a.isTerminal(a.stdout))
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	if l, ok := w.(*lockedWriter); ok {
		w = l.w
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// env returns the value of an environment variable, "" when unset.
func (a *app) env(name string) string {
	v, _ := a.getenv(name)
	return v
}

// version is the module version the binary was built from.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
