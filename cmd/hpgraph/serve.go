package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/hpgraph/hpgraph/serve"
	"github.com/spf13/cobra"
)

const serveLong = `Serve graphs over HTTP/JSON: load graphs at start (--graph) or on request,
keep them (and the matrices their queries build) on the backend, and
answer queries of every built-in algorithm, with run's parameter names and
defaults, in the file's own ids. README.md ("hpgraph serve") and
docs/serve-openapi.yaml describe the API:

  GET    /v1/health
  GET    /v1/graphs                  POST /v1/graphs {"name","path",...}
  GET    /v1/graphs/NAME             DELETE /v1/graphs/NAME
  PUT    /v1/graphs/NAME             (an upload: edge arrays in the body)
  POST   /v1/graphs/NAME/run         {"algo","params","output"}
  GET    /metrics                    (Prometheus)

Graphs load only from --data-dir (paths relative to it; '..', absolute
paths and symlinks that lead out are refused). It listens on 127.0.0.1
by default; any other address needs --allow-remote and --token (clients
send Authorization: Bearer TOKEN). Queries wait in a bounded queue
(--max-queue; full: 503 with Retry-After), run --workers at a time (4 on a
GPU, whose calls they make one at a time while their host work overlaps;
GOMAXPROCS on the CPU), stop after --timeout (504) or when their client
disconnects. SIGINT or SIGTERM stops accepting requests, finishes the
queries in flight and frees the graphs; a second SIGINT or SIGTERM stops
at once, cancelling the queries still running.`

// serveOptions are serve's flags.
type serveOptions struct {
	cfg    serve.Config
	graphs []string // NAME=PATH
	lf     loadFlags
	cf     cudaFlags
}

func newServe() *cobra.Command {
	var so serveOptions
	cmd := &cobra.Command{
		Use:   "serve --data-dir DIR [--graph NAME=PATH]...",
		Short: "Serve graphs and queries of every algorithm over HTTP/JSON (a small API with Prometheus metrics)",
		Long:  serveLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// The first SIGINT or SIGTERM ends ctx (a graceful stop), the
			// second ends force (stop now).
			sigs := make(chan os.Signal, 2)
			signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
			defer signal.Stop(sigs)
			ctx, stop := context.WithCancel(cmd.Context())
			defer stop()
			force, stopNow := context.WithCancel(context.Background())
			defer stopNow()
			go func() {
				for _, end := range []context.CancelFunc{stop, stopNow} {
					select {
					case <-sigs:
						end()
					case <-force.Done():
						return
					}
				}
			}()
			return runServe(ctx, force, so, cmd.ErrOrStderr(), nil)
		},
	}
	f := cmd.Flags()
	f.StringVar(&so.cfg.Listen, "listen", serve.DefaultListen, "address to listen on; other than a loopback one it needs --allow-remote and --token")
	f.StringVar(&so.cfg.DataDir, "data-dir", "", "the directory graphs load from (required): --graph and POST /v1/graphs take paths relative to it")
	f.StringArrayVar(&so.graphs, "graph", nil, "load a graph at start: NAME=PATH, PATH relative to --data-dir (repeatable); the load flags below apply to these")
	f.StringVar(&so.cfg.Backend, "backend", "auto", "where queries run: auto (GPU if present, else CPU), cpu or cuda")
	f.StringVar(&so.cfg.Token, "token", "", "bearer token every request but /v1/health must carry (default: $HPGRAPH_TOKEN)")
	f.BoolVar(&so.cfg.AllowRemote, "allow-remote", false, "allow a --listen address other than loopback (needs --token)")
	f.IntVar(&so.cfg.Workers, "workers", 0, "queries that run at once (0: 4 on a GPU, whose calls they make one at a time, their host work overlapping; GOMAXPROCS on the CPU)")
	f.IntVar(&so.cfg.MaxQueue, "max-queue", serve.DefaultMaxQueue, "queries that may wait for a worker; more are answered 503 with Retry-After")
	f.DurationVar(&so.cfg.QueryTimeout, "timeout", serve.DefaultQueryTimeout, "a query's time limit, its wait in the queue included (504)")
	f.Int64Var(&so.cfg.MaxBodyBytes, "max-body", serve.DefaultMaxBodyBytes, "request body limit in bytes (413)")
	f.Int64Var(&so.cfg.MaxResultBytes, "max-result", serve.DefaultMaxResultBytes, "per-vertex answer limit in bytes (413)")
	f.Int64Var(&so.cfg.MaxUploadBytes, "max-upload", serve.DefaultMaxUploadBytes, "uploaded graph (PUT /v1/graphs/NAME) limit in bytes (413)")
	f.Int64Var(&so.cfg.DeviceBudget, "device-budget", 0, "bytes the loaded graphs may take on the backend (0: the device's memory; no limit on the CPU)")
	so.lf.register(f)
	so.cf.register(f)
	// A served graph stays loaded: renumbering a skewed one by degree
	// pays, as in bench (serve.LoadOptions).
	f.Lookup("relabel").DefValue = "auto"
	so.lf.Relabel = "auto"
	return cmd
}

// runServe serves until ctx ends, then shuts down gracefully: the
// queries in flight finish, unless force ends first, which closes every
// connection (cancelling the queries still running) and returns at once.
// ready, when set, receives the address listened on.
func runServe(ctx, force context.Context, so serveOptions, log io.Writer, ready func(addr string)) error {
	cfg := so.cfg
	if cfg.Token == "" {
		cfg.Token = os.Getenv("HPGRAPH_TOKEN")
	}
	cfg.Logf = func(format string, args ...any) {
		fmt.Fprintf(log, "%s %s\n", time.Now().Format(time.RFC3339), fmt.Sprintf(format, args...))
	}
	if cfg.DataDir == "" {
		return errors.New("serve: --data-dir is required: graphs load only from it")
	}
	if _, err := so.lf.options(); err != nil {
		return err
	}
	lo, err := so.lf.wireOptions()
	if err != nil {
		return err
	}
	if err := so.cf.apply(); err != nil {
		return err
	}
	s, err := serve.New(cfg)
	if err != nil {
		return err
	}
	defer s.Shutdown(context.Background())
	for _, g := range so.graphs {
		name, path, ok := strings.Cut(g, "=")
		if !ok || name == "" || path == "" {
			return fmt.Errorf("--graph %q: want NAME=PATH (PATH relative to --data-dir)", g)
		}
		if err := s.LoadGraph(name, path, lo); err != nil {
			return fmt.Errorf("--graph %s: %w", g, err)
		}
	}
	ln, err := net.Listen("tcp", s.Config().Listen)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	cfg.Logf("serve: listening on http://%s (backend %s, data %s)", ln.Addr(), cfg.Backend, cfg.DataDir)
	if ready != nil {
		ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	cfg.Logf("serve: stopping: finishing the queries in flight (a second SIGINT or SIGTERM stops at once)")
	// The queries in flight end by their own timeout at the latest, or
	// when force ends.
	sctx, cancel := context.WithTimeout(force, s.Config().QueryTimeout+5*time.Second)
	defer cancel()
	err = hs.Shutdown(sctx)
	if err2 := s.Shutdown(sctx); err == nil {
		err = err2
	}
	if force.Err() != nil {
		// (closing the connections cancels their requests' contexts,
		// which the queries still running stop at)
		hs.Close()
		cfg.Logf("serve: stopped at once: the queries still running were cancelled")
		return exitError{1, "serve: stopped by a second signal before the queries in flight finished"}
	}
	cfg.Logf("serve: stopped")
	return err
}
