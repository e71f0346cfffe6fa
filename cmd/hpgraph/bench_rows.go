package main

import (
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/hpgraph/hpgraph/cuda"
	gpugen "github.com/hpgraph/hpgraph/cuda/gen"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/internal/phase"
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

// rowPlan is how the processes, or one process's devices, that each
// make their own rows of a GAP graph share it, the same everywhere: the
// renumbering by the generator's counts (newID; nil: GAP's order) and
// the rows' split into pieces (bounds).
type rowPlan struct {
	newID  []int32
	bounds []int32
	order  string
}

// planRows plans gg's rows from its counts (row offsets before
// duplicates merge): renumbered where relabel asks and the counts are
// skewed, interleaved over parts, and split into pieces by the
// renumbered counts. who says who makes the rows ("each process").
func planRows(gg gen.GAPGraph, counts []int64, relabel bool, parts, pieces int, who string) (rowPlan, error) {
	p := rowPlan{order: fmt.Sprintf("none (%s made its rows: --relabel none)", who)}
	if relabel {
		p.order = fmt.Sprintf("none (%s made its rows, and the degrees are not skewed)", who)
		shape := &datasets.Graph{N: len(counts) - 1, RowPtr: counts}
		if !gg.Uniform && datasets.Skewed(shape) {
			p.newID = datasets.DegreeOrder(shape)
			datasets.InterleaveParts(p.newID, parts)
			counts = renumberCounts(counts, p.newID)
			p.order = fmt.Sprintf("degree (by the arcs before duplicates merge, interleaved over %d parts; %s made its rows so)", parts, who)
		}
	}
	pt, err := vertexprog.SplitRows(counts, pieces)
	p.bounds = pt.Bounds
	return p, err
}

// device is how a device makes p's rows (gen.Options): with the vertex
// of each drawn id GAP's (gap, the device's shuffle) renumbered, in
// place, and the GAP vertex of each new one, which the weights are drawn
// from; nothing where p keeps GAP's order (the device shuffles itself).
func (p rowPlan) device(gap []int32) gpugen.Options {
	if p.newID == nil {
		return gpugen.Options{}
	}
	orig := make([]int32, len(p.newID))
	par.Blocks(len(gap), func(_, x, y int) {
		for i := x; i < y; i++ {
			gap[i] = p.newID[gap[i]]
		}
		for v := x; v < y; v++ {
			orig[p.newID[v]] = int32(v)
		}
	})
	return gpugen.Options{IDs: gap, Orig: orig}
}

// setGAPIDs gives rows a device made renumbered as o says (a part, or
// the whole graph) their GAP ids.
func setGAPIDs(h *datasets.Graph, o gpugen.Options) {
	if o.Orig == nil {
		return
	}
	h.IDs = make([]int64, len(o.Orig))
	par.Blocks(len(o.Orig), func(_, x, y int) {
		for v := x; v < y; v++ {
			h.IDs[v] = int64(o.Orig[v])
		}
	})
}

// makeRows makes this process's rows of gg: on the GPU where there is
// one (and they fit), else from the host generator's stream. Every
// process counts, renumbers (where relabel asks, and the counts are
// skewed) and splits the rows alike; parts are the run's.
func makeRows(gg gen.GAPGraph, opt datasets.Options, relabel bool, comm vertexprog.Comm, parts int) (m madeRows, err error) {
	opt.Relabel = datasets.RelabelNone
	plan := func(counts []int64) (rowPlan, error) {
		p, err := planRows(gg, counts, relabel, parts, comm.Size(), "each process")
		if err == nil {
			m.lo, m.hi, m.order = p.bounds[comm.Rank()], p.bounds[comm.Rank()+1], p.order
		}
		return p, err
	}
	if g, err := gpuGraph(gg, opt); err == nil {
		pt := phase.New("bench", "making this process's rows of "+g.Name)
		defer pt.Print()
		b := cuda.Registered()
		counts, gap, err := b.GenerateCounts(g, relabel && !gg.Uniform) // (GAP's shuffle only where it may be renumbered)
		if err == nil {
			pt.Mark("counts and shuffle")
			var p rowPlan
			if p, err = plan(counts); err != nil {
				return m, err
			}
			counts = nil
			o := p.device(gap)
			pt.Mark("plan")
			if m.part, err = b.GenerateRows(g, o, int(m.lo), int(m.hi)); err == nil {
				pt.Mark("rows")
				m.where = " (made on the GPU)"
				setGAPIDs(m.part, o)
				return m, nil
			}
		}
		if !gpuFallback(err, "auto") {
			return m, err
		}
	} else if !gpuFallback(err, "auto") {
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
	p, err := plan(counts)
	if err != nil {
		return m, err
	}
	m.part, err = datasets.BuildStreamRows(es, opt, p.newID, int(m.lo), int(m.hi))
	return m, err
}

// generateOnGPUs makes GAP's graph gg whole in one process whose runs
// split over several GPUs (parts of them, --devices): each device makes
// its part of the rows (cuda.Backend.GenerateParts), renumbered first by
// the counts as processes making their rows are (relabel), so that no
// device makes the whole graph and the host renumbers nothing. It returns
// the graph, and its order (RelabelDegree or RelabelNone) described.
func generateOnGPUs(gg gen.GAPGraph, opt datasets.Options, relabel bool, parts int) (*datasets.Graph, datasets.Relabeling, string, error) {
	opt.Relabel = datasets.RelabelNone
	g, err := gpuGraph(gg, opt)
	if err != nil {
		return nil, 0, "", err
	}
	pt := phase.New("bench", "making "+g.Name+" on several GPUs")
	defer pt.Print()
	b := cuda.Registered()
	counts, gap, err := b.GenerateCounts(g, relabel && !gg.Uniform) // (GAP's shuffle only where it may be renumbered)
	if err != nil {
		return nil, 0, "", err
	}
	pt.Mark("counts and shuffle")
	p, err := planRows(gg, counts, relabel, parts, parts, "each GPU")
	if err != nil {
		return nil, 0, "", err
	}
	counts = nil
	bounds := make([]int, len(p.bounds))
	for i, v := range p.bounds {
		bounds[i] = int(v)
	}
	o := p.device(gap)
	pt.Mark("plan")
	h, err := b.GenerateParts(g, o, bounds)
	pt.Mark("parts")
	if err == nil {
		setGAPIDs(h, o)
	}
	order := datasets.RelabelNone
	if p.newID != nil {
		order = datasets.RelabelDegree
	}
	return h, order, p.order, err
}

// renumberCounts is the row offsets of counts' rows renumbered by newID.
func renumberCounts(counts []int64, newID []int32) []int64 {
	out := make([]int64, len(counts))
	par.Blocks(len(newID), func(_, lo, hi int) {
		for v := lo; v < hi; v++ {
			out[newID[v]+1] = counts[v+1] - counts[v]
		}
	})
	par.PrefixSum(out)
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
