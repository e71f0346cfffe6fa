package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/registry"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/spf13/pflag"
)

// weightedDegrees is a throw-away app whose parameters, one of each type,
// are declared here alone, with no field of apps.Params: each vertex's
// out-degree times --test-scale, in --test-unit, halved with --test-half,
// the --test-top first in the summary.
var (
	testScale = &apps.Param[float64]{Name: "test-scale", Default: 1, Help: "the degrees' scale",
		Check: func(x float64) error {
			if !(x >= 0) {
				return fmt.Errorf("%g: want 0 or more", x)
			}
			return nil
		}}
	testTop         = &apps.Param[int]{Name: "test-top", Default: 2, Help: "how many vertices the summary names"}
	testUnit        = &apps.Param[string]{Name: "test-unit", Default: "arcs", Help: "the degrees' `unit`"}
	testHalf        = &apps.Param[bool]{Name: "test-half", Help: "halve the degrees"}
	weightedDegrees = &apps.App{
		Name:    "weighted-degrees",
		Params:  []apps.AnyParam{testScale, testTop, testUnit, testHalf},
		Columns: []string{"degree"},
		Answer: func(g *vertexprog.Graph, req apps.Request, opt vertexprog.Options) (*apps.Result, error) {
			d := g.Dataset()
			w := testScale.Get(&req.Params)
			if testHalf.Get(&req.Params) {
				w /= 2
			}
			var first []string
			for v := int32(0); v < int32(min(d.N, testTop.Get(&req.Params))); v++ {
				first = append(first, fmt.Sprintf("%g %s", w*float64(d.Degree(v)), testUnit.Get(&req.Params)))
			}
			return &apps.Result{Summary: strings.Join(first, ", "),
				Rows: func(v int32, c []apps.Cell) { c[0] = apps.FloatCell(w * float64(d.Degree(v))) }}, nil
		},
	}
)

// TestAppParamsDeclaredInTheirFolder: an app's own parameters, declared
// with no field of apps.Params, are flags as a field's parameter is (the
// same help, default and parse errors as pflag gives a variable of their
// type), and their values reach the app's run and the records.
func TestAppParamsDeclaredInTheirFolder(t *testing.T) {
	// The help and the parse errors, against pflag's own flags of the
	// same types.
	var p params
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	bindParams(fs, &p.Params, weightedDegrees.Params)
	want := pflag.NewFlagSet("run", pflag.ContinueOnError)
	want.Float64(testScale.Name, testScale.Default, testScale.Help)
	want.Int(testTop.Name, testTop.Default, testTop.Help)
	want.String(testUnit.Name, testUnit.Default, testUnit.Help)
	want.Bool(testHalf.Name, testHalf.Default, testHalf.Help)
	if got, want := fs.FlagUsages(), want.FlagUsages(); got != want {
		t.Errorf("help:\n%s\nwant (pflag's typed flags):\n%s", got, want)
	}
	for _, args := range [][]string{{"--test-top", "x"}, {"--test-scale", "1,5"}, {"--test-half=maybe"}} {
		got := fs.Parse(args)
		if want := want.Parse(args); got == nil || got.Error() != want.Error() {
			t.Errorf("%q: %v, want %v", args, got, want)
		}
	}

	// The values, beside every built-in parameter.
	p = params{}
	fs = pflag.NewFlagSet("run", pflag.ContinueOnError)
	all := append(registry.AllParams(), weightedDegrees.Params...)
	bindParams(fs, &p.Params, all)
	if testScale.Get(&p.Params) != 1 || testTop.Get(&p.Params) != 2 || testUnit.Get(&p.Params) != "arcs" || p.Damping != 0.85 {
		t.Errorf("defaults: %v", paramValues(p, all))
	}
	if err := fs.Parse([]string{"--test-scale", "3", "--test-top=0x3", "--test-unit", "edges", "--test-half", "--damping", "0.5"}); err != nil {
		t.Fatal(err)
	}
	el := &datasets.EdgeList{N: 4, Src: []int32{0, 0, 0, 1, 1, 2}, Dst: []int32{1, 2, 3, 2, 3, 3}, Directed: true}
	d, err := datasets.Build(el, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	o, err := runApp(weightedDegrees, vertexprog.NewGraph(d), p, vertexprog.Options{Backend: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	// out-degrees 3, 2, 1, 0, times 3/2
	if want := "4.5 edges, 3 edges, 1.5 edges"; o.summary != want {
		t.Errorf("summary %q, want %q", o.summary, want)
	}
	vals := paramValues(p, all)
	for name, want := range map[string]any{"test_scale": 3.0, "test_top": 3, "test_unit": "edges", "test_half": true, "damping": 0.5, "src": int64(0)} {
		if vals[name] != want {
			t.Errorf("record: %s = %v, want %v", name, vals[name], want)
		}
	}

	// A value the parameter's check refuses: the run's error names the flag.
	if err := fs.Parse([]string{"--test-scale", "-1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := runApp(weightedDegrees, vertexprog.NewGraph(d), p, vertexprog.Options{Backend: "cpu"}); err == nil || err.Error() != "--test-scale -1: want 0 or more" {
		t.Errorf("--test-scale -1: %v", err)
	}
}
