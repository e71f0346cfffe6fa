package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/registry"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/internal/measure"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// engineFlags are the flags that choose how programs run.
type engineFlags struct {
	backend, direction, rule string
	hf                       hybFlags
	cf                       cudaFlags
	pf                       partFlags
	verbose                  bool
}

func (e *engineFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&e.backend, "backend", "auto", "where to run: auto (GPU if present, else CPU), cpu or cuda")
	f.StringVar(&e.direction, "direction", "auto", "superstep direction: auto (cost model), push or pull")
	f.StringVar(&e.rule, "rule", "beamer", "direction cost model: beamer (GAP, alpha 15 beta 18; on the CPU alpha 3 for programs whose pull reads every edge, as sssp's, 1 on up to four cores) or graphblast (pull above nnz/10)")
	f.BoolVarP(&e.verbose, "verbose", "v", false, "log every superstep (direction, frontier) to stderr")
	e.hf.register(cmd)
	e.cf.register(f)
	e.pf.register(f)
}

// options are the flags as vertexprog.Options; the GPU backend's flags
// (--cuda-*) are set on the backend for the runs started afterwards.
func (e *engineFlags) options() (vertexprog.Options, error) {
	dir, err := vertexprog.ParseDirection(e.direction)
	if err != nil {
		return vertexprog.Options{}, err
	}
	if err := e.cf.apply(); err != nil {
		return vertexprog.Options{}, err
	}
	o := vertexprog.Options{Backend: e.backend, Direction: dir, HYB: e.hf.options()}
	if err := e.pf.apply(&o); err != nil {
		return o, err
	}
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
	p.registerAlgo(fs)
}

// registerAlgo registers the algorithm parameters but --src (run takes a
// list of sources): every app's (registry.AllParams).
func (p *params) registerAlgo(fs *pflag.FlagSet) { registerParams(fs, &p.Params) }

func backendNames() []string { return vertexprog.Backends() }

const runLong = `Run an algorithm on a graph file and print the answer, its times and the
time to answer: from the process's start to the result, with what it is
made of (loading, opening the device — beside loading and PREPROCESS —,
PREPROCESS, compute, the copy of the results back, the output) and the
host's and device's memory peaks.

--runs 1 (the default) runs once: that run is the answer, its PREPROCESS
(building the HYB matrices) included. --runs N > 1 runs one untimed
warm-up, which pays for PREPROCESS, then N timed runs, and reports their
median, min and max.

bfs and sssp take several sources: --src 1,17,42, --src @FILE (one id per
line, # comments) or --src gap:N (N sources picked as GAP's SourcePicker
does: std::mt19937_64 seeded 27491095, uniform over the file's numbering,
skipping vertices without out-edges; the same sources whatever --relabel
says). The graph is then loaded and PREPROCESSed once and each source runs
as its own query: one line per source and a summary; --out must contain
{src}, replaced by each source's id.

Algorithms:
`

// runFlags are run's flags.
type runFlags struct {
	lf                          loadFlags
	ef                          engineFlags
	prm                         params
	srcText                     string
	runs                        int
	validate                    bool
	read                        string // --read: auto, rows or whole
	outFile, jsonFile, plotFile string
}

func newRun() *cobra.Command {
	var rf runFlags
	cmd := &cobra.Command{
		Use:   "run ALGO GRAPH",
		Short: "Run an algorithm on a graph file (" + strings.Join(registry.Names(), ", ") + ") and report the time to answer",
		Long:  runLong + algorithmList(),
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			j := &runJob{runFlags: &rf, cmd: cmd, graph: args[1]}
			j.at.start = time.Since(processStart)
			return j.do(args[0])
		},
	}
	rf.lf.register(cmd.Flags())
	rf.ef.register(cmd)
	rf.prm.registerAlgo(cmd.Flags())
	f := cmd.Flags()
	f.StringVar(&rf.srcText, "src", "", "source vertex of bfs and sssp, in the file's ids (1-based for Matrix Market); default: the highest-degree vertex. "+
		"Several sources, one query each after one load and PREPROCESS: a comma list (1,17,42), @FILE (one id per line, # comments) or gap:N (GAP's SourcePicker)")
	f.IntVar(&rf.runs, "runs", 1, "runs per query: 1 runs once (the answer, no warm-up); N > 1 runs one untimed warm-up, then N timed runs (median, min, max)")
	f.StringVar(&rf.read, "read", "auto", "in a run over several processes (--world, mpirun), what of the graph file each reads: rows (only its parts' rows of an undirected .hpg where the app runs so: "+andList(rowsApps)+"), whole, or auto (rows on the CPU backend, whole where a device may run it: rows on a device were not yet checked on a GPU)")
	f.BoolVar(&rf.validate, "validate", false, "compare every result with the gonum reference (timed apart, not in the time to answer); fail on any mismatch")
	f.StringVar(&rf.outFile, "out", "", "write per-vertex results (with the file's ids) to this file (-: to stdout, the report then going to stderr); with several sources the path must contain {src}, replaced by each source's id")
	f.StringVar(&rf.prm.outFormat, "out-format", outHPGraph, "--out's lines: hpgraph, or ldbc (LDBC Graphalytics' \"id value\": "+ldbcOutputs()+")")
	f.StringVar(&rf.jsonFile, "json", "", "write the run record (times, iterations, MTEPS, time to answer and its parts, memory peaks, queries, host, version) as JSON")
	f.StringVar(&rf.plotFile, "plot", "", plotUsage+": each superstep's frontier (log scale), direction and time, of the last run (with -v or not)")
	return cmd
}

