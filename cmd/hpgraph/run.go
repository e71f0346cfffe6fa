package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/registry"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/internal/par"
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
	f.StringVar(&e.rule, "rule", "beamer", "direction cost model: beamer (GAP, alpha 15 beta 18) or graphblast (pull above nnz/10)")
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
does: std::mt19937 seeded 27491095, uniform over the file's numbering,
skipping vertices without out-edges; the same sources whatever --relabel
says). The graph is then loaded and PREPROCESSed once and each source runs
as its own query: one line per source and a summary; --out must contain
{src}, replaced by each source's id.

Algorithms:
`

// queryJSON is one query of a batch (--src with several sources).
type queryJSON struct {
	Src        int64   `json:"src"`
	MS         float64 `json:"ms"`         // the query's wall time (median over --runs)
	ComputeMS  float64 `json:"compute_ms"` // its compute time (the last run's)
	Iterations int     `json:"iterations"`
}

// answerTimes are the parts of the time to answer.
type answerTimes struct {
	answer, start, load, read, relabel, setup, setupWait, preprocess, compute, finish, output, validate time.Duration
	setupStarted, relabelled                                                                            bool
	setupOpen                                                                                           bool // (still opening when a race's CPU answered)
	setupSkipped                                                                                        string
	hostPeak, file, devicePeak                                                                          int64
	runsNote                                                                                            string
}

func newRun() *cobra.Command {
	var (
		lf       loadFlags
		ef       engineFlags
		prm      params
		srcText  string
		runs     int
		validate bool
		outFile  string
		jsonFile string
		plotFile string
	)
	cmd := &cobra.Command{
		Use:   "run ALGO GRAPH",
		Short: "Run an algorithm on a graph file (" + strings.Join(registry.Names(), ", ") + ") and report the time to answer",
		Long:  runLong + algorithmList(),
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			var at answerTimes
			at.start = time.Since(processStart)
			// Open the device first thing, so that it overlaps the load.
			setup := startDeviceSetup(ef.backend)
			at.setupStarted = setup.started
			alg, err := findAlgorithm(args[0])
			if err != nil {
				return err
			}
			if err := prepareLDBC(cmd.Flags(), args[1], alg, &lf, &prm, &srcText); err != nil {
				return err
			}
			if err := checkParamFlags(cmd.Flags(), []*apps.App{alg}); err != nil {
				return err
			}
			if runs < 1 {
				return fmt.Errorf("--runs %d: need at least 1", runs)
			}
			opt, err := ef.options()
			if err != nil {
				return err
			}
			spec, err := parseSourceSpec(srcText)
			if err != nil {
				return err
			}
			batch := spec.multi()
			if batch && !alg.Source {
				return fmt.Errorf("--src %s: %s takes no source; only %s run one query per source", srcText, alg.Name, andList(appNames(func(a *apps.App) bool { return a.Source })))
			}
			if batch && outFile != "" && !strings.Contains(outFile, "{src}") {
				return fmt.Errorf("--out %q with several sources: the path must contain {src}, which each query replaces by its source's id (e.g. --out depth-{src}.txt)", outFile)
			}
			if err := checkOutput("--out", outFile, args[1]); err != nil {
				return err
			}
			if err := checkOutput("--json", jsonFile, args[1]); err != nil {
				return err
			}
			if err := checkPlot(plotFile, args[1]); err != nil {
				return err
			}
			plotLog, logf := newStepLog(plotFile, opt.Log)
			opt.Log = logf
			prm.src = -1 // the highest-degree vertex
			if !batch && len(spec.ids) == 1 {
				prm.src = spec.ids[0]
			}
			d, read, err := lf.read(args[1])
			if err != nil {
				return err
			}
			// --relabel auto renumbers for one answer only where it gains
			// more than it costs (answerRelabel), which depends on the
			// backend. A device still opening is taken to open (one that
			// cannot fails at once: no driver, no device), so nothing waits
			// for it here and the run's host PREPROCESS overlaps it too.
			worth := false
			if alg.RelabelPays && lf.relabel == "auto" {
				worth = setup.finished() && answerRelabel(alg, ef.backend)
			}
			order := lf.order(d, worth)
			t1 := time.Now()
			at.relabelled = order == datasets.RelabelDegree
			d = vertexprog.Relabel(d, order, ef.backend) // (on the GPU where the run may go there)
			relabel := time.Since(t1)
			loadTime := read + relabel
			at.load, at.read, at.relabel = loadTime, read, relabel
			g := vertexprog.NewGraph(d)
			// Several queries or runs on one graph: a device keeps the
			// matrices and each run's buffers for the next.
			opt.Resident = batch || runs > 1
			queries := []params{prm}
			if batch {
				sources, err := spec.resolve(d)
				if err != nil {
					return err
				}
				queries = queries[:0]
				shared := &sharedBatch{summaryOnly: outFile == "" && !validate}
				// (the arrays kept from query to query page-locked for a
				// device's copies back: DMA, not staged)
				shared.scratch.Backend = ef.backend
				for _, v := range sources {
					q := prm
					q.batch = shared
					q.srcSet, q.srcVertex, q.src = true, v, d.OriginalID(v)
					queries = append(queries, q)
				}
			}
			rec := newRecord(d, args[1], alg.Name, prm, loadTime)
			rec.ReadMS, rec.RelabelMS = ms(read), ms(relabel)
			if spec.text != "" {
				rec.Params["src_spec"] = spec.text
			}
			count := func(s runStats) {
				at.setupWait += s.BackendWait
				at.preprocess += s.Preprocess
				at.compute += s.Compute
				at.finish += s.Finish
			}
			// (PREPROCESS and a run of kron27 take seconds: say so in a
			// pipe too, until the results print; a batch's lines are its
			// progress)
			var pr *progress
			if !batch {
				pr = newProgress(fmt.Sprintf("%s on %s", alg.Name, args[1]))
				pr.tick("PREPROCESS and supersteps")
			}
			stopProgress := func() {
				if pr != nil {
					pr.done()
					pr = nil
				}
			}
			defer stopProgress()
			if runs > 1 {
				// One untimed warm-up run pays for PREPROCESS's cached matrices.
				first, err := runApp(alg, g, queries[0], opt)
				if err != nil {
					return err
				}
				count(first.run)
				rec.Warmup = 1
				rec.PreprocessMS = ms(first.run.Preprocess)
				at.runsNote = fmt.Sprintf(" (1 warm-up + %d runs)", runs)
			}
			out := cmd.OutOrStdout()
			if batch {
				fmt.Fprintf(out, "%s on %s (%d vertices, %d edges, %s), %d sources: %s\n",
					alg.Name, args[1], d.N, rec.edges, edgeCountRule(d), len(queries), spec.from)
				at.runsNote = fmt.Sprintf(" (%d queries)", len(queries))
				if runs > 1 {
					at.runsNote = fmt.Sprintf(" (1 warm-up + %d queries of %d runs)", len(queries), runs)
				}
			}
			var last *outcome
			var perQuery []float64
			// One answer: --backend auto may race the CPU against the
			// device (answerApp).
			run, raced := runApp, false
			if !batch && runs == 1 {
				run = func(alg *apps.App, g *vertexprog.Graph, q params, opt vertexprog.Options) (o *outcome, err error) {
					o, rec.BackendWhy, raced, err = answerApp(alg, g, q, opt)
					return o, err
				}
			}
			for qi, q := range queries {
				var walls []float64
				var o *outcome
				for range runs {
					t0 := time.Now()
					if o, err = run(alg, g, q, opt); err != nil {
						if batch {
							return fmt.Errorf("src %d: %w", q.src, err)
						}
						return err
					}
					walls = append(walls, ms(time.Since(t0)))
					count(o.run)
					rec.addRun(o.run)
				}
				if qi == 0 && runs == 1 {
					rec.PreprocessMS = ms(o.run.Preprocess)
				}
				if validate {
					t0 := time.Now()
					if err := o.check(); err != nil {
						if batch {
							return fmt.Errorf("src %d: validation FAILED against the gonum reference: %w", q.src, err)
						}
						return fmt.Errorf("validation FAILED against the gonum reference: %w", err)
					}
					at.validate += time.Since(t0)
				}
				if batch {
					t0 := time.Now()
					if outFile != "" {
						if err := writeText(outPath(outFile, q.src), false, func(w writer) error { return o.write(w) }); err != nil {
							return err
						}
					}
					wall, _, _ := stats(walls)
					fmt.Fprintf(out, "%s; %.3f ms (compute %.3f, %d supersteps)\n",
						strings.Replace(o.summary, "source ", "src ", 1), wall, ms(o.run.Compute), o.run.Iterations)
					rec.Queries = append(rec.Queries, queryJSON{Src: q.src, MS: wall, ComputeMS: ms(o.run.Compute), Iterations: o.run.Iterations})
					perQuery = append(perQuery, wall)
					at.output += time.Since(t0)
				}
				last = o
			}
			stopProgress()
			if raced && !setup.finished() {
				at.setupOpen = true // (the CPU answered first: no waiting for it)
			} else {
				at.setupWait += setup.join() // (the runs waited for it already)
				at.setup = setup.took
				if setup.skipped != "" { // (no device opened: none was set up)
					at.setupStarted, at.setupSkipped = false, setup.skipped
				}
			}
			rec.finish()
			t0 := time.Now()
			if batch {
				med, lo, hi := stats(perQuery)
				var sum float64
				for _, x := range perQuery {
					sum += x
				}
				fmt.Fprintf(out, "%d queries on backend %s in %.1f ms: per query median %.3f ms, min %.3f, max %.3f; PREPROCESS %.2f ms (once, in the first query)\n",
					len(queries), last.run.Backend, sum, med, lo, hi, rec.PreprocessMS)
			} else {
				fmt.Fprintf(out, "%s on %s (%d vertices, %d edges, %s), backend %s%s\n",
					alg.Name, args[1], d.N, rec.edges, edgeCountRule(d), last.run.Backend, parenthesized(rec.BackendWhy))
				fmt.Fprintf(out, "result: %s\n", last.summary)
				first := "first run"
				if runs == 1 {
					first = "in the run"
				}
				fmt.Fprintf(out, "load %.1f ms, preprocess %.2f ms (%s), %d supersteps", rec.LoadMS, rec.PreprocessMS, first, last.run.Iterations)
				if last.run.Finish > 0 {
					fmt.Fprintf(out, ", results copied back in %.2f ms (not in the times below)", ms(last.run.Finish))
				}
				fmt.Fprintln(out)
				if runs == 1 {
					fmt.Fprintf(out, "time: %.3f ms (one run, no warm-up); %.1f MTEPS\n", rec.MedianMS, rec.MTEPS)
				} else {
					fmt.Fprintf(out, "time over %d runs: median %.3f ms, min %.3f, max %.3f; %.1f MTEPS (median)\n",
						runs, rec.MedianMS, rec.MinMS, rec.MaxMS, rec.MTEPS)
				}
				if len(rec.DeviceMS) > 0 {
					med, lo, hi := stats(rec.DeviceMS)
					fmt.Fprintf(out, "on the device's clock (GPU events, host wait excluded): median %.3f ms, min %.3f, max %.3f\n", med, lo, hi)
				}
				if outFile != "" {
					if err := writeText(outFile, false, func(w writer) error { return last.write(w) }); err != nil {
						return err
					}
				}
			}
			at.output += time.Since(t0)
			// The answer is out; validation (timed apart) is not part of it.
			at.answer = time.Since(processStart) - at.validate
			at.hostPeak, at.file = hostPeakBytes(), fileBytes(args[1])
			if peak, _, ok := vertexprog.DeviceMemory(last.run.Backend); ok {
				at.devicePeak = peak
			}
			if validate {
				rec.Validated = true
				what := "validation: PASS"
				if batch {
					what = fmt.Sprintf("validation: all %d queries PASS", len(queries))
				}
				fmt.Fprintf(out, "%s against the gonum reference (%v, not in the time to answer)\n", what, at.validate.Round(time.Millisecond))
			}
			fmt.Fprintln(out, at.line())
			rec.setAnswer(at)
			if plotFile != "" {
				if err := writeRunPlot(plotFile, alg.Name, args[1], last, len(queries), runs, plotLog); err != nil {
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
	prm.registerAlgo(cmd.Flags())
	f := cmd.Flags()
	f.StringVar(&srcText, "src", "", "source vertex of bfs and sssp, in the file's ids (1-based for Matrix Market); default: the highest-degree vertex. "+
		"Several sources, one query each after one load and PREPROCESS: a comma list (1,17,42), @FILE (one id per line, # comments) or gap:N (GAP's SourcePicker)")
	f.IntVar(&runs, "runs", 1, "runs per query: 1 runs once (the answer, no warm-up); N > 1 runs one untimed warm-up, then N timed runs (median, min, max)")
	f.BoolVar(&validate, "validate", false, "compare every result with the gonum reference (timed apart, not in the time to answer); fail on any mismatch")
	f.StringVar(&outFile, "out", "", "write per-vertex results (with the file's ids) to this file; with several sources the path must contain {src}, replaced by each source's id")
	f.StringVar(&prm.outFormat, "out-format", outHPGraph, "--out's lines: hpgraph, or ldbc (LDBC Graphalytics' \"id value\": "+ldbcOutputs()+")")
	f.StringVar(&jsonFile, "json", "", "write the run record (times, iterations, MTEPS, time to answer and its parts, memory peaks, queries, host, version) as JSON")
	f.StringVar(&plotFile, "plot", "", plotUsage+": each superstep's frontier (log scale), direction and time, of the last run (with -v or not)")
	return cmd
}

// parenthesized is " (s)", or "" for an empty s.
func parenthesized(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

// fmtMS formats milliseconds with about three significant digits.
func fmtMS(d time.Duration) string {
	x := ms(d)
	switch a := math.Abs(x); {
	case a >= 100:
		return fmt.Sprintf("%.0f", x)
	case a >= 10:
		return fmt.Sprintf("%.1f", x)
	case a >= 1:
		return fmt.Sprintf("%.2f", x)
	}
	return fmt.Sprintf("%.3f", x)
}

// other is the time to answer not in any reported part: the command's own
// work between them (wrapping the graph, resolving sources, the record).
func (a answerTimes) other() time.Duration {
	return a.answer - a.start - a.load - a.setupWait - a.preprocess - a.compute - a.finish - a.output
}

// line is the time-to-answer line run prints last.
func (a answerTimes) line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "time to answer %s ms (process start to result): start %s, load %s", fmtMS(a.answer), fmtMS(a.start), fmtMS(a.load))
	if a.relabelled {
		fmt.Fprintf(&b, " (read %s, relabel %s)", fmtMS(a.read), fmtMS(a.relabel))
	}
	b.WriteString(", ")
	switch {
	case !a.setupStarted:
		fmt.Fprintf(&b, "no device set-up (%s), ", a.setupSkipped)
	case a.setupOpen:
		b.WriteString("device set-up still opening when the CPU answered (not waited for), ")
	case a.setupWait <= 0:
		fmt.Fprintf(&b, "device set-up %s (beside the load and PREPROCESS, all hidden), ", fmtMS(a.setup))
	default:
		fmt.Fprintf(&b, "device set-up %s (beside the load and PREPROCESS: %s hidden, %s waited for), ",
			fmtMS(a.setup), fmtMS(max(a.setup-a.setupWait, 0)), fmtMS(a.setupWait))
	}
	fmt.Fprintf(&b, "PREPROCESS %s, compute %s%s, copy back %s, output %s, other %s; host peak %.0f MiB",
		fmtMS(a.preprocess), fmtMS(a.compute), a.runsNote, fmtMS(a.finish), fmtMS(a.output), fmtMS(a.other()),
		float64(a.hostPeak)/(1<<20))
	if a.file > 0 {
		fmt.Fprintf(&b, " (%.2fx the file)", float64(a.hostPeak)/float64(a.file))
	}
	if a.devicePeak > 0 {
		fmt.Fprintf(&b, ", device peak %.0f MiB", float64(a.devicePeak)/(1<<20))
	}
	return b.String()
}

func (r *record) setAnswer(a answerTimes) {
	r.AnswerMS, r.StartMS, r.SetupMS = ms(a.answer), ms(a.start), ms(a.setup)
	r.SetupHiddenMS = ms(max(a.setup-a.setupWait, 0))
	r.SetupWaitMS = ms(a.setupWait)
	r.PreprocessTotalMS, r.ComputeTotalMS, r.CopyBackMS = ms(a.preprocess), ms(a.compute), ms(a.finish)
	r.OutputMS, r.OtherMS, r.ValidateMS = ms(a.output), ms(a.other()), ms(a.validate)
	r.HostPeakBytes, r.FileBytes, r.DevicePeakBytes = a.hostPeak, a.file, a.devicePeak
}

func algorithmList() string {
	s := ""
	for _, a := range registry.Apps() {
		s += fmt.Sprintf("  %-14s %s\n", a.Name, a.About)
	}
	return s
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// record is the JSON run record.
type record struct {
	Schema    int            `json:"schema_version"`
	Version   string         `json:"hpgraph_version"`
	Host      hostInfo       `json:"host"`
	Graph     graphInfo      `json:"graph"`
	Algorithm string         `json:"algorithm"`
	Params    map[string]any `json:"params"`
	Backend   string         `json:"backend"`
	// BackendWhy says why the answer came from Backend, where --backend
	// auto chose (a race between the CPU and a device, or the device
	// alone), for one answer (no batch, --runs 1).
	BackendWhy string  `json:"backend_why,omitempty"`
	LoadMS     float64 `json:"load_ms"`
	// ReadMS and RelabelMS split LoadMS: reading and cleaning the graph,
	// and renumbering it (--relabel).
	ReadMS       float64   `json:"read_ms"`
	RelabelMS    float64   `json:"relabel_ms"`
	PreprocessMS float64   `json:"preprocess_ms"`
	RunsMS       []float64 `json:"runs_ms"`
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
	// Warmup is 1 when an untimed warm-up run preceded the timed runs
	// (--runs > 1), 0 when the one run was the answer.
	Warmup int `json:"warmup"`
	// Queries are the queries of a batch (--src with several sources),
	// in order; runs_ms then holds every query's timed runs.
	Queries []queryJSON `json:"queries,omitempty"`

	// The time to answer: process start (package main's initialisation)
	// to the result, validation excluded, and its parts. start_ms is the
	// process start to the command's start; the device set-up (opening
	// the backend, vertexprog.Warm) runs beside the load, setup_hidden_ms
	// of it hidden behind the load and setup_wait_ms waited for after it;
	// the totals add up every run (the warm-up included); other_ms is what
	// no part covers.
	AnswerMS          float64 `json:"answer_ms"`
	StartMS           float64 `json:"start_ms"`
	SetupMS           float64 `json:"setup_ms"`
	SetupHiddenMS     float64 `json:"setup_hidden_ms"`
	SetupWaitMS       float64 `json:"setup_wait_ms"`
	PreprocessTotalMS float64 `json:"preprocess_total_ms"`
	ComputeTotalMS    float64 `json:"compute_total_ms"`
	CopyBackMS        float64 `json:"copy_back_ms"`
	OutputMS          float64 `json:"output_ms"`
	OtherMS           float64 `json:"other_ms"`
	ValidateMS        float64 `json:"validate_ms"`
	// HostPeakBytes is the process's peak resident memory (VmHWM), read
	// when the answer is out (with --validate it includes the references,
	// which run between the queries); FileBytes the input
	// file's size; DevicePeakBytes the device memory peak (absent on the
	// CPU).
	HostPeakBytes   int64 `json:"host_peak_bytes"`
	FileBytes       int64 `json:"file_bytes"`
	DevicePeakBytes int64 `json:"device_peak_bytes,omitempty"`
	edges           int64
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
	edges := edgeCount(d)
	return &record{
		Schema: 1, Version: version(),
		Host:         hostInfo{host, runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version()},
		Graph:        graphInfo{file, d.N, edges, d.NNZ(), d.Directed, d.W != nil},
		Algorithm:    alg,
		Params:       paramsJSON(p),
		LoadMS:       ms(load),
		EdgesCounted: edgeCountRule(d),
		edges:        edges,
	}
}

func (r *record) addRun(s runStats) {
	r.Backend = s.Backend
	r.RunsMS = append(r.RunsMS, ms(s.Compute))
	if s.Device > 0 {
		r.DeviceMS = append(r.DeviceMS, ms(s.Device))
	}
	r.Iterations = append(r.Iterations, s.Iterations)
}

func (r *record) finish() {
	r.MedianMS, r.MinMS, r.MaxMS = stats(r.RunsMS)
	if r.MedianMS > 0 {
		r.MTEPS = float64(r.edges) / (r.MedianMS * 1e3)
	}
}

// edgeCount is d.Edges() without its pass over every arc (tens of
// milliseconds of a time to answer): none when loading dropped self loops,
// else a binary search per (sorted) row.
func edgeCount(d *datasets.Graph) int64 {
	if d.Directed {
		return d.NNZ()
	}
	if d.Stats.SelfLoops > 0 { // loading dropped the self loops
		return d.NNZ() / 2
	}
	counts := make([]int64, par.Workers())
	par.Blocks(d.N, func(w, lo, hi int) {
		var loops int64
		for v := int32(lo); v < int32(hi); v++ {
			nb := d.Neighbors(v)
			i, ok := slices.BinarySearch(nb, v)
			for ok && i < len(nb) && nb[i] == v {
				loops++
				i++
			}
		}
		counts[w] = loops
	})
	var loops int64
	for _, c := range counts {
		loops += c
	}
	return (d.NNZ()-loops)/2 + loops
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
