package main

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/apps/registry"
	"github.com/hpgraph/hpgraph/serve"
	"github.com/hpgraph/hpgraph/serve/client"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/spf13/pflag"
)

// TestLoadOptionsSameEverywhere: the command line's load flags and the
// server's load options (sent by the Go client) are one set of options
// under one rule: the same options give the same graph (its size, and
// sssp's distances over its weights from the same source), and the same
// bad option the same refusal, named as each front end names it.
func TestLoadOptionsSameEverywhere(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for k := range 40 {
		// (a loop on every fifth vertex, a duplicate on every seventh)
		fmt.Fprintf(&b, "%d %d %d\n", 100+k, 100+(k*7+3)%40, 1+k%5)
		if k%5 == 0 {
			fmt.Fprintf(&b, "%d %d 1\n", 100+k, 100+k)
		}
		if k%7 == 0 {
			fmt.Fprintf(&b, "%d %d 9\n", 100+k, 100+(k*7+3)%40)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "g.el"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := serve.New(serve.Config{DataDir: dir, Backend: "cpu", Logf: func(string, ...any) {}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	c := client.New(ts.URL, "")
	ctx := context.Background()
	sssp := registry.Lookup("sssp")

	same := []struct {
		flags []string
		opt   client.LoadOptions
	}{
		{nil, client.LoadOptions{}},
		{[]string{"--weights", "random:1-9", "--seed", "5"}, client.LoadOptions{Weights: "random:1-9", Seed: 5}},
		// Seed 0 is the default seed on both.
		{[]string{"--weights", "random:1-16777216", "--seed", "0"}, client.LoadOptions{Weights: "random:1-16777216"}},
		{[]string{"--weights", "none", "--keep-loops", "--keep-duplicates"}, client.LoadOptions{Weights: "none", KeepLoops: true, KeepDuplicates: true}},
		{[]string{"--symmetrize", "--relabel", "degree", "--format", "edgelist"}, client.LoadOptions{Symmetrize: true, Relabel: "degree", Format: "edgelist"}},
		{[]string{"--relabel", "none", "--keep-loops"}, client.LoadOptions{Relabel: "none", KeepLoops: true}},
	}
	for i, sc := range same {
		lf := parseLoadFlags(t, sc.flags)
		// (serve's --relabel default is auto, as the options' zero value)
		ld, err := lf.load(filepath.Join(dir, "g.el"), "cpu", 1)
		if err != nil {
			t.Fatalf("%v: %v", sc.flags, err)
		}
		d := ld.Data
		name := fmt.Sprintf("g%d", i)
		info, err := c.Load(ctx, name, "g.el", sc.opt)
		if err != nil {
			t.Fatalf("%+v: %v", sc.opt, err)
		}
		if info.Vertices != d.N || info.NNZ != d.NNZ() || info.Edges != d.Edges() || info.Directed != d.Directed || info.Weighted != (d.W != nil) {
			t.Errorf("%v: run loads %d vertices, %d arcs (weighted %v); serve %d, %d (weighted %v)",
				sc.flags, d.N, d.NNZ(), d.W != nil, info.Vertices, info.NNZ, info.Weighted)
		}
		o, err := runApp(sssp, vertexprog.NewGraph(d), params{Params: registry.DefaultParams(), src: 103}, vertexprog.Options{Backend: "cpu"})
		if err != nil {
			t.Fatal(err)
		}
		sum, err := c.Run(ctx, name, client.RunRequest{Algo: "sssp", Params: client.Params{Src: client.Ptr(int64(103))}})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Summary != o.summary {
			t.Errorf("%v: sssp on run's graph %q, on serve's %q", sc.flags, o.summary, sum.Summary)
		}
	}

	refused := []struct {
		flags         []string
		opt           client.LoadOptions
		field, reason string // the reason after the option's name
	}{
		{[]string{"--weights", "random:1-16777217"}, client.LoadOptions{Weights: "random:1-16777217"},
			"weights", `"random:1-16777217": want random:LO-HI with 0 <= LO <= HI <= 16777216, e.g. random:1-64`},
		{[]string{"--weights", "heavy"}, client.LoadOptions{Weights: "heavy"}, "weights", `"heavy": want keep, none or random:LO-HI`},
		{[]string{"--relabel", "random"}, client.LoadOptions{Relabel: "random"}, "relabel", `"random": want none, degree or auto`},
		{[]string{"--format", "csv"}, client.LoadOptions{Format: "csv"}, "format", `"csv": want auto, mtx, edgelist, hpg, ldbc, ldbc-adj, gap`},
	}
	for _, sc := range refused {
		lf := parseLoadFlags(t, sc.flags)
		_, err := lf.options()
		if want := pflagName(sc.field) + " " + sc.reason; err == nil || err.Error() != want {
			t.Errorf("%v: run says %v, want %q", sc.flags, err, want)
		}
		_, err = c.Load(ctx, "bad", "g.el", sc.opt)
		var e *client.Error
		if want := sc.field + ": " + sc.reason; !errors.As(err, &e) || e.Status != 400 || e.Field != sc.field || e.Message != want {
			t.Errorf("%+v: serve says %v, want 400 %q on %s", sc.opt, err, want, sc.field)
		}
	}
	lf := parseLoadFlags(t, []string{"--directed", "--undirected"})
	if _, err := lf.options(); err == nil || err.Error() != "--directed and --undirected: give one" {
		t.Errorf("run: %v", err)
	}
	_, err = c.Load(ctx, "bad", "g.el", client.LoadOptions{Directed: true, Undirected: true})
	if e := (*client.Error)(nil); !errors.As(err, &e) || e.Field != "undirected" || e.Message != "undirected: directed and undirected: give one" {
		t.Errorf("serve: %v", err)
	}
}

// parseLoadFlags parses args as a command's load flags.
func parseLoadFlags(t *testing.T, args []string) *loadFlags {
	t.Helper()
	var lf loadFlags
	fs := pflag.NewFlagSet("load", pflag.ContinueOnError)
	lf.register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return &lf
}

func pflagName(field string) string { return "--" + strings.ReplaceAll(field, "_", "-") }