// runJob is one `hpgraph run`: the pipeline's stages (load, clean,
// relabel: pipeline.Read and Loaded.Relabel; PREPROCESS, run and answer:
// runApp) with what run adds: the device opened beside the load, a batch
// of queries, runs, validation, output and the time to answer.
type runJob struct {
	*runFlags
	cmd   *cobra.Command
	out   io.Writer // stdout, once the options are applied (check)
	graph string    // the GRAPH argument

	alg     *apps.App
	opt     vertexprog.Options
	spec    sourceSpec
	batch   bool // several sources, a query each
	plotLog *stepLog
	setup   *deviceSetup
	at      answerTimes
	d       *datasets.Graph
	rec     *record
	queries []params
	// What the queries gave: the last outcome, each query's wall time
	// (a batch) and whether --backend auto raced the CPU and the device.
	last     *outcome
	perQuery []float64
	raced    bool
}

func (j *runJob) do(algo string) error {
	if err := j.check(algo); err != nil {
		return err
	}
	// Open the device now, so that it overlaps the load, unless a race
	// will open it where the CPU has not answered first
	// (vertexprog.OpenLazily: a file's bytes are at least its arcs'
	// 4-byte ids, so they bound the arcs from above).
	lazy := !j.batch && j.runs == 1 && j.opt.Backend == "auto" && vertexprog.OpenLazily(j.alg.Program, j.opt, fileBytes(j.graph)/4)
	j.setup = startDeviceSetup(j.ef.backend, lazy)
	j.at.setupStarted = j.setup.started
	g, err := j.load()
	if err != nil {
		return err
	}
	if err := j.runQueries(g); err != nil {
		return err
	}
	return j.report()
}

// check checks the flags before anything is loaded.
func (j *runJob) check(algo string) error {
	alg, err := findAlgorithm(algo)
	if err != nil {
		return err
	}
	j.alg = alg
	if err := prepareLDBC(j.cmd.Flags(), j.graph, alg, &j.lf, &j.prm, &j.srcText); err != nil {
		return err
	}
	if err := checkParamFlags(j.cmd.Flags(), []*apps.App{alg}); err != nil {
		return err
	}
	if j.runs < 1 {
		return fmt.Errorf("--runs %d: need at least 1", j.runs)
	}
	if !slices.Contains([]string{"auto", "rows", "whole"}, j.read) {
		return fmt.Errorf("--read %q: want auto, rows or whole", j.read)
	}
	if j.opt, err = j.ef.options(); err != nil {
		return err
	}
	// (after the options: a process of a run over several other than
	// rank 0 has its stdout closed by them, partFlags.apply)
	j.out = j.cmd.OutOrStdout()
	if j.outFile == "-" { // (the results on stdout, alone)
		j.out = j.cmd.ErrOrStderr()
	}
	if j.spec, err = parseSourceSpec(j.srcText); err != nil {
		return err
	}
	j.batch = j.spec.multi()
	if j.batch && !alg.Source {
		return fmt.Errorf("--src %s: %s takes no source; only %s run one query per source", j.srcText, alg.Name, andList(appNames(func(a *apps.App) bool { return a.Source })))
	}
	if j.batch && j.outFile == "-" {
		return fmt.Errorf("--out - writes one query's results to stdout; with several sources give a path containing {src}, which each query replaces by its source's id (e.g. --out depth-{src}.txt)")
	}
	if j.batch && j.outFile != "" && !strings.Contains(j.outFile, "{src}") {
		return fmt.Errorf("--out %q with several sources: the path must contain {src}, which each query replaces by its source's id (e.g. --out depth-{src}.txt)", j.outFile)
	}
	if j.outFile != "-" {
		if err := checkOutput("--out", j.outFile, j.graph); err != nil {
			return err
		}
	}
	if err := checkOutput("--json", j.jsonFile, j.graph); err != nil {
		return err
	}
	if err := checkPlot(j.plotFile, j.graph); err != nil {
		return err
	}
	j.plotLog, j.opt.Log = newStepLog(j.plotFile, j.opt.Log)
	j.prm.src = -1 // the highest-degree vertex
	if !j.batch && len(j.spec.ids) == 1 {
		j.prm.src = j.spec.ids[0]
	}
	return nil
}

