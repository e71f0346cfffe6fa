package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// engineFlags are the flags that choose how programs run.
type engineFlags struct {
	backend, direction, rule string
	hf                       hybFlags
	verbose                  bool
}

func (e *engineFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&e.backend, "backend", "auto", "where to run: auto (GPU if present, else CPU), cpu or cuda")
	f.StringVar(&e.direction, "direction", "auto", "superstep direction: auto (cost model), push or pull")
	f.StringVar(&e.rule, "rule", "beamer", "direction cost model: beamer (GAP, alpha 15 beta 18) or graphblast (pull above nnz/10)")
	f.BoolVarP(&e.verbose, "verbose", "v", false, "log every superstep (direction, frontier) to stderr")
	e.hf.register(cmd)
}

func (e *engineFlags) options() (vertexprog.Options, error) {
	dir, err := vertexprog.ParseDirection(e.direction)
	if err != nil {
		return vertexprog.Options{}, err
	}
	o := vertexprog.Options{Backend: e.backend, Direction: dir, HYB: e.hf.options()}
	switch e.rule {
	case "beamer":
	case "graphblast":
		o.Rule = vertexprog.GraphBLAST
	default:
		return o, fmt.Errorf("--rule %q: want beamer or graphblast", e.rule)
	}
	if e.verbose {
		o.Log = func(line string) { fmt.Fprintln(os.Stderr, line) }
	}
	return o, nil
}

func (p *params) register(fs *pflag.FlagSet) {
	fs.Int64Var(&p.src, "src", -1, "source vertex, in the file's ids (1-based for Matrix Market); default: the highest-degree vertex")
	fs.Float64Var(&p.damping, "damping", 0.85, "PageRank damping factor")
	fs.Float64Var(&p.tolerance, "tolerance", 1e-6, "PageRank (paper variant): a vertex stays active while its rank moves more than this")
	fs.IntVar(&p.maxIter, "max-iter", 0, "superstep limit for any algorithm (0: the algorithm's own; the paper's PageRank stops at 1000)")
	fs.IntVar(&p.iterations, "iterations", 10, "LDBC PageRank: number of iterations")
	fs.StringVar(&p.precision, "precision", "float64", "LDBC PageRank: float64 or float32 contributions and sums (ranks stay float64; float32 is what GPU peers and cuSPARSE's float SpMV use)")
	fs.BoolVar(&p.perVertex, "per-vertex", false, "triangle counting: also count per vertex (written by --out)")
	fs.Float64Var(&p.delta, "delta", -1, "sssp on a GPU: delta-stepping's bucket width where the frontier is small (0: Bellman-Ford throughout; default: 16 times the mean edge weight)")
}

// pageRankLimit is the paper PageRank's superstep limit when the user
// sets none: it converges by tolerance, this only bounds a bad tolerance.
const pageRankLimit = 1000

// apply puts the parameters that concern every algorithm into opt.
func (p params) apply(opt vertexprog.Options) vertexprog.Options {
	opt.MaxIterations = p.maxIter
	return opt
}

func backendNames() []string { return vertexprog.Backends() }

func newRun() *cobra.Command {
	var (
		lf       loadFlags
		ef       engineFlags
		prm      params
		runs     int
		validate bool
		outFile  string
		jsonFile string
	)
	cmd := &cobra.Command{
		Use:   "run ALGO GRAPH",
		Short: "Run an algorithm on a graph file (bfs, sssp, pagerank, pagerank-ldbc, tc, cc)",
		Long:  "Run an algorithm on a graph file and print its times; algorithms:\n" + algorithmList(),
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			alg, err := findAlgorithm(args[0])
			if err != nil {
				return err
			}
			if runs < 1 {
				return fmt.Errorf("--runs %d: need at least 1", runs)
			}
			opt, err := ef.options()
			if err != nil {
				return err
			}
			d, loadTime, err := lf.load(args[1])
			if err != nil {
				return err
			}
			g := vertexprog.NewGraph(d)
			opt = prm.apply(opt)
			rec := newRecord(d, args[1], alg.name, prm, loadTime)
			// One untimed warm-up run pays for PREPROCESS's cached matrices.
			first, err := alg.run(g, prm, opt)
			if err != nil {
				return err
			}
			rec.PreprocessMS = ms(first.run.preprocess)
			last := first
			for i := 0; i < runs; i++ {
				if last, err = alg.run(g, prm, opt); err != nil {
					return err
				}
				rec.addRun(last.run)
			}
			rec.finish()
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "%s on %s (%d vertices, %d edges, %s), backend %s\n",
				alg.name, args[1], d.N, d.Edges(), edgeCountRule(d), last.run.backend)
			fmt.Fprintf(out, "result: %s\n", last.summary)
			fmt.Fprintf(out, "load %.1f ms, preprocess %.2f ms (first run), %d supersteps", rec.LoadMS, rec.PreprocessMS, last.run.iterations)
			if last.run.finish > 0 {
				fmt.Fprintf(out, ", results copied back in %.2f ms (not in the times below)", ms(last.run.finish))
			}
			fmt.Fprintln(out)
			fmt.Fprintf(out, "time over %d runs: median %.3f ms, min %.3f, max %.3f; %.1f MTEPS (median)\n",
				runs, rec.MedianMS, rec.MinMS, rec.MaxMS, rec.MTEPS)
			if len(rec.DeviceMS) > 0 {
				med, lo, hi := stats(rec.DeviceMS)
				fmt.Fprintf(out, "on the device's clock (GPU events, host wait excluded): median %.3f ms, min %.3f, max %.3f\n", med, lo, hi)
			}
			if validate {
				t0 := time.Now()
				if err := last.check(); err != nil {
					return fmt.Errorf("validation FAILED against the gonum reference: %w", err)
				}
				rec.Validated = true
				fmt.Fprintf(out, "validation: PASS against the gonum reference (%v)\n", time.Since(t0).Round(time.Millisecond))
			}
			if outFile != "" {
				if err := writeText(outFile, false, func(w writer) error { return last.write(w) }); err != nil {
					return err
				}
			}
			if jsonFile != "" {
				return writeJSON(jsonFile, rec)
			}
			return nil
		},
	}
	lf.register(cmd.Flags())
	ef.register(cmd)
	prm.register(cmd.Flags())
	f := cmd.Flags()
	f.IntVar(&runs, "runs", 1, "timed runs (after one warm-up); the median, min and max are reported")
	f.BoolVar(&validate, "validate", false, "compare the result with the gonum reference; fail on any mismatch")
	f.StringVar(&outFile, "out", "", "write per-vertex results (with the file's ids) to this file")
	f.StringVar(&jsonFile, "json", "", "write the run record (times, iterations, MTEPS, host, version) as JSON")
	return cmd
}

