package main

import (
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/hpgraph/hpgraph/cuda"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// In a run over several processes (--world, mpirun's), bench makes a GAP
// graph (kron:S, urand:S) the way a graph too big for one host must be
// made: each process makes only its own rows, on its own GPU where there
// is one (cuda/gen), else from the host generator's stream, and the
// processes gather every row's length (vertexprog.GatherRows), so that
// no process ever holds the whole graph. The rows are split by the
// generator's counts before duplicates are merged (the same on every
// process: a count pass), word-aligned, and each process's parts are its
// rows. The graph keeps the generator's vertex order: renumbering by
// degree needs the whole graph (--relabel degree makes it whole on every
// process instead).

// benchMakesRows says whether bench makes only this process's rows of
// src: a GAP generator's graph in a run over several processes, not
// renumbered by degree (--relabel degree), not validated (the reference
// needs the whole graph).
func benchMakesRows(src graphSource, lf loadFlags, opt vertexprog.Options, validate bool) bool {
	_, gap := gapGraph(src.kind, src.p)
	return src.file == "" && gap && opt.Comm != nil && opt.Comm.Size() > 1 && !validate && lf.Relabel != "degree"
}

// makeBenchRows makes this process's rows of src, a GAP graph, and
// gathers the graph's shape from the others.
func makeBenchRows(src graphSource, lf loadFlags, withWeights bool, comm vertexprog.Comm) (*benchGraph, error) {
	opt, err := lf.options()
	if err != nil {
		return nil, err
	}
	if !withWeights {
		opt.Weights = datasets.WeightsNone
	}
	opt.Relabel = datasets.RelabelNone
	gg, _ := gapGraph(src.kind, src.p)
	pr := newProgress("making this process's rows of " + src.arg)
	t0 := time.Now()
	part, lo, hi, where, err := makeRows(gg, opt, comm)
	pr.done()
	if err != nil {
		return nil, err
	}
	made := time.Since(t0)
	rows, err := vertexprog.GatherRows(part, lo, hi, comm)
	if err != nil {
		return nil, err
	}
	g, err := vertexprog.NewGraphRows(rows, comm)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "bench: %s: this process made rows [%d, %d) of %d (%d arcs)%s in %.2f s, and gathered every row's length in %.2f s\n",
		src.arg, lo, hi, rows.Graph.N, part.NNZ(), where, made.Seconds(), (time.Since(t0) - made).Seconds())
	d := rows.Graph
	bg := &benchGraph{rows: rows, edges: g.Edges(),
		shape: &datasets.Graph{Name: d.Name, N: d.N, RowPtr: rows.RowPtr, Stats: d.Stats, RepeatFree: d.RepeatFree}}
	bg.info = benchGraphJSON{Name: src.arg, Kind: "generator", Generator: src.about + where + fmt.Sprintf(", each of %d processes its rows", comm.Size()),
		LoadMS: ms(time.Since(t0)), Relabel: "none (each process made its rows: renumbering needs the whole graph)",
		Vertices: d.N, Edges: bg.edges, NNZ: rows.RowPtr[d.N]}
	if withWeights {
		bg.info.Weights = weightsAbout(lf, d)
	}
	return bg, nil
}

// makeRows makes this process's rows of gg: on the GPU where there is
// one (and they fit), else from the host generator's stream. Every
// process splits the rows alike, by the generator's counts.
func makeRows(gg gen.GAPGraph, opt datasets.Options, comm vertexprog.Comm) (part *datasets.Graph, lo, hi int32, where string, err error) {
	split := func(counts []int64) error {
		pt, err := vertexprog.SplitRows(counts, comm.Size())
		if err == nil {
			lo, hi = pt.Range(comm.Rank())
		}
		return err
	}
	if g, err := gpuGraph(gg, opt); err == nil {
		b := cuda.Registered()
		counts, err := b.GenerateCounts(g)
		if err == nil {
			if err = split(counts); err != nil {
				return nil, 0, 0, "", err
			}
			counts = nil
			part, err = b.GenerateRows(g, int(lo), int(hi))
		}
		if err == nil {
			return part, lo, hi, " (made on the GPU)", nil
		}
		if !gpuFallback(err, "auto") {
			return nil, 0, 0, "", err
		}
	} else if !gpuFallback(err, "auto") {
		return nil, 0, 0, "", err
	}
	stream := gen.KroneckerStream
	if gg.Uniform {
		stream = gen.UniformStream
	}
	es, err := stream(gg.Scale, gg.Degree, gg.Seed)
	if err != nil {
		return nil, 0, 0, "", err
	}
	counts, err := datasets.StreamCounts(es, opt)
	if err != nil {
		return nil, 0, 0, "", err
	}
	if err := split(counts); err != nil {
		return nil, 0, 0, "", err
	}
	part, err = datasets.BuildStreamRows(es, opt, int(lo), int(hi))
	return part, lo, hi, "", err
}

// graph is bg's graph for a run of app: bg's rows wrapped afresh
// (collective: every process wraps its own), or the whole graph, and the
// graph's shape (every row's offsets) to find sources in.
func (bg *benchGraph) graph(weighted bool, comm vertexprog.Comm) (*vertexprog.Graph, *datasets.Graph, error) {
	if bg.rows == nil {
		d := bg.plain
		if weighted {
			d = bg.weighted
		}
		return vertexprog.NewGraph(d), d, nil
	}
	rows := bg.rows
	if !weighted && rows.Graph.W != nil {
		r, d := *rows, *rows.Graph
		d.W = nil
		r.Graph = &d
		rows = &r
	}
	g, err := vertexprog.NewGraphRows(rows, comm)
	return g, bg.shape, err
}

// heldRowsSkip is why bench does not run a on a graph of which this
// process holds some rows only, or "".
func heldRowsSkip(a benchAlgo) string {
	if slices.Contains(rowsApps, a.app.Name) {
		return ""
	}
	return fmt.Sprintf("%s reads the whole graph, and each process made only its rows (it runs on %s)", a.name, andList(rowsApps))
}