// load reads, cleans and renumbers the graph (or, in a run over several
// processes, reads this process's rows: readRows), and makes the queries.
func (j *runJob) load() (*vertexprog.Graph, error) {
	var g *vertexprog.Graph
	var err error
	if j.readsRows() {
		g, err = j.readRows()
	} else {
		g, err = j.loadWhole()
	}
	if err != nil {
		return nil, err
	}
	// Several queries or runs on one graph: a device keeps the
	// matrices and each run's buffers for the next.
	j.opt.Resident = j.batch || j.runs > 1
	if _, _, some := g.RowsHeld(); some && j.alg.Source && !j.batch {
		// (the default source, the highest-degree vertex, from every
		// row's degree: the app would find it among this process's)
		if j.prm.srcVertex, err = resolveSource(j.d, j.prm.src); err != nil {
			return nil, err
		}
		j.prm.srcSet = true
	}
	j.queries = []params{j.prm}
	if j.batch {
		sources, err := j.spec.resolve(j.d)
		if err != nil {
			return nil, err
		}
		j.queries = j.queries[:0]
		shared := &sharedBatch{summaryOnly: j.outFile == "" && !j.validate}
		// (the arrays kept from query to query page-locked for a
		// device's copies back: DMA, not staged)
		shared.scratch.Backend = j.ef.backend
		for _, v := range sources {
			q := j.prm
			q.batch = shared
			q.srcSet, q.srcVertex, q.src = true, v, j.d.OriginalID(v)
			j.queries = append(j.queries, q)
		}
	}
	var edges int64
	if _, _, some := g.RowsHeld(); some {
		edges = g.Edges() // (counted as the rows were read)
	} else {
		edges = edgeCount(j.d)
	}
	j.rec = newRecord(j.d, edges, g.Weighted(), j.graph, j.alg.Name, j.prm, j.at.load)
	j.rec.ReadMS, j.rec.RelabelMS, j.rec.ReadBytes = ms(j.at.read), ms(j.at.relabel), j.at.readBytes
	if j.spec.text != "" {
		j.rec.Params["src_spec"] = j.spec.text
	}
	return g, nil
}

// loadWhole reads, cleans and renumbers the whole graph.
func (j *runJob) loadWhole() (*vertexprog.Graph, error) {
	ld, err := j.lf.read(j.graph)
	if err != nil {
		return nil, err
	}
	// --relabel auto renumbers for one answer only where it gains
	// more than it costs (answerRelabel), which depends on the
	// backend. A device still opening is taken to open (one that
	// cannot fails at once: no driver, no device), so nothing waits
	// for it here and the run's host PREPROCESS overlaps it too.
	worth := false
	if j.alg.RelabelPays && j.lf.Relabel == "auto" {
		worth = j.setup.finished() && answerRelabel(j.alg, j.ef.backend)
	}
	ld.Parts = vertexprog.PartsOf(j.opt)
	ld.Relabel(j.lf.order(ld.Data, worth), j.ef.backend) // (on the GPU where the run may go there)
	j.d = ld.Data
	j.at.relabelled = ld.Order == datasets.RelabelDegree
	j.at.load, j.at.read, j.at.relabel = ld.LoadTime(), ld.ReadTime, ld.RelabelTime
	return vertexprog.NewGraph(j.d), nil
}

