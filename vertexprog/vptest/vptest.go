// Package vptest lets a user check a vertex program the way hpgraph checks
// its own: run it on every backend that can run here, in every direction
// the program allows, with HYB splits that exercise both the ELL and the
// COO kernels, and compare every output with the first (Compare, in a
// test) or with a reference of the user's (CheckAgainst, anywhere), on
// graphs of the shapes that break graph code (NewGraphs).
package vptest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// Config is one way of running a program.
type Config struct {
	Name    string
	Options vertexprog.Options
}

// Configs lists the runs Compare makes: each available backend × direction
// auto/push/pull × HYB all-COO, mixed (breakeven 0) and all-ELL; on a
// device also resident runs (Options.Resident) with the default HYB; on
// the CPU also pull supersteps with one Gather call per edge, which checks
// a RowGatherer's GatherRow against its Gather.
func Configs() []Config {
	splits := []struct {
		name string
		opt  hyb.Options
	}{
		{"coo", hyb.Options{RelativeSpeed: 3, Breakeven: 1 << 30}},
		{"mixed", hyb.Options{RelativeSpeed: 3, Breakeven: 0}},
		{"ell", hyb.Options{RelativeSpeed: 1e-9, Breakeven: 0}},
	}
	var cs []Config
	for _, b := range vertexprog.Backends() {
		for _, d := range []vertexprog.Direction{vertexprog.Auto, vertexprog.Push, vertexprog.Pull} {
			for _, s := range splits {
				cs = append(cs, Config{
					Name:    fmt.Sprintf("%s/%s/%s", b, d, s.name),
					Options: vertexprog.Options{Backend: b, Direction: d, HYB: s.opt},
				})
				if b == "cpu" && d == vertexprog.Pull {
					cs = append(cs, Config{
						Name:    fmt.Sprintf("%s/%s/%s/per-edge", b, d, s.name),
						Options: vertexprog.Options{Backend: b, Direction: d, HYB: s.opt, PerEdge: true},
					})
				}
			}
			// Partitioned runs (Options.Parts): the graph split into
			// parts that exchange between supersteps, as over several
			// devices; the answers must not change.
			for _, parts := range []int{2, 3} {
				cs = append(cs, Config{
					Name:    fmt.Sprintf("%s/%s/parts%d", b, d, parts),
					Options: vertexprog.Options{Backend: b, Direction: d, Parts: parts},
				})
			}
			if b != "cpu" {
				// (a device keeps a resident run's buffers for the next
				// run of the program: Compare's callers run one program
				// from several sources in a row)
				cs = append(cs, Config{
					Name:    fmt.Sprintf("%s/%s/resident", b, d),
					Options: vertexprog.Options{Backend: b, Direction: d, Resident: true},
				})
			}
		}
	}
	return cs
}

// Unsupported reports whether err is a run's refusal of what its Config
// asks and the program cannot do: push supersteps forced for a program
// that cannot push, or parts on a backend that cannot split it (Compare
// skips such runs).
func Unsupported(err error, c Config) bool {
	return errors.Is(err, vertexprog.ErrPushUnsupported) && c.Options.Direction == vertexprog.Push ||
		errors.Is(err, vertexprog.ErrNoParts) && c.Options.Parts > 1
}

// Compare runs newProgram() on g under every Config, extracts each run's
// output with out, and fails t where an output differs from the first
// run's (eq decides equality per vertex). Forced push runs of programs
// that cannot push are skipped. A program with a method Run(g, opt) (a
// vertexprog.MultisetAdapter, whose Run takes it to device backends that
// gather multisets) runs through that; others through vertexprog.Run.
// It returns the first run's output.
func Compare[X, A any, P vertexprog.Program[X, A], R any](t testing.TB, g *vertexprog.Graph,
	newProgram func() P, out func(P, *vertexprog.Result[X]) []R, eq func(a, b R) bool) []R {
	t.Helper()
	want, err := compare[X, A](g, newProgram, out, eq, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	return want
}

// CheckAgainst checks a program against a reference, outside tests as in
// them (it needs no testing.T): on each graph, it runs newProgram(g)
// under every Config (every backend that can run here, every direction,
// every HYB split) and compares each run's output, extracted with out,
// with reference(g), vertex by vertex with eq. The reference should share
// no code with the program: a brute force over the graph's arcs, another
// library. It returns nil when every run agrees with the reference, else
// an error naming the graph, the run and the first vertex that differs
// (or the run's own error).
func CheckAgainst[X, A any, P vertexprog.Program[X, A], R any](graphs []Graph,
	newProgram func(g *vertexprog.Graph) P, out func(P, *vertexprog.Result[X]) []R,
	reference func(g *vertexprog.Graph) ([]R, error), eq func(a, b R) bool) error {
	for _, tg := range graphs {
		g := vertexprog.NewGraph(tg.G)
		want, err := reference(g)
		if err != nil {
			return fmt.Errorf("%s: reference: %w", tg.Name, err)
		}
		if _, err := compare[X, A](g, func() P { return newProgram(g) }, out, eq, want, "the reference"); err != nil {
			return fmt.Errorf("%s: %w", tg.Name, err)
		}
	}
	return nil
}

// compare runs newProgram() on g under every Config and compares each
// output with want (named wantName), or with the first run's where want
// is nil; it returns what it compared with.
func compare[X, A any, P vertexprog.Program[X, A], R any](g *vertexprog.Graph, newProgram func() P,
	out func(P, *vertexprog.Result[X]) []R, eq func(a, b R) bool, want []R, wantName string) ([]R, error) {
	for _, c := range Configs() {
		p := newProgram()
		res, err := run[X, A](g, p, c.Options)
		if Unsupported(err, c) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
		got := out(p, res)
		if want == nil {
			want, wantName = got, c.Name
			continue
		}
		if len(got) != len(want) {
			return nil, fmt.Errorf("%s: %d outputs, %s gave %d", c.Name, len(got), wantName, len(want))
		}
		for v := range got {
			if !eq(got[v], want[v]) {
				return nil, fmt.Errorf("%s: vertex %d is %v, %s gave %v", c.Name, v, got[v], wantName, want[v])
			}
		}
	}
	return want, nil
}

// run is p's own Run where it has one (vertexprog.MultisetAdapter), else
// vertexprog.Run.
func run[X, A any, P vertexprog.Program[X, A]](g *vertexprog.Graph, p P, opt vertexprog.Options) (*vertexprog.Result[X], error) {
	if r, ok := any(p).(interface {
		Run(*vertexprog.Graph, vertexprog.Options) (*vertexprog.Result[X], error)
	}); ok {
		return r.Run(g, opt)
	}
	return vertexprog.Run[X, A](g, p, opt)
}
