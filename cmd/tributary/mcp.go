package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/mcp"
)

// envMCPToken holds the bearer token of `tributary mcp --http`.
const envMCPToken = "TRIBUTARY_MCP_TOKEN"

// mcpFlags are the flags of `tributary mcp`.
type mcpFlags struct {
	config      string
	sandbox     bool
	http        string
	noAuth      bool
	downloadDir string
	verbose     bool
}

func (a *app) mcpCmd() *cobra.Command {
	var f mcpFlags
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve connectors to AI agents over the Model Context Protocol (stdio, or streamable HTTP)",
		Long: `mcp runs an MCP server with the tools list_connectors, describe, validate,
execute and download over the connectors of a configuration file (YAML or
JSON), and each connector's catalogue as a resource.

It speaks over stdin and stdout by default, as MCP clients that start their
servers expect; --http ADDR serves streamable HTTP at http://ADDR/mcp
instead. Over HTTP every request needs "Authorization: Bearer <token>" with
the token of ` + envMCPToken + ` (or http.token in the configuration), unless
ADDR is a loopback address and --no-auth is given.

--sandbox serves every kind's built-in fake, offline, with no configuration.`,
		Example: `  tributary mcp --sandbox                                # try it: stdio, every kind's fake
  tributary mcp --config tributary-mcp.yaml
  TRIBUTARY_MCP_TOKEN=$(openssl rand -hex 32) tributary mcp --config tributary-mcp.yaml --http 0.0.0.0:8765
  tributary mcp --config tributary-mcp.yaml --http 127.0.0.1:8765 --no-auth`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error { return a.serveMCP(cmd, &f) }),
	}
	fs := cmd.Flags()
	fs.StringVar(&f.config, "config", "", "the configuration file (YAML or JSON) naming the connectors")
	fs.BoolVar(&f.sandbox, "sandbox", false, "serve every kind's built-in fake, offline, with no configuration")
	fs.StringVar(&f.http, "http", "", "serve streamable HTTP on this address (host:port) instead of stdio")
	fs.BoolVar(&f.noAuth, "no-auth", false, "with --http on a loopback address: accept requests without a bearer token")
	fs.StringVar(&f.downloadDir, "download-dir", "", "where the download tool writes files (default: downloads.dir of the configuration; with --sandbox, a new temporary directory, removed at exit if empty)")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "log failed tool calls and every HTTP attempt to the sources on stderr (secrets redacted)")
	cmd.MarkFlagsMutuallyExclusive("sandbox", "config")
	return cmd
}

func (a *app) serveMCP(cmd *cobra.Command, f *mcpFlags) error {
	ctx := cmd.Context()
	level := slog.LevelWarn
	if f.verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: level}))
	opts := mcp.Options{Logger: logger, Version: version(), Downloads: mcp.Downloads{Dir: f.downloadDir}}
	connOpts := []tributary.Option{tributary.WithUserAgent("tributary-mcp/" + version())}
	if f.verbose {
		connOpts = append(connOpts, tributary.WithLogger(logger))
	}

	var srv *mcp.Server
	var cfg *mcp.Config
	var err error
	switch {
	case f.sandbox:
		if opts.Downloads.Dir == "" {
			if opts.Downloads.Dir, err = os.MkdirTemp("", "tributary-mcp-"); err != nil {
				return err
			}
			fmt.Fprintf(a.stderr, "tributary mcp: downloads go to %s\n", opts.Downloads.Dir)
			defer os.Remove(opts.Downloads.Dir) // only if nothing was downloaded
		}
		srv, err = mcp.Sandbox(opts, connOpts...)
	case f.config != "":
		if cfg, err = mcp.LoadConfig(f.config); err != nil {
			return usageErr(cmd, "%v", err)
		}
		if opts.Downloads.Dir != "" {
			cfg.Downloads.Dir = opts.Downloads.Dir
		}
		opts.Downloads = cfg.Downloads
		srv, err = mcp.FromConfig(ctx, cfg, a.getenv, opts, connOpts...)
		if errors.Is(err, mcp.ErrConfig) {
			return usageErr(cmd, "%v", err)
		}
	default:
		return usageErr(cmd, "give --config FILE with your connectors, or --sandbox to try every kind offline")
	}
	if err != nil {
		return err
	}
	defer srv.Close()
	if dir := opts.Downloads.Dir; dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return usageErr(cmd, "download directory: %v", err)
		}
	}

	if f.http == "" {
		if f.noAuth {
			return usageErr(cmd, "--no-auth goes with --http")
		}
		err := srv.Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(a.stdin), Writer: nopWriteCloser{a.stdout}})
		if ctx.Err() != nil || errors.Is(err, io.EOF) {
			return nil // the client went away, or Ctrl-C
		}
		return err
	}

	token := a.env(envMCPToken)
	if token == "" && cfg != nil {
		if token, err = cfg.HTTPToken(a.getenv); err != nil {
			return usageErr(cmd, "%v", err)
		}
	}
	loopback := mcp.IsLoopback(f.http)
	switch {
	case f.noAuth && !loopback:
		return usageErr(cmd, "--no-auth is only allowed on a loopback address (127.0.0.1:PORT, [::1]:PORT, localhost:PORT), not %q", f.http)
	case f.noAuth && token != "":
		return usageErr(cmd, "--no-auth and a token (%s or http.token) exclude each other", envMCPToken)
	case !f.noAuth && token == "":
		return usageErr(cmd, "--http needs a bearer token in %s (or http.token in the configuration); on a loopback address --no-auth serves without one", envMCPToken)
	}
	ln, err := net.Listen("tcp", f.http)
	if err != nil {
		return usageErr(cmd, "--http: %v", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.HTTPHandler(token))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(a.stderr, "tributary mcp: serving http://%s/mcp\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = hs.Shutdown(shutdown)
	_ = hs.Close()
	<-done
	return nil
}

// nopWriteCloser leaves the command's stdout open when the session ends.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