func algorithmList() string {
	s := ""
	for _, a := range algorithms {
		s += fmt.Sprintf("  %-14s %s\n", a.name, a.about)
	}
	return s
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// record is the JSON run record.
type record struct {
	Schema       int            `json:"schema_version"`
	Version      string         `json:"hpgraph_version"`
	Host         hostInfo       `json:"host"`
	Graph        graphInfo      `json:"graph"`
	Algorithm    string         `json:"algorithm"`
	Params       map[string]any `json:"params"`
	Backend      string         `json:"backend"`
	LoadMS       float64        `json:"load_ms"`
	PreprocessMS float64        `json:"preprocess_ms"`
	RunsMS       []float64      `json:"runs_ms"`
	// DeviceMS is each run on the device's clock (GPU events: the first
	// launch to the end of the last superstep's work), absent on the CPU.
	DeviceMS     []float64 `json:"device_ms,omitempty"`
	Iterations   []int     `json:"iterations"`
	MedianMS     float64   `json:"median_ms"`
	MinMS        float64   `json:"min_ms"`
	MaxMS        float64   `json:"max_ms"`
	MTEPS        float64   `json:"mteps"`
	EdgesCounted string    `json:"edges_counted"`
	Validated    bool      `json:"validated"`
	edges        int64
}

type hostInfo struct {
	Hostname   string `json:"hostname"`
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	CPUs       int    `json:"cpus"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	Go         string `json:"go"`
}

type graphInfo struct {
	File     string `json:"file"`
	Vertices int    `json:"vertices"`
	Edges    int64  `json:"edges"`
	NNZ      int64  `json:"nnz"`
	Directed bool   `json:"directed"`
	Weighted bool   `json:"weighted"`
}

func newRecord(d *datasets.Graph, file, alg string, p params, load time.Duration) *record {
	host, _ := os.Hostname()
	return &record{
		Schema: 1, Version: version(),
		Host:      hostInfo{host, runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version()},
		Graph:     graphInfo{file, d.N, d.Edges(), d.NNZ(), d.Directed, d.W != nil},
		Algorithm: alg,
		Params: map[string]any{"src": p.src, "damping": p.damping, "tolerance": p.tolerance,
			"max_iter": p.maxIter, "iterations": p.iterations, "precision": p.precision, "per_vertex": p.perVertex, "delta": p.delta},
		LoadMS:       ms(load),
		EdgesCounted: edgeCountRule(d),
		edges:        d.Edges(),
	}
}

func (r *record) addRun(s runStats) {
	r.Backend = s.backend
	r.RunsMS = append(r.RunsMS, ms(s.compute))
	if s.device > 0 {
		r.DeviceMS = append(r.DeviceMS, ms(s.device))
	}
	r.Iterations = append(r.Iterations, s.iterations)
}

func (r *record) finish() {
	r.MedianMS, r.MinMS, r.MaxMS = stats(r.RunsMS)
	if r.MedianMS > 0 {
		r.MTEPS = float64(r.edges) / (r.MedianMS * 1e3)
	}
}

// median of sorted values (the mean of the middle two for an even count).
func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

func writeJSON(path string, v any) error {
	return writeText(path, false, func(w writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}
