package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/hpgraph/hpgraph/serve/loadgen"
	"github.com/spf13/cobra"
)

const loadgenSchema = "hpgraph-loadgen/1"

const loadgenLong = `Load-test a running ` + "`hpgraph serve`" + `: --clients clients send queries of
--algo (one algorithm, or a comma list: query i runs the list's (i mod
length)-th) to graph --graph, each as soon as its last one is answered,
until --queries are answered or --duration passes (the queries then in
flight are canceled), and print a line per algorithm and one overall:
queries, errors by HTTP status, throughput, the client-side latency of
the successful queries (p50, p90, p99, max; nearest rank) and the
medians of the server's compute and queue times (its times_ms).

--sources picks bfs's and sssp's sources: random draws them uniformly
among the graph's vertex ids (the id range GET /v1/graphs/NAME reports
when they are contiguous, else the ids of one per-vertex cc query made
before the run), hub sends none (the server's default, the vertex of
highest degree), a comma list draws among its ids. Query i's source
depends on --seed and i only.

--params is a JSON object of run parameters: as is with one algorithm;
in a mix each algorithm gets the ones it takes (and max_iter). One that
no algorithm of the mix takes is refused before the run.

The URL must be a loopback one (load tests go to 127.0.0.1) unless
--allow-remote is given.`

type loadgenOptions struct {
	cfg      loadgen.Config
	algo     string
	params   string
	jsonFile string
}

func newLoadgen() *cobra.Command {
	var lo loadgenOptions
	cmd := &cobra.Command{
		Use:   "loadgen --graph NAME --algo ALGO[,ALGO...] [--clients N] [--queries N] [--duration D]",
		Short: "Load-test hpgraph serve: throughput, latency p50/p90/p99/max and server compute times per algorithm",
		Long:  loadgenLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runLoadgen(ctx, lo, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&lo.cfg.URL, "url", loadgen.DefaultURL, "the server's base URL (a loopback address unless --allow-remote)")
	f.StringVar(&lo.cfg.Token, "token", "", "bearer token (default: $HPGRAPH_TOKEN)")
	f.BoolVar(&lo.cfg.AllowRemote, "allow-remote", false, "allow a --url whose host is not a loopback address")
	f.StringVar(&lo.cfg.Graph, "graph", "", "the loaded graph to query (required)")
	f.StringVar(&lo.algo, "algo", "bfs", "one of "+strings.Join(loadgen.Algorithms, ", ")+", or a comma list of them for a mix")
	f.StringVar(&lo.params, "params", "", `run parameters as a JSON object, e.g. '{"iterations":20}' (no src: see --sources)`)
	f.StringVar(&lo.cfg.Sources, "sources", "random", "bfs and sssp sources: random, hub or a comma list of vertex ids")
	f.IntVar(&lo.cfg.Clients, "clients", 1, "concurrent clients")
	f.IntVar(&lo.cfg.Queries, "queries", loadgen.DefaultQueries, "queries to send in all (0: as many as --duration allows)")
	f.DurationVar(&lo.cfg.Duration, "duration", loadgen.DefaultDuration, "time limit of the run, whichever of it and --queries comes first")
	f.Uint64Var(&lo.cfg.Seed, "seed", 1, "seed of the random sources")
	f.StringVar(&lo.jsonFile, "json", "", "write the report ("+loadgenSchema+") as JSON to this file")
	return cmd
}

// loadgenRecord is --json's record.
type loadgenRecord struct {
	Schema  string `json:"schema"`
	Version string `json:"version"`
	*loadgen.Report
}

func runLoadgen(ctx context.Context, lo loadgenOptions, stdout, stderr io.Writer) error {
	cfg := lo.cfg
	if cfg.Token == "" {
		cfg.Token = os.Getenv("HPGRAPH_TOKEN")
	}
	if cfg.Graph == "" {
		return fmt.Errorf("loadgen: --graph is required: the name of a graph the server has loaded")
	}
	if cfg.Queries < 0 {
		return fmt.Errorf("loadgen: --queries %d: want a positive number (0: until --duration)", cfg.Queries)
	}
	if cfg.Queries == 0 {
		cfg.Queries = -1
	}
	if cfg.Duration <= 0 {
		return fmt.Errorf("loadgen: --duration %v: want a positive duration", cfg.Duration)
	}
	if cfg.Clients <= 0 {
		return fmt.Errorf("loadgen: --clients %d: want at least 1", cfg.Clients)
	}
	for _, a := range strings.Split(lo.algo, ",") {
		if a = strings.TrimSpace(a); a != "" {
			cfg.Algos = append(cfg.Algos, a)
		}
	}
	if lo.params != "" {
		cfg.Params = json.RawMessage(lo.params)
	}
	if err := loadgen.CheckURL(cfg.URL, cfg.AllowRemote); err != nil {
		return fmt.Errorf("loadgen: %w", err)
	}
	if err := checkOutput("--json", lo.jsonFile); err != nil {
		return err
	}
	cfg.Logf = func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }
	rep, err := loadgen.Run(ctx, cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "# %s graph %s (%d vertices, %s): %d clients, mix %s, sources %s; %.2fs, stopped by %s\n",
		rep.URL, rep.Graph, rep.Vertices, rep.Backend, rep.Clients, strings.Join(rep.Mix, ","), rep.Sources, rep.WallS, rep.StoppedBy)
	for _, line := range rep.Lines() {
		fmt.Fprintln(stdout, line)
	}
	if lo.jsonFile != "" {
		return writeJSON(lo.jsonFile, loadgenRecord{Schema: loadgenSchema, Version: version(), Report: rep})
	}
	return nil
}
