package registry_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/registry"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/vptest"
)

// TestRegistryDeclarations: every app is declared whole and consistently:
// unique names and aliases, its parameters known and valid at their
// defaults, its LDBC keys naming its parameters, its variants applicable.
func TestRegistryDeclarations(t *testing.T) {
	seen := map[string]string{}
	for _, a := range registry.Apps() {
		for _, n := range append([]string{a.Name}, a.Aliases...) {
			if other, dup := seen[n]; dup {
				t.Errorf("%q names both %s and %s", n, other, a.Name)
			}
			seen[n] = a.Name
			if registry.Lookup(n) != a {
				t.Errorf("Lookup(%q) is not %s", n, a.Name)
			}
		}
		if a.About == "" || a.Program == nil || len(a.Columns) == 0 || a.Traffic == nil {
			t.Errorf("%s: about %q, program %v, columns %v, traffic model %v", a.Name, a.About, a.Program, a.Columns, a.Traffic != nil)
		}
		def := registry.DefaultParams()
		if err := a.CheckParams(&def); err != nil {
			t.Errorf("%s: the defaults are refused: %v", a.Name, err)
		}
		for _, lp := range a.LDBC.Params {
			if p := a.Param(lp.Param); p == nil || p.ParamName() != lp.Param || lp.Key == "" {
				t.Errorf("%s: LDBC key %q names %q, no parameter of the app", a.Name, lp.Key, lp.Param)
			}
		}
		if a.LDBC.Source != "" && !a.Source {
			t.Errorf("%s: an LDBC source key without a source", a.Name)
		}
		for _, v := range a.Variants {
			p := registry.DefaultParams()
			if err := v.Apply(&p); err != nil || registry.Lookup(v.Name) != nil {
				t.Errorf("%s: variant %s: %v (or its name is an app's)", a.Name, v.Name, err)
			}
			for _, s := range v.Set {
				if !a.Takes(s.Param.ParamName()) {
					t.Errorf("%s: variant %s sets %s, which the app does not take", a.Name, v.Name, s.Param)
				}
			}
		}
	}
	// Each parameter has one name, one JSON name and its own value.
	names := map[string]bool{}
	for _, p := range registry.AllParams() {
		if names[p.ParamName()] || names[p.JSONName()] {
			t.Errorf("parameter %s declared twice", p.ParamName())
		}
		names[p.ParamName()], names[p.JSONName()] = true, true
		before := registry.DefaultParams()
		after := before
		switch x := p.(type) {
		case *apps.Param[int]:
			x.SetValue(&after, x.Default+7)
		case *apps.Param[float64]:
			x.SetValue(&after, x.Default+0.125)
		case *apps.Param[string]:
			x.SetValue(&after, x.Default+"x")
		case *apps.Param[bool]:
			x.SetValue(&after, !x.Default)
		default:
			t.Fatalf("%s: a %T", p.ParamName(), p)
		}
		for _, q := range registry.AllParams() {
			if changed := q.Value(&before) != q.Value(&after); changed != (q == p) {
				t.Errorf("setting %s changes %s: %v", p.ParamName(), q.ParamName(), changed)
			}
		}
	}
	if a, err := registry.Find("wcc"); err != nil || a.Name != "cc" {
		t.Errorf("wcc: %v, %v", a, err)
	}
	if _, err := registry.Find("dfs"); err == nil || !strings.Contains(err.Error(), strings.Join(registry.Names(), ", ")) {
		t.Errorf("an unknown name: %v", err)
	}
}

