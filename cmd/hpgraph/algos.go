package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/reference"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// params are the algorithm parameters of run, verify and bench.
type params struct {
	src        int64 // in the file's ids; -1 picks the highest-degree vertex
	srcSet     bool  // srcVertex holds the source, resolved already (run's batches of queries)
	srcVertex  int32
	damping    float64
	tolerance  float64
	maxIter    int
	iterations int    // LDBC PageRank
	precision  string // LDBC PageRank: float64 or float32
	perVertex  bool
	delta      float64      // SSSP; negative: apps.DefaultDelta
	batch      *sharedBatch // run's batch of queries (--src with several sources), or nil
	outFormat  string       // run's --out-format: hpgraph ("") or ldbc
}

// sharedBatch is what the queries of one batch share: BFS writes each answer
// into the arrays of the one before (the CLI is done with it), and with
// no --out or --validate an answer is its counts, so the device keeps the
// per-vertex state (vertexprog.Options.SummaryOnly).
type sharedBatch struct {
	bfs         *apps.BFSResult
	summaryOnly bool
}

// outcome is one algorithm run, with what the CLI prints, writes and checks.
type outcome struct {
	run     runStats
	summary string
	// write prints one line per vertex, with the file's original ids.
	write func(w io.Writer) error
	// check compares with the gonum reference.
	check func() error
}

// runStats is the part of vertexprog.Result that does not depend on X.
type runStats struct {
	backend             string
	iterations          int
	active              []int
	directions          []vertexprog.Direction
	preprocess, compute time.Duration
	finish              time.Duration   // copying the results back from a device
	transfer            time.Duration   // host↔device copies, part of preprocess and finish
	stepTimes           []time.Duration // per superstep
	device              time.Duration   // compute on the device's clock (GPU events; 0 on the CPU)
	wait                time.Duration   // the host's PREPROCESS waiting for the device to open
}

func statsOf[X any](r *vertexprog.Result[X]) runStats {
	return runStats{r.Backend, r.Iterations, r.Active, r.Directions, r.Preprocess, r.Compute, r.Finish, r.Transfer, r.StepTimes, r.Device, r.BackendWait}
}

type algorithm struct {
	name  string
	about string
	run   func(g *vertexprog.Graph, p params, opt vertexprog.Options) (*outcome, error)
}

var algorithms = []algorithm{
	{"bfs", "breadth-first search from --src: depth and parent (direction-optimized)", runBFS},
	{"sssp", "single-source shortest paths from --src (Bellman-Ford as min-plus SpMV; unit weights when unweighted)", runSSSP},
	{"pagerank", "PageRank, the paper's variant: PR0=1, until no rank moves more than --tolerance", runPageRank},
	{"pagerank-ldbc", "PageRank, LDBC Graphalytics variant: PR0=1/n, dangling mass redistributed, --iterations iterations", runPageRankLDBC},
	{"tc", "triangle counting on the undirected simple graph", runTC},
	{"cc", "weakly connected components, labelled by their smallest vertex (Afforest on the GPU; --direction push or pull runs label propagation)", runCC},
	{"lcc", "local clustering coefficient, LDBC Graphalytics' definition (neighbours: in ∪ out; directed arcs or undirected edges among them; CPU only)", runLCC},
	{"cdlp", "community detection by label propagation, LDBC Graphalytics' definition, --iterations iterations (in- and out-neighbours counted separately; CPU only)", runCDLP},
}

func findAlgorithm(name string) (algorithm, error) {
	for _, a := range algorithms {
		if a.name == name {
			return a, nil
		}
	}
	names := make([]string, len(algorithms))
	for i, a := range algorithms {
		names[i] = a.name
	}
	return algorithm{}, fmt.Errorf("unknown algorithm %q; want one of %s", name, strings.Join(names, ", "))
}

// resolveSource maps a source given in the file's ids to a vertex, or picks
// the vertex of highest out-degree (lowest id on ties) when none is given.
func resolveSource(g *datasets.Graph, id int64) (int32, error) {
	if id < 0 {
		best := int32(0)
		for v := int32(1); v < int32(g.N); v++ {
			if g.Degree(v) > g.Degree(best) {
				best = v
			}
		}
		return best, nil
	}
	if g.IDs == nil {
		v := id - g.IDBase
		if v < 0 || v >= int64(g.N) {
			return 0, fmt.Errorf("source %d is not a vertex of %s (ids %d..%d)", id, g.Name, g.IDBase, int64(g.N)-1+g.IDBase)
		}
		return int32(v), nil
	}
	if i, ok := slices.BinarySearch(g.IDs, id); ok {
		return int32(i), nil
	}
	for v, x := range g.IDs {
		if x == id {
			return int32(v), nil
		}
	}
	return 0, fmt.Errorf("source %d is not a vertex of %s", id, g.Name)
}

