package main

// What bench runs on: its algorithms (apps and their variants), backends
// and graphs (files or generator specs), loaded through the pipeline.

import (
	"cmp"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/registry"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/pipeline"
	"github.com/hpgraph/hpgraph/serve/wire"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// variants (apps.Variant: pagerank-iter).
type benchAlgo struct {
	name, about string
	app         *apps.App
	variant     *apps.Variant // nil: the app as run runs it
}

// run runs the algorithm on g.
func (a benchAlgo) run(g *vertexprog.Graph, p params, opt vertexprog.Options) (*outcome, error) {
	if a.variant != nil {
		if err := a.variant.Apply(&p.Params); err != nil {
			return nil, flagError(err)
		}
	}
	return runApp(a.app, g, p, opt)
}

// benchAlgorithms are the apps, each followed by its variants (LDBC
// PageRank by pagerank-iter, one iteration: the "PageRank, one iteration"
// row of the benchmarks).
func benchAlgorithms() []benchAlgo {
	var out []benchAlgo
	for _, a := range registry.Apps() {
		out = append(out, benchAlgo{name: a.Name, about: a.About, app: a})
		for i := range a.Variants {
			v := &a.Variants[i]
			out = append(out, benchAlgo{name: v.Name, about: v.About, app: a, variant: v})
		}
	}
	return out
}

func benchAlgoNames() []string {
	var names []string
	for _, a := range benchAlgorithms() {
		names = append(names, a.name)
	}
	return names
}

func findBenchAlgos(list string) ([]benchAlgo, error) {
	all := benchAlgorithms()
	var out []benchAlgo
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if a := registry.Lookup(name); a != nil {
			name = a.Name // (an alias)
		}
		i := slices.IndexFunc(all, func(a benchAlgo) bool { return a.name == name })
		if i < 0 {
			return nil, fmt.Errorf("--algo: unknown algorithm %q; want a comma-separated list of %s", name, strings.Join(benchAlgoNames(), ", "))
		}
		if !slices.ContainsFunc(out, func(a benchAlgo) bool { return a.name == name }) {
			out = append(out, all[i])
		}
	}
	return out, nil
}

