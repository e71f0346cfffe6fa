package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hpgraph/hpgraph/cuda"
	gpugen "github.com/hpgraph/hpgraph/cuda/gen"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/spf13/cobra"
)

func newGen() *cobra.Command {
	var (
		scale, degree, rows, cols int
		seed                      uint64
		extra                     float64
		shuffle                   bool
		out, on                   string
		lf                        loadFlags
	)
	cmd := &cobra.Command{
		Use:   "gen kron|uniform|grid|road -o OUT",
		Short: "Generate a seeded, reproducible graph (GAP-identical Kronecker and uniform graphs)",
		Long: `Generate a graph and write it as Matrix Market (.mtx), an edge list (.el, .txt)
or an hpgraph cache (.hpg), optionally gzipped (.gz). The vertices are
numbered as GAP numbers them, from 0, in .hpg and edge lists, and from 1
in Matrix Market, whose rows are numbered from 1 (GAP's vertex v is row
and id v+1), so that every Matrix Market reader sees the same ids.

  kron     Kronecker/R-MAT, Graph500 parameters (A=0.57, B=0.19, C=0.19): the same
           edge set as GAP's -g SCALE -k DEGREE for the same seed
  uniform  uniform random, GAP's -u SCALE -k DEGREE
  grid     ROWS x COLS 4-neighbour grid (diameter ROWS+COLS-2)
  road     road-like: a random spanning tree of the grid plus a fraction --extra
           of the remaining grid edges (degree <= 4, high diameter, connected)`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"kron", "uniform", "grid", "road"},
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return fmt.Errorf("gen: no output file; give -o FILE (.mtx, .el, .hpg, optionally .gz)")
			}
			if err := checkGraphOutput("-o", out); err != nil {
				return err
			}
			lf.Relabel = "none" // (a generated graph keeps GAP's numbering)
			opt, err := lf.options()
			if err != nil {
				return err
			}
			if on != "auto" && on != "gpu" && on != "cpu" {
				return fmt.Errorf("--on %q: want auto, gpu or cpu", on)
			}
			params := genParams{scale, degree, rows, cols, seed, extra, shuffle}
			pr := newProgress("generating " + args[0])
			t0 := time.Now()
			done := func(n int, edges int64, rule string, stats datasets.BuildStats, where string) {
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %d vertices, %d edges (%s), %d self loops and %d duplicate arcs removed, %v%s\n",
					out, n, edges, rule, stats.SelfLoops, stats.Duplicates, time.Since(t0).Round(time.Millisecond), where)
			}
			// A .hpg of GAP's graph made on a GPU is written from the
			// device: the host never holds the graph.
			if ext, _, _ := outputFormat(out); ext == ".hpg" && on != "cpu" {
				if gg, ok := gapGraph(args[0], params); ok {
					pr.tick("making the graph on the GPU and writing it")
					n, nnz, stats, err := writeOnGPU(out, gg, opt)
					if err == nil {
						pr.done()
						// (gen keeps no self loops: each edge is two arcs)
						done(n, nnz/2, "each undirected edge once", stats, " (made on the GPU)")
						return nil
					}
					if !gpuFallback(err, on) {
						pr.done()
						return err
					}
					on = "cpu"
				}
			}
			pr.tick("making and building the entries")
			g, where, err := generateWhere(args[0], params, opt, on)
			if err != nil {
				pr.done()
				return err
			}
			pr.tick("writing")
			if ext, _, _ := outputFormat(out); (ext == ".mtx" || ext == ".mm") && g.IDs == nil {
				// A generated vertex has no id of its own, only GAP's
				// number from 0; Matrix Market numbers its rows from 1,
				// and so do the file's ids (no %hpgraph idbase 0 that
				// other readers would not know): GAP's vertex v is row v+1.
				g.IDBase = 1
			}
			err = writeGraph(out, g)
			pr.done()
			if err != nil {
				return err
			}
			done(g.N, g.Edges(), edgeCountRule(g), g.Stats, where)
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&scale, "scale", 10, "log2 of the number of vertices (kron, uniform)")
	f.IntVar(&degree, "degree", gen.GAPDegree, "average degree: edges generated per vertex (kron, uniform)")
	f.Uint64Var(&seed, "seed", gen.GAPSeed, "random seed (GAP's fixed seed by default)")
	f.IntVar(&rows, "rows", 1000, "rows (grid, road)")
	f.IntVar(&cols, "cols", 1000, "columns (grid, road)")
	f.Float64Var(&extra, "extra", 0.25, "road: fraction of non-tree grid edges kept")
	f.BoolVar(&shuffle, "shuffle", false, "road: relabel vertices randomly")
	f.StringVarP(&out, "out", "o", "", "output file (.mtx, .el/.txt, .hpg, GAP's .sg/.wsg; add .gz to compress text)")
	f.StringVar(&on, "on", "auto", "where kron and uniform graphs are made: auto (a GPU where there is one and the graph fits, else the host), gpu or cpu (the same graph either way)")
	f.StringVar(&lf.Weights, "weights", "none", "edge weights: none or random:LO-HI (seeded by --weight-seed)")
	f.Uint64Var(&lf.Seed, "weight-seed", gen.GAPSeed, "seed for --weights random")
	return cmd
}