// source is the source vertex of bfs and sssp in d.
func (p params) source(d *datasets.Graph) (int32, error) {
	if p.srcSet {
		return p.srcVertex, nil
	}
	return resolveSource(d, p.src)
}

// writeLines writes one line per vertex through a buffer.
func writeLines(w io.Writer, n int, line func(bw *bufio.Writer, v int32)) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	for v := int32(0); v < int32(n); v++ {
		line(bw, v)
	}
	return bw.Flush()
}

func runBFS(g *vertexprog.Graph, p params, opt vertexprog.Options) (*outcome, error) {
	d := g.Dataset()
	src, err := p.source(d)
	if err != nil {
		return nil, err
	}
	var prev *apps.BFSResult
	if p.batch != nil {
		prev = p.batch.bfs
		opt.SummaryOnly = p.batch.summaryOnly
	}
	r, err := apps.BFSReusing(g, src, opt, prev)
	if err != nil {
		return nil, err
	}
	if p.batch != nil {
		p.batch.bfs = r
	}
	// (the counts give reached and depth without a pass over Depth, which
	// cost ~11 ms of every kron21 query on the GPU machine)
	reached, depth := r.Reached()
	return p.output(&outcome{
		run:     statsOf(r.Run),
		summary: fmt.Sprintf("source %d: reached %d vertices, depth %d", d.OriginalID(src), reached, depth),
		write: func(w io.Writer) error {
			if r.Depth == nil {
				return errors.New("bfs: the depths were left on the device (a summary-only query)")
			}
			return writeLines(w, d.N, func(bw *bufio.Writer, v int32) {
				parent := int64(-1)
				if r.Parent[v] >= 0 {
					parent = d.OriginalID(r.Parent[v])
				}
				fmt.Fprintf(bw, "%d %d %d\n", d.OriginalID(v), r.Depth[v], parent)
			})
		},
		check: func() error {
			if r.Depth == nil {
				return errors.New("bfs: the depths were left on the device (a summary-only query)")
			}
			return reference.ValidateBFS(d, src, r.Depth, r.Parent)
		},
	}, ldbcBFS(d, func() []int32 { return r.Depth })), nil
}

func runSSSP(g *vertexprog.Graph, p params, opt vertexprog.Options) (*outcome, error) {
	d := g.Dataset()
	src, err := p.source(d)
	if err != nil {
		return nil, err
	}
	delta := p.delta
	if delta < 0 {
		delta = apps.DefaultDelta(g)
	}
	r, err := apps.SSSPDelta(g, src, delta, opt)
	if err != nil {
		return nil, err
	}
	reached, far := 0, float32(0)
	for _, x := range r.Dist {
		if !math.IsInf(float64(x), 1) {
			reached++
			far = max(far, x)
		}
	}
	return p.output(&outcome{
		run:     statsOf(r.Run),
		summary: fmt.Sprintf("source %d: reached %d vertices, farthest at %g", d.OriginalID(src), reached, far),
		write: func(w io.Writer) error {
			return writeLines(w, d.N, func(bw *bufio.Writer, v int32) {
				fmt.Fprintf(bw, "%d %s\n", d.OriginalID(v), formatDist(float64(r.Dist[v])))
			})
		},
		check: func() error {
			want, err := reference.SSSP(d, src)
			if err != nil {
				return err
			}
			// float32 sums of integer weights are exact; allow rounding for
			// fractional weights.
			return compareFloats("distance", d, want, func(v int) float64 { return float64(r.Dist[v]) }, 1e-6)
		},
	}, ldbcSSSP(d, r.Dist)), nil
}

func formatDist(x float64) string {
	if math.IsInf(x, 1) {
		return "Infinity"
	}
	return fmt.Sprintf("%g", x)
}

