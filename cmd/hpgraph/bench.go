package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/registry"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/measure"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/spf13/cobra"
)

// benchSchema names the layout of bench's JSON record; change it when a
// field changes meaning or disappears.
const benchSchema = "hpgraph-bench/1"

// edgesCounted is how bench (like run) counts edges for MTEPS.
const edgesCounted = "m = edges of the loaded graph: each undirected edge counted once (Graph500), arcs of a directed graph; MTEPS = m / median compute time"

// sourceRule says how bfs and sssp pick their source when --src is not given.
const sourceRule = "highest-degree vertex (lowest id on ties); GAP draws random sources, a fixed one keeps runs comparable"

// benchAlgo is an algorithm as bench runs it: an app, or one of its
func newBench() *cobra.Command {
	var (
		lf       loadFlags
		ef       engineFlags
		prm      params
		algos    string
		runs     int
		validate bool
		jsonFile string
		plotFile string
		copyMiB  int
		af       answerFlags
	)
	cmd := &cobra.Command{
		Use:   "bench [flags] GRAPH...",
		Short: "Benchmark algorithms × graphs × backends: median/min/max times, MTEPS, achieved bandwidth, JSON record",
		Long: `Run each algorithm on each graph and backend: one warm-up run (its PREPROCESS,
which builds the HYB matrices, is reported as "first"), then --runs timed runs
whose compute time (the superstep loop; loading, PREPROCESS and the copy of
the results back from a device excluded, as the peers' GPU-event timers do) gives
the median, min and max on the host's clock. On a GPU, "gpu ms" is the median
of the same runs on the device's clock (CUDA events from the first launch to
the end of the last superstep's work, as the GPU peers time themselves; it
leaves out the latency of the first launch and the wait after the last).
MTEPS count each undirected edge once (arcs of a directed graph). GB/s is a lower-bound model of the bytes the run must move
(bytes_model in the JSON) over the median time, and %copy its fraction of the
device's copy bandwidth, measured at start.

GRAPH is a file in any format run reads, or a generator spec that rebuilds
the benchmark graphs without files (GAP's seeds):
  kron:SCALE[:DEGREE]   GAP Kronecker, degree 16 by default (kron:21 is GAP's kron)
  urand:SCALE[:DEGREE]  GAP uniform random (urand:21)
  grid:ROWSxCOLS        4-neighbour grid (grid:1000x1000)
  road:ROWSxCOLS        road-like lattice

sssp runs on the graph with --weights (default random:1-64, seeded as
run --weights random:1-64); the others run unweighted. bfs and sssp start from
--src, by default the highest-degree vertex.

--answer also measures each row's time to answer, what a user who types
hpgraph run ALGO FILE waits for: --runs fresh processes of this binary
(bench's load, engine and algorithm flags passed on), each timed from spawn
to exit, with the parts each reports (load, device set-up, PREPROCESS,
compute, copy back, output, host and device memory peaks) in a second
table and each result's "answer" object. A generator spec is written once
as .hpg in --dir (removed after unless --keep), since an answer starts
from a file; the file is then in the page cache. Algorithms:
` + benchAlgorithmList(),
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			selected, err := findBenchAlgos(algos)
			if err != nil {
				return err
			}
			backends, err := findBenchBackends(ef.backend)
			if err != nil {
				return err
			}
			var benchApps []*apps.App
			for _, a := range selected {
				benchApps = append(benchApps, a.app)
			}
			if err := checkParamFlags(cmd.Flags(), benchApps); err != nil {
				return err
			}
			if runs < 1 {
				return fmt.Errorf("--runs %d: need at least 1", runs)
			}
			if err := checkOutput("--json", jsonFile, args...); err != nil {
				return err
			}
			if err := checkPlot(plotFile, args...); err != nil {
				return err
			}
			if copyMiB < 1 {
				return fmt.Errorf("--copy-mib %d: need at least 1", copyMiB)
			}
			if _, err := lf.options(); err != nil {
				return err
			}
			base, err := ef.options()
			if err != nil {
				return err
			}
			// The in-process rows time a graph that stays loaded: backends
			// may build what pays only over many runs (PREPROCESS's first
			// run shows its cost). --answer's fresh processes do not.
			base.Resident = true
			var sources []graphSource
			for _, a := range args {
				s, err := parseGraphArg(a)
				if err != nil {
					return err
				}
				sources = append(sources, s)
			}
			needWeights := slices.ContainsFunc(selected, func(a benchAlgo) bool { return a.app.Weighted })
			var exe string
			if af.on {
				if exe, err = af.executable(); err == nil {
					_, err = os.Stat(exe)
				}
				if err != nil {
					return fmt.Errorf("--answer: the hpgraph binary to spawn: %w", err)
				}
			}

			rec := newBenchRecord(lf, ef, prm, runs, validate)
			for _, a := range selected {
				rec.Settings.Algorithms = append(rec.Settings.Algorithms, a.name)
			}
			rec.Settings.Backends = backends
			rec.Settings.Answer = af.on
			for _, b := range backends {
				rec.Devices[b] = describeBackend(b, copyMiB<<20)
			}

			// (a device among the backends renumbers the graphs: the
			// result is the host's, in a fraction of its time)
			relabelOn := "cpu"
			for _, b := range backends {
				if b != "cpu" {
					relabelOn = b
					break
				}
			}
			failed := 0
			for _, src := range sources {
				// A time to answer starts from a file: a generator spec is
				// written once as .hpg.
				answerFile, writeTo := src.file, ""
				if af.on && src.file == "" {
					if writeTo, err = af.answerFile(src.arg); err != nil {
						return err
					}
					answerFile = writeTo
					if !af.keep {
						defer os.Remove(writeTo)
					}
				}
				po := base
				po.Backend = relabelOn
				var bg *benchGraph
				if benchMakesRows(src, lf, base, validate) {
					bg, err = makeBenchRows(src, lf, needWeights, base)
				} else {
					bg, err = loadBenchGraph(src, lf, needWeights, writeTo, relabelOn, vertexprog.PartsOf(po))
				}
				if err != nil {
					failed++
					rec.Graphs = append(rec.Graphs, benchGraphJSON{Name: src.arg, Error: describe(err)})
					fmt.Fprintf(os.Stderr, "bench: %s: %s\n", src.arg, describe(err))
					continue
				}
				rec.Graphs = append(rec.Graphs, bg.info)
				for _, a := range selected {
					for _, b := range backends {
						r := benchOne(bg, a, b, base, prm, runs, validate, ef.hf.options())
						if bw := rec.Devices[b].CopyBandwidth; bw > 0 && r.Error == "" && r.Skipped == "" {
							r.CopyFraction = r.GBs * 1e9 / bw
						}
						if r.Error != "" {
							failed++
						}
						if af.on && r.Error == "" && r.Skipped == "" {
							weights := "none"
							if a.app.Weighted {
								weights = lf.Weights
							}
							r.Answer = measureAnswer(exe, answerArgs(cmd, answerFile, a, b, weights), answerFile, runs)
							if r.Answer.Error != "" {
								failed++
							}
						}
						rec.Results = append(rec.Results, r)
						fmt.Fprintln(os.Stderr, "bench:", progressLine(r))
					}
				}
			}
			printBench(cmd.OutOrStdout(), rec)
			printAnswers(cmd.OutOrStdout(), rec)
			if jsonFile != "" {
				if err := writeJSON(jsonFile, rec); err != nil {
					return err
				}
			}
			if plotFile != "" {
				if err := writeBenchPlot(plotFile, rec); err != nil {
					return err
				}
			}
			if failed > 0 {
				return exitError{1, fmt.Sprintf("bench: %d FAILED (see the table)", failed)}
			}
			return nil
		},
	}
	lf.register(cmd.Flags())
	ef.register(cmd)
	prm.register(cmd.Flags())
	f := cmd.Flags()
	// bench takes lists of backends and sssp's weights; the shared flags'
	// defaults and help say otherwise for run.
	bf := f.Lookup("backend")
	// (Not vertexprog.Backends() here: that would start the GPU for every command.)
	bf.Usage = "comma-separated backends (cpu, cuda, auto: what run picks, whose --answer rows race the CPU against the device), or all: every backend that can run here (cpu, and cuda in a GPU build on a machine with a GPU)"
	bf.DefValue = "all"
	ef.backend = "all"
	wf := f.Lookup("weights")
	wf.Usage = "sssp's edge weights: random:LO-HI (uniform integers, seeded by --seed), keep (from the file; unit when none) or none"
	wf.DefValue = "random:1-64"
	lf.Weights = "random:1-64"
	f.StringVar(&algos, "algo", strings.Join(benchAlgoNames(), ","), "comma-separated algorithms")
	f.IntVar(&runs, "runs", 5, "timed runs after one warm-up; the median, min and max are reported")
	f.BoolVar(&validate, "validate", false, "check each result once against the gonum reference (outside the timed runs); a mismatch fails")
	f.StringVar(&jsonFile, "json", "", "write the benchmark record ("+benchSchema+") as JSON to this file")
	f.StringVar(&plotFile, "plot", "", plotUsage+": median time per algorithm, graph and backend, and achieved GB/s against the copy bandwidth (log scales)")
	f.IntVar(&copyMiB, "copy-mib", 256, "MiB copied to measure the host's copy bandwidth (the cpu roofline)")
	af.register(f)
	return cmd
}

