package main

import (
	"bufio"
	"fmt"
	"path/filepath"
	"strings"
	"time"

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
		out                       string
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
			opt, err := lf.options()
			if err != nil {
				return err
			}
			pr := newProgress("generating " + args[0])
			pr.tick("making and building the entries")
			t0 := time.Now()
			g, err := generate(args[0], genParams{scale, degree, rows, cols, seed, extra, shuffle}, opt)
			if err != nil {
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
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %d vertices, %d edges (%s), %d self loops and %d duplicate arcs removed, %v\n",
				out, g.N, g.Edges(), edgeCountRule(g), g.Stats.SelfLoops, g.Stats.Duplicates, time.Since(t0).Round(time.Millisecond))
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
	f.StringVarP(&out, "out", "o", "", "output file (.mtx, .el/.txt, .hpg; add .gz to compress text)")
	f.StringVar(&lf.weights, "weights", "none", "edge weights: none or random:LO-HI (seeded by --weight-seed)")
	f.Uint64Var(&lf.seed, "weight-seed", gen.GAPSeed, "seed for --weights random")
	return cmd
}

// genParams are a generator's parameters (each generator uses some).
type genParams struct {
	scale, degree, rows, cols int
	seed                      uint64
	extra                     float64
	shuffle                   bool
}

// generate runs the generator named kind (gen's and bench's shared switch).
// generate builds the graph a generator makes. GAP's Kronecker and
// uniform graphs are built from streams, their entries made twice rather
// than held (kron27: 19 GB in all, where the list would add 17).
func generate(kind string, p genParams, opt datasets.Options) (*datasets.Graph, error) {
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
		return nil, fmt.Errorf("gen: unknown generator %q; want kron, uniform, grid or road", kind)
	}
	if err != nil {
		return nil, err
	}
	if es != nil {
		return datasets.BuildStream(es, opt)
	}
	return datasets.Build(el, opt)
}

func newConvert() *cobra.Command {
	var lf loadFlags
	cmd := &cobra.Command{
		Use:   "convert IN OUT",
		Short: "Load a graph (cleaning it as the flags say) and write it as .hpg cache, .mtx or edge list",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkGraphOutput("OUT", args[1], args[0]); err != nil {
				return err
			}
			g, took, err := lf.load(args[0])
			if err != nil {
				return err
			}
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
	case ".properties":
		if gz {
			return "", false, fmt.Errorf("%s: an LDBC graph's .properties is not gzipped", path)
		}
	default:
		return "", false, fmt.Errorf("%s: unknown output format %q; use .hpg, .mtx, .el (optionally .gz) or NAME.properties (LDBC: NAME.v, NAME.e and NAME.properties)", path, ext)
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