// count adds a run's parts to the time to answer.
func (j *runJob) count(s runStats) {
	j.at.setupWait += s.BackendWait
	j.at.preprocess += s.Preprocess
	j.at.compute += s.Compute
	j.at.finish += s.Finish
	var exchange time.Duration
	for _, p := range s.Parts {
		exchange = max(exchange, p.Exchange)
	}
	j.at.exchange += exchange
}

// runQueries runs the queries on g: --runs each (after a warm-up when
// more than one), validated, a batch's written and printed as they come.
func (j *runJob) runQueries(g *vertexprog.Graph) error {
	alg, rec, out := j.alg, j.rec, j.out
	// (PREPROCESS and a run of kron27 take seconds: say so in a
	// pipe too, until the results print; a batch's lines are its
	// progress)
	var pr *progress
	if !j.batch {
		pr = newProgress(fmt.Sprintf("%s on %s", alg.Name, j.graph))
		pr.tick("PREPROCESS and supersteps")
	}
	defer func() {
		if pr != nil {
			pr.done()
		}
	}()
	if j.runs > 1 {
		// One untimed warm-up run pays for PREPROCESS's cached matrices.
		first, err := runApp(alg, g, j.queries[0], j.opt)
		if err != nil {
			return err
		}
		j.count(first.run)
		rec.Warmup = 1
		rec.PreprocessMS = ms(first.run.Preprocess)
		j.at.runsNote = fmt.Sprintf(" (1 warm-up + %d runs)", j.runs)
	}
	if j.batch {
		fmt.Fprintf(out, "%s on %s (%d vertices, %d edges, %s), %d sources: %s\n",
			alg.Name, j.graph, j.d.N, rec.edges, edgeCountRule(j.d), len(j.queries), j.spec.from)
		j.at.runsNote = fmt.Sprintf(" (%d queries)", len(j.queries))
		if j.runs > 1 {
			j.at.runsNote = fmt.Sprintf(" (1 warm-up + %d queries of %d runs)", len(j.queries), j.runs)
		}
	}
	// One answer: --backend auto may race the CPU against the
	// device (answerApp).
	run := runApp
	if !j.batch && j.runs == 1 {
		run = func(alg *apps.App, g *vertexprog.Graph, q params, opt vertexprog.Options) (o *outcome, err error) {
			o, rec.BackendWhy, j.raced, err = answerApp(alg, g, q, opt)
			return o, err
		}
	}
	for qi, q := range j.queries {
		var walls []float64
		var o *outcome
		var err error
		for range j.runs {
			t0 := time.Now()
			if o, err = run(alg, g, q, j.opt); err != nil {
				if j.batch {
					return fmt.Errorf("src %d: %w", q.src, err)
				}
				return err
			}
			walls = append(walls, ms(time.Since(t0)))
			j.count(o.run)
			rec.addRun(o.run)
		}
		if qi == 0 && j.runs == 1 {
			rec.PreprocessMS = ms(o.run.Preprocess)
		}
		if j.validate {
			t0 := time.Now()
			if err := o.check(); err != nil {
				if j.batch {
					return fmt.Errorf("src %d: validation FAILED against the gonum reference: %w", q.src, err)
				}
				return fmt.Errorf("validation FAILED against the gonum reference: %w", err)
			}
			j.at.validate += time.Since(t0)
		}
		if j.batch {
			t0 := time.Now()
			if j.outFile != "" {
				if err := writeText(outPath(j.outFile, q.src), false, func(w writer) error { return o.write(w) }); err != nil {
					return err
				}
			}
			wall, _, _ := measure.Stats(walls)
			fmt.Fprintf(out, "%s; %.3f ms (compute %.3f, %d supersteps)\n",
				strings.Replace(o.summary, "source ", "src ", 1), wall, ms(o.run.Compute), o.run.Iterations)
			rec.Queries = append(rec.Queries, queryJSON{Src: q.src, MS: wall, ComputeMS: ms(o.run.Compute), Iterations: o.run.Iterations})
			j.perQuery = append(j.perQuery, wall)
			j.at.output += time.Since(t0)
		}
		j.last = o
	}
	return nil
}

