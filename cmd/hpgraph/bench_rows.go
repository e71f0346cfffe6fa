package main

import (
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/hpgraph/hpgraph/cuda"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// In a run over several processes (--world, mpirun's), bench makes a GAP
// graph (kron:S, urand:S) the way a graph too big for one host must be
// made: each process makes only its own rows, on its own GPU where there
// is one (cuda/gen), else from the host generator's stream, and the
// processes gather every row's length (vertexprog.GatherRows), so that
// no process ever holds the whole graph. Every process first counts the
// rows' arcs before duplicates merge (a count pass, the same everywhere);
// a skewed graph (--relabel auto) is renumbered by those counts, in
// decreasing order interleaved over the run's parts as a whole graph is
// by its degrees (datasets.DegreeOrder, InterleaveParts), and the rows
// are split by the counts, word-aligned; each process then makes its
// rows in that order, and its parts are its rows.

// benchMakesRows says whether bench makes only this process's rows of
// src: a GAP generator's graph in a run over several processes, not
// validated (the reference needs the whole graph), and not a uniform
// graph asked in degree order (its rows are made in the generator's:
// --relabel degree makes it whole on every process instead).
func benchMakesRows(src graphSource, lf loadFlags, opt vertexprog.Options, validate bool) bool {
	gg, gap := gapGraph(src.kind, src.p)
	return src.file == "" && gap && opt.Comm != nil && opt.Comm.Size() > 1 && !validate && !(gg.Uniform && lf.Relabel == "degree")
}

// makeBenchRows makes this process's rows of src, a GAP graph, and
// gathers the graph's shape from the others.
func makeBenchRows(src graphSource, lf loadFlags, withWeights bool, opt vertexprog.Options) (*benchGraph, error) {
	lopt, err := lf.options()
	if err != nil {
		return nil, err
	}
	if !withWeights {
		lopt.Weights = datasets.WeightsNone
	}
	comm := opt.Comm
	gg, _ := gapGraph(src.kind, src.p)
	pr := newProgress("making this process's rows of " + src.arg)
	t0 := time.Now()
	m, err := makeRows(gg, lopt, lf.Relabel != "none", comm, vertexprog.PartsOf(opt))
	pr.done()
	if err != nil {
		return nil, err
	}
	made := time.Since(t0)
	rows, err := vertexprog.GatherRows(m.part, m.lo, m.hi, comm)
	if err != nil {
		return nil, err
	}
	g, err := vertexprog.NewGraphRows(rows, comm)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "bench: %s: this process made rows [%d, %d) of %d (%d arcs)%s in %.2f s, and gathered every row's length in %.2f s\n",
		src.arg, m.lo, m.hi, rows.Graph.N, m.part.NNZ(), m.where, made.Seconds(), (time.Since(t0) - made).Seconds())
	d := rows.Graph
	bg := &benchGraph{rows: rows, edges: g.Edges(),
		shape: &datasets.Graph{Name: d.Name, N: d.N, RowPtr: rows.RowPtr, IDs: d.IDs, Stats: d.Stats, RepeatFree: d.RepeatFree}}
	bg.info = benchGraphJSON{Name: src.arg, Kind: "generator", Generator: src.about + m.where + fmt.Sprintf(", each of %d processes its rows", comm.Size()),
		LoadMS: ms(time.Since(t0)), Relabel: m.order, Vertices: d.N, Edges: bg.edges, NNZ: rows.RowPtr[d.N]}
	if withWeights {
		bg.info.Weights = weightsAbout(lf, d)
	}
	return bg, nil
}

// madeRows are a process's rows [lo, hi) of a generated graph (part),
// where they were made, and the vertex order.
type madeRows struct {
	part         *datasets.Graph
	lo, hi       int32
	where, order string
}

// makeRows makes this process's rows of gg: on the GPU where there is
// one (and they fit), else from the host generator's stream. Every
// process counts, renumbers (where relabel asks, and the counts are
// skewed) and splits the rows alike; parts are the run's.
func makeRows(gg gen.GAPGraph, opt datasets.Options, relabel bool, comm vertexprog.Comm, parts int) (m madeRows, err error) {
	opt.Relabel = datasets.RelabelNone
	// plan renumbers by the counts where it pays and picks this
	// process's rows: their new ids, or nil.
	plan := func(counts []int64) (newID []int32, err error) {
		m.order = "none (each process made its rows: --relabel none)"
		if relabel {
			m.order = "none (each process made its rows, and the degrees are not skewed)"
			shape := &datasets.Graph{N: len(counts) - 1, RowPtr: counts}
			if !gg.Uniform && datasets.Skewed(shape) {
				newID = datasets.DegreeOrder(shape)
				datasets.InterleaveParts(newID, parts)
				counts = renumberCounts(counts, newID)
				m.order = fmt.Sprintf("degree (by the arcs before duplicates merge, interleaved over %d parts; each process made its rows so)", parts)
			}
		}
		pt, err := vertexprog.SplitRows(counts, comm.Size())
		if err == nil {
			m.lo, m.hi = pt.Range(comm.Rank())
		}
		return newID, err
	}
	if m.part, err = makeRowsOnGPU(gg, opt, plan, &m); err == nil || !gpuFallback(err, "auto") {
		return m, err
	}
	stream := gen.KroneckerStream
	if gg.Uniform {
		stream = gen.UniformStream
	}
	es, err := stream(gg.Scale, gg.Degree, gg.Seed)
	if err != nil {
		return m, err
	}
	counts, err := datasets.StreamCounts(es, opt)
	if err != nil {
		return m, err
	}
	newID, err := plan(counts)
	if err != nil {
		return m, err
	}
	m.where = ""
	m.part, err = datasets.BuildStreamRows(es, opt, newID, int(m.lo), int(m.hi))
	return m, err
}

// makeRowsOnGPU is makeRows on the GPU, plan makeRows'.
func makeRowsOnGPU(gg gen.GAPGraph, opt datasets.Options, plan func([]int64) ([]int32, error), m *madeRows) (*datasets.Graph, error) {
	g, err := gpuGraph(gg, opt)
	if err != nil {
		return nil, err
	}
	b := cuda.Registered()
	counts, gap, err := b.GenerateCounts(g, !gg.Uniform)
	if err != nil {
		return nil, err
	}
	newID, err := plan(counts)
	if err != nil {
		return nil, err
	}
	counts = nil
	if newID == nil {
		gap = nil // (GAP's own order: the device shuffles)
	}
	// The device's vertex of each drawn id: GAP's, renumbered.
	par.Blocks(len(gap), func(_, x, y int) {
		for i := x; i < y; i++ {
			gap[i] = newID[gap[i]]
		}
	})
	part, err := b.GenerateRows(g, gap, int(m.lo), int(m.hi))
	m.where = " (made on the GPU)"
	if err != nil || newID == nil {
		return part, err
	}
	part.IDs = make([]int64, len(newID))
	par.Blocks(len(newID), func(_, x, y int) {
		for v := x; v < y; v++ {
			part.IDs[newID[v]] = int64(v)
		}
	})
	// (renumbered rows are made without weights and weighed from their
	// GAP ids here: gen.Options.IDs)
	if opt.Weights == datasets.WeightsRandom {
		err = part.WeighRandomly(opt)
	}
	return part, err
}

// renumberCounts is the row offsets of counts' rows renumbered by newID.
func renumberCounts(counts []int64, newID []int32) []int64 {
	out := make([]int64, len(counts))
	for v, nv := range newID {
		out[nv+1] = counts[v+1] - counts[v]
	}
	for v := range newID {
		out[v+1] += out[v]
	}
	return out
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