// TestRegistryParamErrors: a bad value is a *ParamError naming its
// parameter, with the value and what was wanted.
func TestRegistryParamErrors(t *testing.T) {
	d, err := datasets.Build(&datasets.EdgeList{N: 3, Src: []int32{0, 1}, Dst: []int32{1, 2}}, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := vertexprog.NewGraph(d)
	for _, c := range []struct {
		app, param string
		set        func(p *apps.Params)
		msg        string
	}{
		{"pagerank", "damping", func(p *apps.Params) { p.Damping = 1.5 }, "1.5: want a number in [0, 1]"},
		{"pagerank-ldbc", "precision", func(p *apps.Params) { p.Precision = "half" }, `"half": want float64 or float32`},
		{"cdlp", "iterations", func(p *apps.Params) { p.Iterations = -1 }, "-1: want 0 or more"},
		{"sssp", "delta", func(p *apps.Params) { p.Delta = -2 }, "-2: want -1 (the default)"},
		{"cc", "max-iter", func(p *apps.Params) { p.MaxIter = -1 }, "-1: want 0 (the algorithm's own) or more"},
	} {
		req := apps.Request{Params: registry.DefaultParams()}
		c.set(&req.Params)
		_, err := registry.Lookup(c.app).Run(g, req, vertexprog.Options{Backend: "cpu"})
		var pe *apps.ParamError
		if !errors.As(err, &pe) || pe.Param.ParamName() != c.param || !strings.Contains(pe.Err.Error(), c.msg) {
			t.Errorf("%s: error %v, want %s: %s", c.app, err, c.param, c.msg)
		}
	}
	// (the paper's PageRank runs in float64 only: no precision to take)
	if registry.Lookup("pagerank").Takes("precision") {
		t.Error("pagerank takes a precision")
	}
	// (a parameter the app does not take is not its to check)
	req := apps.Request{Params: registry.DefaultParams()}
	req.Damping = 7
	if _, err := registry.Lookup("bfs").Run(g, req, vertexprog.Options{Backend: "cpu"}); err != nil {
		t.Errorf("bfs with a bad damping: %v", err)
	}
	p := registry.DefaultParams()
	if err := registry.Lookup("cdlp").Param("iterations").Set(&p, "x"); err == nil || p.Iterations != 10 {
		t.Errorf("Set(x): %v, iterations %d", err, p.Iterations)
	}
}

// TestEveryAppRuns: every app runs through the registry on graphs of every
// shape, directed and not, and passes its check against the reference;
// its rows, --out lines and LDBC lines cover every vertex.
func TestEveryAppRuns(t *testing.T) {
	opt := datasets.Options{Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 64, Seed: 5}
	for _, sg := range vptest.Graphs(t, opt) {
		g := vertexprog.NewGraph(sg.G)
		for _, a := range registry.Apps() {
			for _, need := range []apps.Need{apps.NeedAll, apps.NeedRows, apps.NeedSummary} {
				req := apps.Request{Params: registry.DefaultParams(), Need: need}
				res, err := a.Run(g, req, vertexprog.Options{Backend: "cpu"})
				if errors.Is(err, apps.ErrInvalidInput) {
					continue // (not defined on the graph)
				}
				if err != nil {
					t.Fatalf("%s on %s: %v", a.Name, sg.Name, err)
				}
				what := a.Name + " on " + sg.Name
				if res.Summary == "" || len(res.Fields) == 0 || res.Stats.Backend != "cpu" {
					t.Errorf("%s: summary %q, fields %v, backend %q", what, res.Summary, res.Fields, res.Stats.Backend)
				}
				if need == apps.NeedSummary {
					continue
				}
				if err := res.Check(); err != nil {
					t.Errorf("%s: %v", what, err)
				}
				if (res.WriteLDBC != nil) != a.LDBC.Output {
					t.Errorf("%s: LDBC output %v, declared %v", what, res.WriteLDBC != nil, a.LDBC.Output)
				}
				if need == apps.NeedRows && res.Rows == nil {
					t.Fatalf("%s: no rows", what)
				}
				if res.Rows != nil {
					cells := make([]apps.Cell, len(a.Columns))
					for v := int32(0); v < int32(g.N()); v++ {
						res.Rows(v, cells)
					}
				}
				lines := func(write func(w *bytes.Buffer) error) int {
					var b bytes.Buffer
					if err := write(&b); err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					return strings.Count(b.String(), "\n")
				}
				n := lines(func(b *bytes.Buffer) error { return res.WriteText(b) })
				if n != g.N() && !(res.Rows == nil && n == 1) { // (tc without per-vertex counts: the total)
					t.Errorf("%s: %d --out lines, %d vertices", what, n, g.N())
				}
				if res.WriteLDBC != nil {
					if n := lines(func(b *bytes.Buffer) error { return res.WriteLDBC(b) }); n != g.N() {
						t.Errorf("%s: %d LDBC lines, %d vertices", what, n, g.N())
					}
				}
			}
		}
	}
}

// TestScratchReuse: summary queries that share a Scratch (a server's,
// lending each the last answer's arrays) answer as fresh ones do, every
// app in turn on every graph, twice over, so one app's arrays left in the
// scratch never leak into another's or the next query's answer.
func TestScratchReuse(t *testing.T) {
	opt := datasets.Options{Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 64, Seed: 5}
	for _, sg := range vptest.Graphs(t, opt) {
		g := vertexprog.NewGraph(sg.G)
		s := &apps.Scratch{}
		for round := range 2 {
			for _, a := range registry.Apps() {
				req := apps.Request{Params: registry.DefaultParams(), Need: apps.NeedSummary}
				fresh, err := a.Run(g, req, vertexprog.Options{Backend: "cpu"})
				if errors.Is(err, apps.ErrInvalidInput) {
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				req.Scratch = s
				reused, err := a.Run(g, req, vertexprog.Options{Backend: "cpu"})
				if err != nil {
					t.Fatal(err)
				}
				if reused.Summary != fresh.Summary {
					t.Errorf("%s on %s, round %d: %q with a scratch, %q without", a.Name, sg.Name, round, reused.Summary, fresh.Summary)
				}
			}
		}
	}
}
