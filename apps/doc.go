// Package apps holds hpgraph's built-in algorithms — BFS, SSSP, PageRank
// (two variants), triangle counting, connected components, LDBC's local
// clustering coefficient and community detection by label propagation
// (CDLP, a vertexprog.MultisetProgram) — each written only against vertexprog's public
// API, as any user program would be.
//
// Each app has a Program type (usable with vertexprog.Run and
// vertexprog/vptest directly) and a function that runs it and returns typed
// results. The independent reference lives in apps/reference.
//
// # The registry
//
// Every built-in app is declared once, as an App in its own app_*.go file,
// and named in the list of registry.go (Registry). The front ends — `hpgraph run`,
// verify, bench and their help, the LDBC output, `hpgraph serve` and its
// load generator — find the apps there and hold no list of them and no
// switch on their names, so adding an app touches this package only. An
// App declares:
//
//   - its name and aliases (Lookup, Find) and a line of help (About);
//   - its parameters (Params; every app also takes max-iter,
//     CommonParams): each a Param[T], T one of int, float64, string and
//     bool, with its flag name (its JSON name has '_' for '-'), default,
//     help text and Check, and the field of Params, the one typed struct
//     of every parameter's value, that holds it (a new parameter is a
//     field there and a Param in registry_params.go). A front end binds a
//     Param by its type (a flag, a JSON value); App.CheckParams and Run
//     refuse a bad value with a *ParamError naming the parameter, and
//     App.Check refuses combinations (the paper's PageRank in float32);
//   - whether it runs from a source vertex (Source) and reads edge
//     weights (Weighted);
//   - how it runs: App.Run takes a vertexprog.Graph, a Request (the
//     Params, the source vertex, what the caller will read of the answer:
//     Need, and a Scratch an app may keep arrays in between a caller's
//     runs) and vertexprog.Options, and returns a Result: the run's Stats,
//     the summary line `run` prints and its Fields (serve's "result"), the
//     per-vertex Rows of the App's Columns (serve's NDJSON and CSV), the
//     lines of --out (WriteText) and of LDBC Graphalytics' format
//     (WriteLDBC), and Check, which compares the answer with apps/reference
//     to the App's Tolerance (verify, run --validate);
//   - what LDBC Graphalytics has of it (LDBC: its output, the .properties
//     keys of its source and parameters);
//   - for bench: its Program (the matrix it traverses; whether it has
//     device code), its Traffic model, its Variants (pagerank-iter), and
//     whether renumbering by degree pays for a single answer
//     (RelabelPays).
package apps

import (
	"errors"
	"fmt"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// ErrInvalidInput marks a graph or parameter the algorithm is not defined
// for (negative SSSP weights, a source outside the graph).
var ErrInvalidInput = errors.New("invalid input")

// checkSource reports a source vertex outside the graph.
// DefaultSource is the source of bfs and sssp when none is given: the
// vertex of highest out-degree, the lowest original id of those that tie,
// so that a graph renumbered by degree (--relabel) starts from the same
// vertex as the file's order does.
func DefaultSource(d *datasets.Graph) int32 {
	best := int32(0)
	for v := int32(1); v < int32(d.N); v++ {
		if dv, db := d.Degree(v), d.Degree(best); dv > db || dv == db && d.OriginalID(v) < d.OriginalID(best) {
			best = v
		}
	}
	return best
}

func checkSource(g *vertexprog.Graph, src int32) error {
	if g == nil {
		return fmt.Errorf("%w: %w", ErrInvalidInput, vertexprog.ErrNilGraph)
	}
	if src < 0 || int(src) >= g.N() {
		return fmt.Errorf("%w: source vertex %d is out of range: the graph has vertices 0..%d", ErrInvalidInput, src, g.N()-1)
	}
	return nil
}