func compareFloats(what string, d *datasets.Graph, want []float64, got func(v int) float64, rel float64) error {
	for v, w := range want {
		x := got(v)
		if x == w || (math.IsInf(x, 1) && math.IsInf(w, 1)) {
			continue
		}
		if math.IsNaN(x) || math.Abs(x-w) > rel*math.Max(math.Abs(x), math.Abs(w)) {
			return fmt.Errorf("vertex %d: %s %v, reference %v (relative tolerance %g)", d.OriginalID(int32(v)), what, x, w, rel)
		}
	}
	return nil
}

// rankOutcome checks ranks against the reference to rel (relative).
func rankOutcome[F apps.Float](g *vertexprog.Graph, r *apps.PageRankResult[F], want func() []float64, rel float64) *outcome {
	d := g.Dataset()
	// The top vertex (the first of those that tie): one pass, where a
	// sort of every vertex cost a time to answer ~1 s on kron21.
	top := int32(0)
	for v, x := range r.Rank {
		if x > r.Rank[top] {
			top = int32(v)
		}
	}
	return &outcome{
		run:     statsOf(r.Run),
		summary: fmt.Sprintf("%d iterations; top vertex %d (rank %.6g)", r.Run.Iterations, d.OriginalID(top), r.Rank[top]),
		write: func(w io.Writer) error {
			return writeLines(w, d.N, func(bw *bufio.Writer, v int32) {
				fmt.Fprintf(bw, "%d %.12g\n", d.OriginalID(v), r.Rank[v])
			})
		},
		check: func() error {
			return compareFloats("rank", d, want(), func(v int) float64 { return r.Rank[v] }, rel)
		},
	}
}

func runPageRank(g *vertexprog.Graph, p params, opt vertexprog.Options) (*outcome, error) {
	if p.precision != "float64" {
		return nil, fmt.Errorf("--precision %s: the paper's PageRank runs in float64 only (it stops when no rank moves more than --tolerance, finer than float32 sums resolve on ranks near 1); pagerank-ldbc takes float32", p.precision)
	}
	limit := p.maxIter
	if limit == 0 {
		limit = pageRankLimit
	}
	r, err := apps.PageRank(g, p.damping, p.tolerance, limit, opt)
	if err != nil {
		return nil, err
	}
	return p.output(rankOutcome(g, r, func() []float64 {
		pr, _ := reference.PageRank(g.Dataset(), p.damping, p.tolerance, limit)
		return pr
	}, 1e-6), ldbcValues(g.Dataset(), r.Rank)), nil
}

func runPageRankLDBC(g *vertexprog.Graph, p params, opt vertexprog.Options) (*outcome, error) {
	switch p.precision {
	case "float64":
		return pageRankLDBCIn[float64](g, p, opt, 1e-6)
	case "float32":
		// Contributions rounded to float32 every iteration: ~1e-7
		// relative on the shipped graphs, checked to 1e-5.
		return pageRankLDBCIn[float32](g, p, opt, 1e-5)
	}
	return nil, fmt.Errorf("--precision %q: want float64 or float32", p.precision)
}

// pageRankLDBCIn runs LDBC PageRank in precision F, checked to rel.
func pageRankLDBCIn[F apps.Float](g *vertexprog.Graph, p params, opt vertexprog.Options, rel float64) (*outcome, error) {
	r, err := apps.PageRankLDBCIn[F](g, p.damping, p.iterations, opt)
	if err != nil {
		return nil, err
	}
	o := rankOutcome(g, r, func() []float64 { return reference.PageRankLDBC(g.Dataset(), p.damping, p.iterations) }, rel)
	return p.output(o, ldbcValues(g.Dataset(), r.Rank)), nil
}

func runTC(g *vertexprog.Graph, p params, opt vertexprog.Options) (*outcome, error) {
	d := g.Dataset()
	r, err := apps.Triangles(g, p.perVertex, opt)
	if err != nil {
		return nil, err
	}
	o := &outcome{
		run:     statsOf(r.Run),
		summary: fmt.Sprintf("%d triangles", r.Total),
		check: func() error {
			total, per := reference.Triangles(d)
			if total != r.Total {
				return fmt.Errorf("%d triangles, reference %d", r.Total, total)
			}
			for v := range r.PerVertex {
				if r.PerVertex[v] != per[v] {
					return fmt.Errorf("vertex %d in %d triangles, reference %d", d.OriginalID(int32(v)), r.PerVertex[v], per[v])
				}
			}
			return nil
		},
	}
	o.write = func(w io.Writer) error {
		if r.PerVertex == nil {
			_, err := fmt.Fprintf(w, "%d\n", r.Total)
			return err
		}
		return writeLines(w, d.N, func(bw *bufio.Writer, v int32) {
			fmt.Fprintf(bw, "%d %d\n", d.OriginalID(v), r.PerVertex[v])
		})
	}
	return o, nil
}