// genParams are a generator's parameters (each generator uses some).
type genParams struct {
	scale, degree, rows, cols int
	seed                      uint64
	extra                     float64
	shuffle                   bool
}

// generateWhere builds the graph a generator makes (gen's and bench's
// shared switch), GAP's Kronecker and uniform graphs where on says: auto
// (a GPU where there is one and the graph fits, else the host), gpu or
// cpu; it says where the graph was made (" (made on the GPU)", or ""). On
// the host they are built from streams, their entries made twice rather
// than held (kron27: 19 GB in all, where the list would add 17).
func generateWhere(kind string, p genParams, opt datasets.Options, on string) (*datasets.Graph, string, error) {
	if gg, ok := gapGraph(kind, p); ok && on != "cpu" {
		g, err := generateOnGPU(gg, opt)
		if err == nil {
			return g, " (made on the GPU)", nil
		}
		if !gpuFallback(err, on) {
			return nil, "", err
		}
	}
	var es *datasets.EdgeStream
	var el *datasets.EdgeList
	var err error
	switch kind {
	case "kron", "kronecker", "rmat":
		es, err = gen.KroneckerStream(p.scale, p.degree, p.seed)
	case "uniform", "urand":
		es, err = gen.UniformStream(p.scale, p.degree, p.seed)
	case "grid":
		el, err = gen.Grid(p.rows, p.cols)
	case "road":
		el, err = gen.Road(p.rows, p.cols, p.seed, p.extra, p.shuffle)
	default:
		return nil, "", fmt.Errorf("gen: unknown generator %q; want kron, uniform, grid or road", kind)
	}
	if err != nil {
		return nil, "", err
	}
	var g *datasets.Graph
	if es != nil {
		g, err = datasets.BuildStream(es, opt)
	} else {
		g, err = datasets.Build(el, opt)
	}
	return g, "", err
}

// gapGraph is the GAP graph generator kind makes with p, if it is one.
func gapGraph(kind string, p genParams) (gen.GAPGraph, bool) {
	switch kind {
	case "kron", "kronecker", "rmat":
		return gen.GAPGraph{Scale: p.scale, Degree: p.degree, Seed: p.seed}, true
	case "uniform", "urand":
		return gen.GAPGraph{Uniform: true, Scale: p.scale, Degree: p.degree, Seed: p.seed}, true
	}
	return gen.GAPGraph{}, false
}

// gpuGraph is GAP's graph gg for the GPU's generator, where there is a
// GPU (asked first: the graph starts drawing its shuffle on the host).
func gpuGraph(gg gen.GAPGraph, opt datasets.Options) (*gpugen.Graph, error) {
	if err := gpuUnavailable(); err != nil {
		return nil, err
	}
	return gpugen.New(gpugen.Spec{GAPGraph: gg, Options: opt})
}

// generateOnGPU makes GAP's graph gg on the GPU (cuda.Backend.Generate:
// the host gets a copy, the device keeps the CSR for the runs), then
// renumbers it on the host as opt says.
func generateOnGPU(gg gen.GAPGraph, opt datasets.Options) (*datasets.Graph, error) {
	relabel := opt.Relabel
	opt.Relabel = datasets.RelabelNone
	g, err := gpuGraph(gg, opt)
	if err != nil {
		return nil, err
	}
	h, err := cuda.Registered().Generate(g)
	if err != nil {
		return nil, err
	}
	return h.Relabel(relabel), nil
}

// writeOnGPU makes GAP's graph gg on the GPU and writes it to path as
// .hpg from there; it returns its vertices, arcs and cleaning counts.
func writeOnGPU(path string, gg gen.GAPGraph, opt datasets.Options) (n int, nnz int64, stats datasets.BuildStats, err error) {
	g, err := gpuGraph(gg, opt)
	if err != nil {
		return 0, 0, stats, err
	}
	err = writeFile(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		if nnz, stats, err = cuda.Registered().WriteGenerated(g, bw); err != nil {
			return err
		}
		return bw.Flush()
	})
	return g.N, nnz, stats, err
}

// gpuFallback says whether a graph the GPU did not make is made on the
// host instead: with --on auto, where there is no GPU or the graph does
// not fit (said on stderr), not where the GPU failed otherwise (a bug
// would hide) or where --on gpu asked for it.
func gpuFallback(err error, on string) bool {
	switch {
	case on != "auto":
		return false
	case errors.Is(err, cuda.ErrNoGPU):
		return true
	case errors.Is(err, gpugen.ErrOutOfMemory):
		fmt.Fprintf(os.Stderr, "hpgraph: making the graph on the host: %v\n", err)
		return true
	}
	return false
}

