package registry_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/bfs"
	"github.com/hpgraph/hpgraph/apps/cc"
	"github.com/hpgraph/hpgraph/apps/cdlp"
	"github.com/hpgraph/hpgraph/apps/lcc"
	"github.com/hpgraph/hpgraph/apps/pagerank"
	"github.com/hpgraph/hpgraph/apps/registry"
	"github.com/hpgraph/hpgraph/apps/sssp"
	"github.com/hpgraph/hpgraph/apps/tc"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// TestParamChecksAgreeWithPrograms: a value the front ends' checks take
// (App.CheckParams: run's flags, serve's params) is one the app's program
// runs with, so that no accepted request fails in the run (serve's 500 for
// pagerank-ldbc with 0 iterations, which the check took); and a value the
// checks refuse, the program refuses too, as invalid input, where the
// program reads it. Each parameter of each app is tried at values around
// its bounds, the others at their defaults, by the app's own run, which
// does not check the parameters again.
func TestParamChecksAgreeWithPrograms(t *testing.T) {
	el := &datasets.EdgeList{N: 6, Src: []int32{0, 1, 2, 3, 4, 5, 0}, Dst: []int32{1, 2, 0, 4, 5, 3, 3},
		W: []float32{1, 2, 3, 1, 2, 3, 4}, Directed: true, Name: "two-triangles"}
	d, err := datasets.Build(el, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := vertexprog.NewGraph(d)
	values := map[string][]string{
		"int":     {"-2", "-1", "0", "1", "2"},
		"float64": {"-2", "-1", "-0.5", "0", "0.5", "1", "2", "NaN", "+Inf", "-Inf"},
		"string":  {"float64", "float32", "half"},
		"bool":    {"false", "true"},
	}
	for _, a := range registry.Apps() {
		for _, prm := range a.AllParams() {
			kind := fmt.Sprintf("%T", prm.Value(&apps.Params{}))
			for _, text := range values[kind] {
				p := registry.DefaultParams()
				if err := prm.Set(&p, text); err != nil {
					// (refused by the parameter's own check: its field
					// keeps the default, so set it as a bad flag would
					// have, and let the app's run see it)
					setRaw(t, prm, &p, text)
				}
				checked := a.CheckParams(&p)
				req := apps.Request{Params: p, Source: 0}
				opt := vertexprog.Options{Backend: "cpu", MaxIterations: max(p.MaxIter, 0)}
				_, runErr := a.Answer(g, req, opt)
				switch {
				case checked == nil && runErr != nil:
					t.Errorf("%s --%s %s: the checks take it, the run fails: %v", a.Name, prm.ParamName(), text, runErr)
				case checked != nil && !errors.Is(checked, apps.ErrInvalidInput):
					t.Errorf("%s --%s %s: the check's error %v is no apps.ErrInvalidInput", a.Name, prm.ParamName(), text, checked)
				case checked != nil && runErr != nil && reads(a, prm) && !errors.Is(runErr, apps.ErrInvalidInput):
					t.Errorf("%s --%s %s: the run refuses it, but not as invalid input: %v", a.Name, prm.ParamName(), text, runErr)
				}
			}
		}
	}
}

// reads says whether app a's program checks prm itself (max-iter is the
// engine's; precision picks the program).
func reads(a *apps.App, prm apps.AnyParam) bool {
	return prm != apps.ParamMaxIter && prm != pagerank.ParamPrecision && a.Takes(prm.ParamName())
}

// setRaw sets prm's value to text parsed without the check.
func setRaw(t *testing.T, prm apps.AnyParam, p *apps.Params, text string) {
	t.Helper()
	switch x := prm.(type) {
	case *apps.Param[int]:
		v := x.Get(p)
		fmt.Sscan(text, &v)
		x.SetValue(p, v)
	case *apps.Param[float64]:
		v := math.NaN()
		fmt.Sscan(text, &v)
		x.SetValue(p, v)
	case *apps.Param[string]:
		x.SetValue(p, text)
	case *apps.Param[bool]:
		v := x.Get(p)
		fmt.Sscan(text, &v)
		x.SetValue(p, v)
	}
}

// TestLibraryMisuseIsInvalidInput: every app's function refuses a nil
// graph, and a parameter the app does not take, with an error wrapping
// apps.ErrInvalidInput (the README's promise), not a panic nor a bare error.
func TestLibraryMisuseIsInvalidInput(t *testing.T) {
	d, err := datasets.Build(&datasets.EdgeList{N: 3, Src: []int32{0, 1}, Dst: []int32{1, 2}, Name: "path"}, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := vertexprog.NewGraph(d)
	opt := vertexprog.Options{Backend: "cpu"}
	for _, c := range []struct {
		name string
		run  func(g *vertexprog.Graph) error
	}{
		{"BFS", func(g *vertexprog.Graph) error { _, err := bfs.Run(g, 0, opt); return err }},
		{"BFSReusing", func(g *vertexprog.Graph) error { _, err := bfs.Reusing(g, 0, opt, nil); return err }},
		{"SSSP", func(g *vertexprog.Graph) error { _, err := sssp.Run(g, 0, opt); return err }},
		{"SSSPDelta", func(g *vertexprog.Graph) error { _, err := sssp.RunDelta(g, 0, 1, opt); return err }},
		{"PageRank", func(g *vertexprog.Graph) error { _, err := pagerank.Run(g, 0.85, 1e-6, 0, opt); return err }},
		{"PageRankLDBC", func(g *vertexprog.Graph) error { _, err := pagerank.LDBC(g, 0.85, 10, opt); return err }},
		{"PageRankLDBCIn", func(g *vertexprog.Graph) error { _, err := pagerank.LDBCIn[float32](g, 0.85, 10, opt); return err }},
		{"Triangles", func(g *vertexprog.Graph) error { _, err := tc.Run(g, true, opt); return err }},
		{"ConnectedComponents", func(g *vertexprog.Graph) error { _, err := cc.Run(g, opt); return err }},
		{"LCC", func(g *vertexprog.Graph) error { _, err := lcc.Run(g, opt); return err }},
		{"CDLP", func(g *vertexprog.Graph) error { _, err := cdlp.Run(g, 3, opt); return err }},
		{"BFSFrom", func(g *vertexprog.Graph) error { _, err := bfs.From(g, 1, opt); return err }},
		{"SSSPFrom", func(g *vertexprog.Graph) error { _, err := sssp.From(g, 1, opt); return err }},
		{"ConnectedComponentsByID", func(g *vertexprog.Graph) error { _, err := cc.RunByID(g, opt); return err }},
	} {
		for _, nilGraph := range []*vertexprog.Graph{nil, vertexprog.NewGraph(nil)} {
			if err := c.run(nilGraph); !errors.Is(err, apps.ErrInvalidInput) || !errors.Is(err, vertexprog.ErrNilGraph) {
				t.Errorf("%s on a nil graph: %v, want apps.ErrInvalidInput and ErrNilGraph", c.name, err)
			}
		}
		if err := c.run(g); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	for _, c := range []struct {
		name  string
		param string
		err   error
	}{
		{"damping 2", "damping", func() error { _, err := pagerank.LDBC(g, 2, 10, opt); return err }()},
		{"damping NaN", "damping", func() error { _, err := pagerank.Run(g, math.NaN(), 1e-6, 0, opt); return err }()},
		{"tolerance -1", "tolerance", func() error { _, err := pagerank.Run(g, 0.85, -1, 0, opt); return err }()},
		{"0 iterations", "iterations", func() error { _, err := pagerank.LDBC(g, 0.85, 0, opt); return err }()},
		{"cdlp -1 iterations", "iterations", func() error { _, err := cdlp.Run(g, -1, opt); return err }()},
		{"delta -1", "delta", func() error { _, err := sssp.RunDelta(g, 0, -1, opt); return err }()},
		{"source 7", "", func() error { _, err := bfs.Run(g, 7, opt); return err }()},
	} {
		var pe *apps.ParamError
		if !errors.Is(c.err, apps.ErrInvalidInput) {
			t.Errorf("%s: %v, want an apps.ErrInvalidInput", c.name, c.err)
		} else if c.param != "" && (!errors.As(c.err, &pe) || pe.Param.ParamName() != c.param) {
			t.Errorf("%s: %v, want a ParamError naming %s", c.name, c.err, c.param)
		}
	}
}
