package main

// run's record (--json) and its time to answer: the parts, the line that
// prints them, and the edges MTEPS count.

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/internal/measure"
	"github.com/hpgraph/hpgraph/vertexprog"
)

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
	// exchange is the part of compute a partitioned run's parts spent
	// exchanging (each run's slowest part's, added up).
	exchange                   time.Duration
	setupStarted, relabelled   bool
	setupOpen                  bool // (still opening when a race's CPU answered)
	setupSkipped               string
	hostPeak, file, devicePeak int64
	runsNote                   string
	// A process that read its parts' rows only (readRows): which, and
	// the bytes it read.
	rowsRead  string
	readBytes int64
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
	if a.rowsRead != "" {
		fmt.Fprintf(&b, " (this process's %s)", a.rowsRead)
	}
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
	exchange := ""
	if a.exchange > 0 {
		exchange = fmt.Sprintf(" (of it exchange between the parts %s)", fmtMS(a.exchange))
	}
	fmt.Fprintf(&b, "PREPROCESS %s, compute %s%s%s, copy back %s, output %s, other %s; host peak %.0f MiB",
		fmtMS(a.preprocess), fmtMS(a.compute), exchange, a.runsNote, fmtMS(a.finish), fmtMS(a.output), fmtMS(a.other()),
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
	r.ExchangeTotalMS = ms(a.exchange)
	r.OutputMS, r.OtherMS, r.ValidateMS = ms(a.output), ms(a.other()), ms(a.validate)
	r.HostPeakBytes, r.FileBytes, r.DevicePeakBytes = a.hostPeak, a.file, a.devicePeak
}

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
	ReadMS    float64 `json:"read_ms"`
	RelabelMS float64 `json:"relabel_ms"`
	// ReadBytes is what a process of a run over several that read only
	// its parts' rows read of the file (absent where it read it whole).
	ReadBytes    int64     `json:"read_bytes,omitempty"`
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
	// Parts is each local part of a partitioned run (--parts,
	// --devices), over the timed runs: compute and exchange per run, and
	// the bytes each part received per run.
	Parts    []partJSON              `json:"parts,omitempty"`
	runParts [][]vertexprog.PartStat // (each timed run's, for Parts)
	// WholeBytes is the whole graph's orientation every part reads
	// (triangle counting, LCC: vertexprog.Result.Whole), 0 otherwise.
	WholeBytes int64 `json:"whole_bytes,omitempty"`
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
	// ExchangeTotalMS is the part of compute_total_ms a partitioned run
	// spent exchanging between its parts (each run's slowest part's).
	ExchangeTotalMS float64 `json:"exchange_total_ms,omitempty"`
	CopyBackMS      float64 `json:"copy_back_ms"`
	OutputMS        float64 `json:"output_ms"`
	OtherMS         float64 `json:"other_ms"`
	ValidateMS      float64 `json:"validate_ms"`
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

// newRecord is the record of a run on d (whose NNZ and Directed it
// reads), of edges edges (edgeCount), weighted or not.
func newRecord(d *datasets.Graph, edges int64, weighted bool, file, alg string, p params, load time.Duration) *record {
	host, _ := os.Hostname()
	return &record{
		Schema: 1, Version: version(),
		Host:         hostInfo{host, runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version()},
		Graph:        graphInfo{file, d.N, edges, d.NNZ(), d.Directed, weighted},
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
	if len(s.Parts) > 0 {
		r.runParts = append(r.runParts, s.Parts)
		r.WholeBytes = max(r.WholeBytes, s.Whole)
	}
}

func (r *record) finish() {
	r.Parts = nil
	for _, p := range r.runParts {
		addParts(&r.Parts, p, len(r.runParts))
	}
	r.MedianMS, r.MinMS, r.MaxMS = measure.Stats(r.RunsMS)
	if r.MedianMS > 0 {
		r.MTEPS = float64(r.edges) / (r.MedianMS * 1e3)
	}
}

// edgeCount is d.Edges() without its count of the self loops where
// loading dropped them (none are left).
func edgeCount(d *datasets.Graph) int64 {
	if !d.Directed && d.Stats.SelfLoops > 0 {
		return d.NNZ() / 2
	}
	return d.Edges()
}