func newConvert() *cobra.Command {
	var lf loadFlags
	cmd := &cobra.Command{
		Use:   "convert IN OUT",
		Short: "Load a graph (cleaning it as the flags say) and write it as .hpg cache, .mtx, edge list or GAP's .sg/.wsg",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkGraphOutput("OUT", args[1], args[0]); err != nil {
				return err
			}
			if ext, _, _ := outputFormat(args[1]); (ext == ".sg" || ext == ".wsg") && !cmd.Flags().Changed("relabel") {
				// (GAP's files hold no ids: vertex v is row v, so the rows
				// keep the input's order unless asked)
				lf.Relabel = "none"
			}
			ld, err := lf.load(args[0], "cpu", 1)
			if err != nil {
				return err
			}
			g, took := ld.Data, ld.LoadTime()
			t0 := time.Now()
			if err := writeGraph(args[1], g); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s -> %s: %d vertices, %d edges; read %v, wrote %v\n",
				args[0], args[1], g.N, g.Edges(), took.Round(time.Millisecond), time.Since(t0).Round(time.Millisecond))
			return nil
		},
	}
	lf.register(cmd.Flags())
	return cmd
}

// outputFormat is the format a graph file's name asks for (its extension
// without .gz) and whether it is gzipped, or why none is.
func outputFormat(path string) (ext string, gz bool, err error) {
	base := strings.TrimSuffix(strings.ToLower(path), ".gz")
	gz = base != strings.ToLower(path)
	switch ext = filepath.Ext(base); ext {
	case ".hpg":
		if gz {
			return "", false, fmt.Errorf("%s: the .hpg cache is read at disk speed; do not gzip it", path)
		}
	case ".mtx", ".mm", ".el", ".txt", ".edgelist", ".tsv", ".snap", ".e":
	case ".sg", ".wsg":
		if gz {
			return "", false, fmt.Errorf("%s: GAP reads its serialized graphs uncompressed; do not gzip one", path)
		}
	case ".properties":
		if gz {
			return "", false, fmt.Errorf("%s: an LDBC graph's .properties is not gzipped", path)
		}
	default:
		return "", false, fmt.Errorf("%s: unknown output format %q; use .hpg, .mtx, .el (optionally .gz), .sg or .wsg (GAP's serialized graphs) or NAME.properties (LDBC: NAME.v, NAME.e and NAME.properties)", path, ext)
	}
	return ext, gz, nil
}

// ldbcPaths are the files of the LDBC graph that NAME.properties names.
func ldbcPaths(path string) (v, e, props string) {
	base := strings.TrimSuffix(path, filepath.Ext(path))
	return base + ".v", base + ".e", path
}

// checkGraphOutput fails before any work when a graph cannot be written to
// path (see outputFormat and checkOutput).
func checkGraphOutput(flag, path string, inputs ...string) error {
	ext, _, err := outputFormat(path)
	if err != nil {
		return err
	}
	if ext == ".properties" {
		v, e, p := ldbcPaths(path)
		for _, out := range []string{v, e, p} {
			if err := checkOutput(flag, out, inputs...); err != nil {
				return err
			}
		}
		return nil
	}
	return checkOutput(flag, path, inputs...)
}

// writeGraph writes g in the format its file name asks for, atomically.
func writeGraph(path string, g *datasets.Graph) error {
	ext, gz, err := outputFormat(path)
	if err != nil {
		return err
	}
	if ext == ".hpg" {
		return writeFile(path, func(w writer) error {
			bw := bufio.NewWriterSize(w, 1<<20)
			if err := datasets.WriteCache(bw, g); err != nil {
				return err
			}
			return bw.Flush()
		})
	}
	if ext == ".mtx" || ext == ".mm" {
		return writeText(path, gz, func(w writer) error { return datasets.WriteMatrixMarket(w, g) })
	}
	if ext == ".sg" || ext == ".wsg" {
		if ext == ".wsg" && g.W == nil {
			return fmt.Errorf("%s: a .wsg holds GAP's weights and this graph has none (--weights random:LO-HI gives it some; .sg writes it unweighted)", path)
		}
		if ext == ".sg" && g.W != nil {
			u := *g
			u.W = nil // (a .sg holds no weights)
			g = &u
		}
		return writeText(path, false, func(w writer) error { return datasets.WriteGAP(w, g) })
	}
	if ext == ".properties" {
		// (three files, each written whole or not at all; the vertex and
		// edge files land first, the .properties that names them last)
		v, e, props := ldbcPaths(path)
		name := strings.TrimSuffix(filepath.Base(path), ".properties")
		return writeText(props, false, func(pw writer) error {
			return writeText(v, false, func(vw writer) error {
				return writeText(e, false, func(ew writer) error { return datasets.WriteLDBC(vw, ew, pw, g, name) })
			})
		})
	}
	return writeText(path, gz, func(w writer) error { return datasets.WriteEdgeList(w, g) })
}