// findBenchBackends resolves --backend: "all" is every backend that can
// run here (vertexprog.Backends).
func findBenchBackends(list string) ([]string, error) {
	avail := vertexprog.Backends()
	if strings.TrimSpace(list) == "all" {
		return avail, nil
	}
	var out []string
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		// (auto: what a user who does not choose gets; its --answer rows
		// race the CPU against the device)
		if !slices.Contains(avail, name) && name != "auto" {
			err := fmt.Errorf("--backend: %q is not available here (available: %s)", name, strings.Join(avail, ", "))
			if why := vertexprog.Warm(name); why != nil { // no driver, no device, ...
				err = fmt.Errorf("%w: %v", err, why)
			}
			return nil, err
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out, nil
}

// graphSource is a GRAPH argument: a file, or a generator spec.
type graphSource struct {
	arg   string
	file  string // set for a file
	kind  string // generator, for a spec
	p     genParams
	about string // the generator and its parameters
}

var specName = regexp.MustCompile(`^[a-z]+$`)

// parseGraphArg reads a GRAPH argument. An existing file is a file;
// otherwise kron:SCALE[:DEGREE], urand:SCALE[:DEGREE] (or uniform:),
// grid:ROWSxCOLS and road:ROWSxCOLS build GAP's and the lattice
// generators' graphs with their default seeds.
func parseGraphArg(arg string) (graphSource, error) {
	src := graphSource{arg: arg}
	_, statErr := os.Stat(arg)
	if statErr == nil {
		src.file = arg
		return src, nil
	}
	kind, rest, ok := strings.Cut(arg, ":")
	if !ok || !specName.MatchString(kind) {
		// Not a spec: a file that cannot be read.
		return src, statErr
	}
	bad := func(why string) error {
		return fmt.Errorf("graph %q: %s; want a graph file or a generator spec: kron:SCALE[:DEGREE], urand:SCALE[:DEGREE], grid:ROWSxCOLS or road:ROWSxCOLS", arg, why)
	}
	src.kind = kind
	src.p = genParams{degree: gen.GAPDegree, seed: gen.GAPSeed, extra: 0.25}
	switch kind {
	case "kron", "kronecker", "rmat", "urand", "uniform":
		s, d, hasDegree := strings.Cut(rest, ":")
		var err error
		if src.p.scale, err = strconv.Atoi(s); err != nil || src.p.scale < 1 || src.p.scale > gen.MaxScale {
			return src, bad(fmt.Sprintf("scale %q is not an integer in [1, %d]", s, gen.MaxScale))
		}
		if hasDegree {
			if src.p.degree, err = strconv.Atoi(d); err != nil || src.p.degree < 1 {
				return src, bad(fmt.Sprintf("degree %q is not a positive integer", d))
			}
		}
		name := "Kronecker (Graph500 A=0.57 B=0.19 C=0.19)"
		if kind == "urand" || kind == "uniform" {
			name = "uniform random"
		}
		src.about = fmt.Sprintf("%s, scale %d, degree %d, seed %d (GAP's generator)", name, src.p.scale, src.p.degree, src.p.seed)
	case "grid", "road":
		r, c, ok := strings.Cut(rest, "x")
		var err1, err2 error
		src.p.rows, err1 = strconv.Atoi(r)
		src.p.cols, err2 = strconv.Atoi(c)
		if !ok || err1 != nil || err2 != nil || src.p.rows < 1 || src.p.cols < 1 {
			return src, bad(fmt.Sprintf("size %q is not ROWSxCOLS with both at least 1", rest))
		}
		src.about = fmt.Sprintf("%dx%d 4-neighbour grid", src.p.rows, src.p.cols)
		if kind == "road" {
			src.about = fmt.Sprintf("%dx%d road-like lattice, extra %g, seed %d", src.p.rows, src.p.cols, src.p.extra, src.p.seed)
		}
	default:
		return src, bad(fmt.Sprintf("no such file, and %q is not a generator", kind))
	}
	return src, nil
}

// benchGraph is a loaded graph: plain for every algorithm but sssp,
// weighted (when sssp runs) for sssp; they share the CSR arrays.
type benchGraph struct {
	info            benchGraphJSON
	plain, weighted *datasets.Graph
	// rows, where this process made only its rows of the graph
	// (makeBenchRows), are they, with their weights where sssp runs;
	// shape is then the graph's every row offsets, without arcs, and
	// edges its edges.
	rows  *datasets.Rows
	shape *datasets.Graph
	edges int64
}

// loadBenchGraph loads or generates a graph; a generated one is also
// written to writeTo when given (bench --answer), before any renumbering.
// The graph is renumbered (--relabel) on relabelOn's device where it is
// one (vertexprog.Relabel), interleaved over parts (vertexprog.PartsOf).
func loadBenchGraph(src graphSource, lf loadFlags, withWeights bool, writeTo, relabelOn string, parts int) (*benchGraph, error) {
	opt, err := lf.options()
	if err != nil {
		return nil, err
	}
	if !withWeights {
		opt.Weights = datasets.WeightsNone
	}
	// Relabelling is timed apart from loading: it is PREPROCESS.
	info := benchGraphJSON{Name: src.arg}
	var from pipeline.Source
	var pr *progress
	madeInOrder := "" // (the order a graph made on several GPUs was made in)
	if src.file != "" {
		info.Kind, info.File = "file", src.file
		pr = newProgress("loading " + src.file)
		from = pipeline.File(src.file, pr.bytes)
	} else {
		pr = newProgress("generating " + src.arg)
		from = func(opt datasets.Options) (*datasets.Graph, error) {
			info.Kind, info.Generator = "generator", src.about
			// Runs on several GPUs: each makes its part of the rows, in
			// the order the graph is run in (generateOnGPUs).
			if gg, ok := gapGraph(src.kind, src.p); ok && parts > 1 && relabelOn != "cpu" && !(gg.Uniform && lf.Relabel == "degree") {
				g, order, about, err := generateOnGPUs(gg, opt, lf.Relabel != "none", parts)
				if err == nil {
					info.Generator += fmt.Sprintf(" (made on %d GPUs, a part each)", parts)
					madeInOrder = about
					if order == datasets.RelabelNone {
						madeInOrder = "none"
					}
					return g, nil
				}
				if !gpuFallback(err, "auto") {
					return nil, err
				}
			}
			g, where, err := generateWhere(src.kind, src.p, opt, "auto")
			info.Generator += where
			return g, err
		}
	}
	ld, err := pipeline.Read(from, opt)
	pr.done()
	if err != nil {
		return nil, err
	}
	info.LoadMS = ms(ld.ReadTime)
	if writeTo != "" && src.file == "" {
		if err := writeAnswerGraph(writeTo, ld.Data); err != nil {
			return nil, fmt.Errorf("--answer: writing %s: %w", writeTo, err)
		}
	}
	ld.Parts = parts
	if madeInOrder == "" {
		ld.Relabel(ld.Want, relabelOn)
		info.Relabel, info.RelabelMS = ld.Order.String(), ms(ld.RelabelTime)
	} else {
		info.Relabel = madeInOrder
	}
	g := ld.Data
	info.Vertices, info.Edges, info.NNZ, info.Directed = g.N, g.Edges(), g.NNZ(), g.Directed
	bg := &benchGraph{plain: g}
	if g.W != nil {
		plain := *g
		plain.W = nil
		bg.plain = &plain
	}
	if withWeights {
		bg.weighted = g
		info.Weights = weightsAbout(lf, g)
	}
	bg.info = info
	return bg, nil
}

// weightsAbout describes the weights sssp runs with.
func weightsAbout(lf loadFlags, g *datasets.Graph) string {
	switch {
	case g.W == nil:
		return "none (unit weights)"
	case strings.HasPrefix(lf.Weights, "random:"):
		return fmt.Sprintf("%s (uniform integers, seed %d)", lf.Weights, cmp.Or(lf.Seed, wire.DefaultSeed))
	}
	return "from the file"
}

// traversedNNZ is the nnz of the pull matrix a program of edge type e runs
// over (the engine has built and cached it by then).
func traversedNNZ(g *vertexprog.Graph, e vertexprog.EdgeType, opt hyb.Options) (int64, error) {
	if opt == (hyb.Options{}) {
		opt = hyb.DefaultOptions()
	}
	m, err := g.PullMatrix(e, opt)
	if err != nil {
		return 0, err
	}
	return m.NNZ(), nil
}
