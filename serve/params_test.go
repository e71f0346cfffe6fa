package serve

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/registry"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// hubCount is a throw-away app whose parameters are declared here alone,
// with no field of apps.Params: how many vertices have min_degree
// out-arcs or more, each of weight hub_weight.
var (
	minDegree = &apps.Param[int]{Name: "min-degree", Default: 2, Help: "the fewest out-arcs a hub has",
		Check: func(n int) error {
			if n < 0 {
				return fmt.Errorf("%d: want 0 or more", n)
			}
			return nil
		}}
	hubWeight = &apps.Param[float64]{Name: "hub-weight", Default: 1, Help: "a hub's weight"}
	hubCount  = &apps.App{
		Name: "hub-count", Params: []apps.AnyParam{minDegree, hubWeight}, Columns: []string{"degree"},
		Answer: func(g *vertexprog.Graph, req apps.Request, opt vertexprog.Options) (*apps.Result, error) {
			d, lo := g.Dataset(), minDegree.Get(&req.Params)
			hubs := 0
			for v := range int32(d.N) {
				if d.Degree(v) >= lo {
					hubs++
				}
			}
			return &apps.Result{Summary: fmt.Sprintf("%d hubs of %d arcs or more, weight %g", hubs, lo, hubWeight.Get(&req.Params)*float64(hubs)),
				Rows: func(v int32, c []apps.Cell) { c[0] = apps.IntCell(int64(d.Degree(v))) }}, nil
		},
	}
)

// TestAppParamsDeclaredInTheirFolder: an app's own parameters, declared
// with no field of apps.Params, are params fields of its queries: decoded,
// checked (the parameter's check, the server's limit on integers),
// refused by name where the app does not take them, run with, and in the
// answer's params, defaults included.
func TestAppParamsDeclaredInTheirFolder(t *testing.T) {
	ts := newTestServer(t, nil)
	ts.load(t, "g", "sparse.el", nil)
	lg, _ := ts.lookup("g")
	all := append(registry.AllParams(), hubCount.Params...)
	query := func(params string) (*query, *apiError) {
		req := RunRequest{Algo: hubCount.Name}
		if err := json.Unmarshal([]byte(params), &req.Params); err != nil {
			t.Fatal(err)
		}
		return req.checkApp(hubCount, all, lg)
	}
	for _, c := range []struct {
		params string
		lo     int
		weight float64
	}{
		{`{}`, 2, 1},
		{`{"min_degree": 3, "hub_weight": 0.5}`, 3, 0.5},
		{`{"min_degree": null, "hub_weight": 2}`, 2, 2},
	} {
		q, e := query(c.params)
		if e != nil {
			t.Fatalf("%s: %v", c.params, e)
		}
		ans, err := run(lg, q, vertexprog.Options{Backend: "cpu"})
		if err != nil {
			t.Fatal(err)
		}
		var n int // (sparse.el's out-degrees, counted here)
		for v := range int32(lg.d.N) {
			n += min(lg.d.Degree(v)/c.lo, 1)
		}
		if want := fmt.Sprintf("%d hubs of %d arcs or more, weight %g", n, c.lo, c.weight*float64(n)); ans.Summary != want {
			t.Errorf("%s: %q, want %q", c.params, ans.Summary, want)
		}
		got := q.paramsJSON(lg)
		if len(got) != 3 || got["min_degree"] != c.lo || got["hub_weight"] != c.weight || got["max_iter"] != 0 {
			t.Errorf("%s: params %v", c.params, got)
		}
	}
	for params, want := range map[string]string{
		`{"min_degree": -1}`:      "params.min_degree: -1: want 0 or more",
		`{"min_degree": 2000000}`: fmt.Sprintf("params.min_degree: 2000000: want at most %d (the server's limit)", maxIterLimit),
		`{"min_degree": 1.5}`:     "params.min_degree: want an integer, got JSON number 1.5",
		`{"hub_weight": "x"}`:     "params.hub_weight: want a number, got JSON string",
		`{"damping": 0.5}`:        "params.damping: hub-count takes no damping (it takes min_degree, hub_weight and max_iter)",
		`{"min-degree": 3}`:       "min-degree: unknown field",
		`{"hubs": 3}`:             "hubs: unknown field",
	} {
		if _, e := query(params); e == nil || e.msg != want {
			t.Errorf("%s: %v, want %s", params, e, want)
		}
	}
}

// FuzzDeclaredParams: any params object for an app with parameters of its
// own is decoded or refused with the field at fault, never a panic; what
// is taken passes the parameters' checks and the server's limit.
func FuzzDeclaredParams(f *testing.F) {
	ts := newTestServer(f, nil)
	ts.load(f, "g", "sparse.el", nil)
	lg, _ := ts.lookup("g")
	all := append(registry.AllParams(), hubCount.Params...)
	for _, s := range []string{`{}`, `{"min_degree": 3, "hub_weight": 0.5}`, `{"min_degree": -1}`, `{"hub_weight": "x"}`,
		`{"damping": 1}`, `{"max_iter": 2, "min_degree": null}`, `{"min_degree": 1e30}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, params string) {
		req := RunRequest{Algo: hubCount.Name}
		if json.Unmarshal([]byte(params), &req.Params) != nil {
			return
		}
		q, e := req.checkApp(hubCount, all, lg)
		if e != nil {
			if e.code != 400 || e.msg == "" {
				t.Fatalf("%s: %d, field %q: %q", params, e.code, e.field, e.msg)
			}
			return
		}
		if n := minDegree.Get(&q.req.Params); n < 0 || n > maxIterLimit {
			t.Fatalf("%s: min_degree %d taken", params, n)
		}
	})
}