func runCC(g *vertexprog.Graph, p params, opt vertexprog.Options) (*outcome, error) {
	d := g.Dataset()
	r, err := apps.ConnectedComponents(g, opt)
	if err != nil {
		return nil, err
	}
	// (Labels are vertices: a slice, where a map cost ~250 ms on kron21.)
	sizes := make([]int32, d.N)
	largest := int32(0)
	for _, l := range r.Label {
		sizes[l]++
		largest = max(largest, sizes[l])
	}
	return p.output(&outcome{
		run:     statsOf(r.Run),
		summary: fmt.Sprintf("%d components, largest %d vertices", r.Components, largest),
		write: func(w io.Writer) error {
			first := componentIDs(d, r.Label)
			return writeLines(w, d.N, func(bw *bufio.Writer, v int32) {
				fmt.Fprintf(bw, "%d %d\n", d.OriginalID(v), first[r.Label[v]])
			})
		},
		check: func() error {
			want := reference.Components(d)
			for v := range want {
				if want[v] != r.Label[v] {
					return fmt.Errorf("vertex %d labelled %d, reference %d", d.OriginalID(int32(v)), d.OriginalID(r.Label[v]), d.OriginalID(want[v]))
				}
			}
			return nil
		},
	}, ldbcLabels(d, r.Label)), nil
}

func runLCC(g *vertexprog.Graph, p params, opt vertexprog.Options) (*outcome, error) {
	d := g.Dataset()
	r, err := apps.LCC(g, opt)
	if err != nil {
		return nil, err
	}
	sum, positive := 0.0, 0
	for _, x := range r.LCC {
		sum += x
		if x > 0 {
			positive++
		}
	}
	mean := 0.0
	if d.N > 0 {
		mean = sum / float64(d.N)
	}
	return p.output(&outcome{
		run:     statsOf(r.Run),
		summary: fmt.Sprintf("mean lcc %.6g over %d vertices; %d with lcc > 0", mean, d.N, positive),
		write: func(w io.Writer) error {
			return writeLines(w, d.N, func(bw *bufio.Writer, v int32) {
				fmt.Fprintf(bw, "%d %.12g\n", d.OriginalID(v), r.LCC[v])
			})
		},
		check: func() error {
			// The app divides arcs by d(d-1), the reference (on an
			// undirected graph) edges by d(d-1)/2: the last bit may differ.
			return compareFloats("lcc", d, reference.LCC(d), func(v int) float64 { return r.LCC[v] }, 1e-12)
		},
	}, ldbcValues(d, r.LCC)), nil
}

func runCDLP(g *vertexprog.Graph, p params, opt vertexprog.Options) (*outcome, error) {
	d := g.Dataset()
	r, err := apps.CDLP(g, p.iterations, opt)
	if err != nil {
		return nil, err
	}
	communities := map[int64]int{}
	largest := 0
	for _, l := range r.Label {
		communities[l]++
		largest = max(largest, communities[l])
	}
	// (labels are original ids already: the LDBC and the hpgraph lines are one)
	write := func(w io.Writer) error {
		return writeLines(w, d.N, func(bw *bufio.Writer, v int32) {
			fmt.Fprintf(bw, "%d %d\n", d.OriginalID(v), r.Label[v])
		})
	}
	return p.output(&outcome{
		run:     statsOf(r.Run),
		summary: fmt.Sprintf("%d iterations; %d communities, largest %d vertices", r.Run.Iterations, len(communities), largest),
		write:   write,
		check: func() error {
			want := reference.CDLP(d, p.iterations)
			for v := range want {
				if want[v] != r.Label[v] {
					return fmt.Errorf("vertex %d labelled %d, reference %d", d.OriginalID(int32(v)), r.Label[v], want[v])
				}
			}
			return nil
		},
	}, write), nil
}