// report prints the answer and the time to answer, and writes --out,
// --plot and --json.
func (j *runJob) report() error {
	alg, rec, out, last, at := j.alg, j.rec, j.out, j.last, &j.at
	if j.raced && !j.setup.finished() {
		at.setupOpen = true // (the CPU answered first: no waiting for it)
	} else {
		at.setupWait += j.setup.join() // (the runs waited for it already)
		at.setup = j.setup.took
		if j.setup.skipped != "" { // (no device opened: none was set up)
			at.setupStarted, at.setupSkipped = false, j.setup.skipped
		}
		if j.setup.lazy && last != nil && last.run.Backend != "cpu" {
			at.setupSkipped = "--backend auto: the race opened the device once the CPU had not answered first"
		}
	}
	rec.finish()
	t0 := time.Now()
	if j.batch {
		med, lo, hi := measure.Stats(j.perQuery)
		var sum float64
		for _, x := range j.perQuery {
			sum += x
		}
		fmt.Fprintf(out, "%d queries on backend %s in %.1f ms: per query median %.3f ms, min %.3f, max %.3f; PREPROCESS %.2f ms (once, in the first query)\n",
			len(j.queries), last.run.Backend, sum, med, lo, hi, rec.PreprocessMS)
	} else {
		fmt.Fprintf(out, "%s on %s (%d vertices, %d edges, %s), backend %s%s\n",
			alg.Name, j.graph, j.d.N, rec.edges, edgeCountRule(j.d), last.run.Backend, parenthesized(rec.BackendWhy))
		fmt.Fprintf(out, "result: %s\n", last.summary)
		first := "first run"
		if j.runs == 1 {
			first = "in the run"
		}
		fmt.Fprintf(out, "load %.1f ms, preprocess %.2f ms (%s), %d supersteps", rec.LoadMS, rec.PreprocessMS, first, last.run.Iterations)
		if last.run.Finish > 0 {
			fmt.Fprintf(out, ", results copied back in %.2f ms (not in the times below)", ms(last.run.Finish))
		}
		fmt.Fprintln(out)
		if j.runs == 1 {
			fmt.Fprintf(out, "time: %.3f ms (one run, no warm-up); %.1f MTEPS\n", rec.MedianMS, rec.MTEPS)
		} else {
			fmt.Fprintf(out, "time over %d runs: median %.3f ms, min %.3f, max %.3f; %.1f MTEPS (median)\n",
				j.runs, rec.MedianMS, rec.MinMS, rec.MaxMS, rec.MTEPS)
		}
		if len(rec.Parts) > 0 {
			fmt.Fprintf(out, "%d parts in this process%s, per part and run:", len(rec.Parts), wholeNote(rec.WholeBytes, rec.Backend))
			printParts(out, rec.Parts)
		}
		if len(rec.DeviceMS) > 0 {
			med, lo, hi := measure.Stats(rec.DeviceMS)
			fmt.Fprintf(out, "on the device's clock (GPU events, host wait excluded): median %.3f ms, min %.3f, max %.3f\n", med, lo, hi)
		}
		if j.outFile != "" {
			if err := writeResults(j.cmd.OutOrStdout(), j.outFile, func(w writer) error { return last.write(w) }); err != nil {
				return err
			}
		}
	}
	at.output += time.Since(t0)
	// The answer is out; validation (timed apart) is not part of it.
	at.answer = time.Since(processStart) - at.validate
	at.hostPeak, at.file = measure.HostPeakBytes(), fileBytes(j.graph)
	if peak, _, ok := vertexprog.DeviceMemory(last.run.Backend); ok {
		at.devicePeak = peak
	}
	if j.validate {
		rec.Validated = true
		what := "validation: PASS"
		if j.batch {
			what = fmt.Sprintf("validation: all %d queries PASS", len(j.queries))
		}
		fmt.Fprintf(out, "%s against the gonum reference (%v, not in the time to answer)\n", what, at.validate.Round(time.Millisecond))
	}
	fmt.Fprintln(out, at.line())
	rec.setAnswer(*at)
	if j.plotFile != "" {
		if err := writeRunPlot(j.plotFile, alg.Name, j.graph, last, len(j.queries), j.runs, j.plotLog); err != nil {
			return err
		}
	}
	if j.jsonFile != "" {
		return writeJSON(j.jsonFile, rec)
	}
	return nil
}

// parenthesized is " (s)", or "" for an empty s.
func parenthesized(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

func algorithmList() string {
	s := ""
	for _, a := range registry.Apps() {
		s += fmt.Sprintf("  %-14s %s\n", a.Name, a.About)
	}
	return s
}

func ms(d time.Duration) float64 { return measure.MS(d) }

func writeJSON(path string, v any) error {
	return writeText(path, false, func(w writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}