func benchAlgorithmList() string {
	s := ""
	for _, a := range benchAlgorithms() {
		s += fmt.Sprintf("  %-14s %s\n", a.name, a.about)
	}
	return s
}

// benchOne runs algorithm a on backend b: a warm-up, then runs timed runs,
// each on a fresh vertexprog.Graph so that the warm-up's PREPROCESS builds
// the matrices (cold) and the timed runs reuse them.
func benchOne(bg *benchGraph, a benchAlgo, backend string, base vertexprog.Options, prm params, runs int, validate bool, hopt hyb.Options) benchResult {
	r := benchResult{Graph: bg.info.Name, Algorithm: a.name, Backend: backend, Weights: "none", Vertices: bg.info.Vertices, Edges: bg.info.Edges}
	if a.app.Takes("precision") && prm.Precision != registry.DefaultParams().Precision {
		r.Algorithm += "/" + prm.Precision
	}
	if a.app.Weighted {
		r.Weights = bg.info.Weights
	}
	if bg.rows != nil {
		if r.Skipped = heldRowsSkip(a); r.Skipped != "" {
			return r
		}
	}
	opt := base
	opt.Backend = backend
	g, d, err := bg.graph(a.app.Weighted, opt.Comm)
	if err != nil {
		r.Error = describe(err)
		return r
	}
	if a.app.Source {
		// (found in the shape, every row's degree, where a process
		// holds some rows only)
		if v, err := resolveSource(d, prm.src); err == nil {
			id := d.OriginalID(v)
			r.Source = &id
			prm.srcSet, prm.srcVertex = true, v
		}
	}
	fail := func(err error) benchResult {
		if errors.Is(err, apps.ErrInvalidInput) {
			r.Skipped = describe(err)
		} else {
			r.Error = describe(err)
		}
		return r
	}
	if !a.app.Device() && backend != "cpu" && backend != "auto" {
		r.Skipped = fmt.Sprintf("%s has no device code: it runs on the cpu backend only", a.name)
		return r
	}
	// (a kron27 warm-up's PREPROCESS takes seconds: say so in a pipe too)
	pr := newProgress(fmt.Sprintf("bench %s on %s, %s", r.Algorithm, r.Graph, backend))
	defer pr.done()
	pr.tick("warm-up and PREPROCESS")
	runtime.GC()
	first, err := a.run(g, prm, opt)
	if err != nil {
		return fail(err)
	}
	r.PreprocessFirstMS, r.TransferFirstMS = ms(first.run.Preprocess), ms(first.run.Transfer)
	last := first
	var perStep []float64
	for i := range runs {
		pr.tick(fmt.Sprintf("run %d of %d", i+1, runs))
		runtime.GC()
		if last, err = a.run(g, prm, opt); err != nil {
			return fail(err)
		}
		s := last.run
		var steps time.Duration
		for _, t := range s.StepTimes {
			steps += t
		}
		r.ComputeMS = append(r.ComputeMS, ms(s.Compute))
		r.SuperstepsMS = append(r.SuperstepsMS, ms(steps))
		r.Iterations = append(r.Iterations, s.Iterations)
		r.PreprocessMS = append(r.PreprocessMS, ms(s.Preprocess))
		r.TransferMS = append(r.TransferMS, ms(s.Transfer))
		r.FinishMS = append(r.FinishMS, ms(s.Finish))
		if s.Device > 0 {
			r.DeviceMS = append(r.DeviceMS, ms(s.Device))
		}
		if s.Iterations > 0 {
			perStep = append(perStep, ms(s.Compute)/float64(s.Iterations))
		}
		addParts(&r.Parts, s.Parts, runs)
		r.WholeBytes = max(r.WholeBytes, s.Whole)
	}
	r.Runs = runs
	r.Summary = last.summary
	r.MedianMS, r.MinMS, r.MaxMS = measure.Stats(r.ComputeMS)
	r.DeviceMedianMS, _, _ = measure.Stats(r.DeviceMS)
	r.PreprocessMedianMS, _, _ = measure.Stats(r.PreprocessMS)
	r.TransferMedianMS, _, _ = measure.Stats(r.TransferMS)
	r.MSPerStep, _, _ = measure.Stats(perStep)
	if r.MedianMS > 0 {
		r.MTEPS = float64(r.Edges) / (r.MedianMS * 1e3)
	}
	if bg.rows != nil {
		r.NNZ = bg.info.NNZ // (undirected: the pull matrix is the adjacency)
	} else if r.NNZ, err = traversedNNZ(g, a.app.Edges(), hopt); err != nil {
		return fail(err)
	}
	iters := slices.Clone(r.Iterations)
	slices.Sort(iters)
	r.BytesModel = "no model"
	if a.app.Traffic != nil {
		t := a.app.Traffic(apps.TrafficIn{Graph: g, N: int64(d.N), NNZ: r.NNZ, Weighted: g.Weighted(), Iterations: iters[len(iters)/2]})
		r.Bytes, r.BytesModel, r.DAGArcs = t.Bytes, t.Model, t.OrientedArcs
	}
	if r.MedianMS > 0 {
		r.GBs = float64(r.Bytes) / (r.MedianMS * 1e6)
	}
	if validate {
		if err := last.check(); err != nil {
			r.Error = "validation FAILED against the gonum reference: " + err.Error()
			return r
		}
		r.Validated = true
	}
	return r
}
