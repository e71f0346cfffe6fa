package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/registry"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
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
}

// loadBenchGraph loads or generates a graph; a generated one is also
// written to writeTo when given (bench --answer), before any renumbering.
// The graph is renumbered (--relabel) on relabelOn's device where it is
// one (vertexprog.Relabel).
func loadBenchGraph(src graphSource, lf loadFlags, withWeights bool, writeTo, relabelOn string) (*benchGraph, error) {
	opt, err := lf.options()
	if err != nil {
		return nil, err
	}
	if !withWeights {
		opt.Weights = datasets.WeightsNone
	}
	// Relabelling is timed apart from loading: it is PREPROCESS.
	relabel := opt.Relabel
	opt.Relabel = datasets.RelabelNone
	info := benchGraphJSON{Name: src.arg}
	t0 := time.Now()
	var g *datasets.Graph
	if src.file != "" {
		info.Kind, info.File = "file", src.file
		pr := newProgress("loading " + src.file)
		g, err = datasets.Load(src.file, opt, datasets.WithProgress(pr.bytes))
		pr.done()
	} else {
		pr := newProgress("generating " + src.arg)
		var where string
		g, where, err = generateWhere(src.kind, src.p, opt, "auto")
		pr.done()
		info.Kind, info.Generator = "generator", src.about+where
	}
	if err != nil {
		return nil, err
	}
	info.LoadMS = ms(time.Since(t0))
	if writeTo != "" && src.file == "" {
		if err := writeAnswerGraph(writeTo, g); err != nil {
			return nil, fmt.Errorf("--answer: writing %s: %w", writeTo, err)
		}
	}
	t1 := time.Now()
	info.Relabel = relabel.Resolve(g).String()
	g = vertexprog.Relabel(g, relabel, relabelOn)
	info.RelabelMS = ms(time.Since(t1))
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
	case strings.HasPrefix(lf.weights, "random:"):
		return fmt.Sprintf("%s (uniform integers, seed %d)", lf.weights, lf.seed)
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

// The JSON record.
type benchRecord struct {
	Schema       string                `json:"schema"`
	Version      string                `json:"hpgraph_version"`
	Commit       string                `json:"git_commit"`
	Modified     bool                  `json:"git_modified"`
	CommitFrom   string                `json:"git_commit_from,omitempty"`
	Date         string                `json:"date"`
	Args         []string              `json:"args"`
	Host         benchHost             `json:"host"`
	Devices      map[string]deviceJSON `json:"devices"`
	EdgesCounted string                `json:"edges_counted"`
	Settings     benchSettings         `json:"settings"`
	Graphs       []benchGraphJSON      `json:"graphs"`
	Results      []benchResult         `json:"results"`
}

type benchHost struct {
	hostInfo
	CPUModel    string `json:"cpu_model"`
	MemoryBytes int64  `json:"memory_bytes"`
}

type deviceJSON struct {
	Name              string  `json:"name"`
	Driver            string  `json:"driver,omitempty"`
	ComputeCapability string  `json:"compute_capability,omitempty"`
	SMs               int     `json:"sms,omitempty"`
	Cores             int     `json:"cores,omitempty"`
	MemoryBytes       int64   `json:"memory_bytes,omitempty"`
	CopyBandwidth     float64 `json:"copy_bandwidth_bytes_per_s,omitempty"`
	CopyMethod        string  `json:"copy_method,omitempty"`
	Error             string  `json:"error,omitempty"`
}

type benchSettings struct {
	Warmup         int      `json:"warmup"`
	Runs           int      `json:"runs"`
	Algorithms     []string `json:"algorithms"`
	Backends       []string `json:"backends"`
	Source         int64    `json:"src"`
	SourceRule     string   `json:"source_rule"`
	Direction      string   `json:"direction"`
	Rule           string   `json:"rule"`
	RelativeSpeed  float64  `json:"relative_speed"`
	Breakeven      int      `json:"breakeven"`
	Damping        float64  `json:"damping"`
	Tolerance      float64  `json:"tolerance"`
	MaxIter        int      `json:"max_iter"`
	Iterations     int      `json:"iterations"`
	Precision      string   `json:"pagerank_precision"`
	Delta          float64  `json:"sssp_delta"` // negative: sssp.DefaultDelta
	SSSPWeights    string   `json:"sssp_weights"`
	WeightSeed     uint64   `json:"weight_seed"`
	Symmetrize     bool     `json:"symmetrize"`
	KeepLoops      bool     `json:"keep_loops"`
	KeepDuplicates bool     `json:"keep_duplicates"`
	Relabel        string   `json:"relabel"`
	Validate       bool     `json:"validate"`
	// Answer: each result also has the time to answer of fresh processes.
	Answer bool `json:"answer,omitempty"`
	// Params are every app's parameters (registry.AllParams) and src, under
	// their JSON names: the fields above and any an app adds.
	Params map[string]any `json:"params"`
}

type benchGraphJSON struct {
	Name      string  `json:"name"`
	Kind      string  `json:"kind"` // file or generator
	File      string  `json:"file,omitempty"`
	Generator string  `json:"generator,omitempty"`
	Vertices  int     `json:"vertices"`
	Edges     int64   `json:"edges"`
	NNZ       int64   `json:"nnz"`
	Directed  bool    `json:"directed"`
	Weights   string  `json:"sssp_weights,omitempty"`
	LoadMS    float64 `json:"load_ms"`
	// Relabel is the vertex order the graph was renumbered into (--relabel;
	// auto resolved), RelabelMS the time that took (PREPROCESS, not in
	// LoadMS).
	Relabel   string  `json:"relabel"`
	RelabelMS float64 `json:"relabel_ms"`
	Error     string  `json:"error,omitempty"`
}

type benchResult struct {
	Graph     string `json:"graph"`
	Algorithm string `json:"algorithm"`
	Backend   string `json:"backend"`
	Weights   string `json:"weights"`
	Source    *int64 `json:"source,omitempty"`
	Vertices  int    `json:"vertices"`
	Edges     int64  `json:"edges"`
	NNZ       int64  `json:"nnz"`
	DAGArcs   int64  `json:"dag_arcs,omitempty"`
	Runs      int    `json:"runs"`
	// Per timed run.
	ComputeMS    []float64 `json:"compute_ms"`
	SuperstepsMS []float64 `json:"supersteps_ms"`
	Iterations   []int     `json:"iterations"`
	PreprocessMS []float64 `json:"preprocess_ms"`
	TransferMS   []float64 `json:"transfer_ms"`
	FinishMS     []float64 `json:"finish_ms"`
	// DeviceMS is ComputeMS on the device's clock (GPU events from the
	// first launch to the end of the last superstep's work, as the GPU
	// peers time themselves), absent on the CPU.
	DeviceMS []float64 `json:"device_ms,omitempty"`
	// Over the timed runs.
	MedianMS           float64 `json:"median_ms"`
	MinMS              float64 `json:"min_ms"`
	MaxMS              float64 `json:"max_ms"`
	DeviceMedianMS     float64 `json:"device_median_ms,omitempty"`
	MSPerStep          float64 `json:"ms_per_step"`
	MTEPS              float64 `json:"mteps"`
	PreprocessFirstMS  float64 `json:"preprocess_first_ms"`
	PreprocessMedianMS float64 `json:"preprocess_median_ms"`
	TransferFirstMS    float64 `json:"transfer_first_ms"`
	TransferMedianMS   float64 `json:"transfer_median_ms"`
	Bytes              int64   `json:"bytes"`
	BytesModel         string  `json:"bytes_model"`
	GBs                float64 `json:"gbs"`
	CopyFraction       float64 `json:"copy_fraction,omitempty"`
	Summary            string  `json:"summary,omitempty"`
	Validated          bool    `json:"validated"`
	Skipped            string  `json:"skipped,omitempty"`
	Error              string  `json:"error,omitempty"`
	// Answer is the time to answer of fresh processes (--answer).
	Answer *answerJSON `json:"answer,omitempty"`
	// Parts is each part of a partitioned run (--parts, --devices),
	// over the timed runs: compute and exchange per run, and the bytes
	// each part received per run.
	Parts []partJSON `json:"parts,omitempty"`
}

// partJSON is one part of a partitioned run in the bench record.
type partJSON struct {
	Index      int     `json:"index"`
	Lo         int32   `json:"lo"`
	Hi         int32   `json:"hi"`
	Arcs       int64   `json:"arcs"`
	ComputeMS  float64 `json:"compute_ms"`
	ExchangeMS float64 `json:"exchange_ms"`
	Bytes      int64   `json:"exchange_bytes"`
}

// deviceDescribers describe the devices of backends other than cpu; the
// cuda build adds its own (cuda.go).
var deviceDescribers = map[string]func() (driver.DeviceInfo, error){}

// describeBackend returns what the record says about a backend's device.
func describeBackend(name string, copyBytes int) deviceJSON {
	if name == "auto" { // (the first device that can run here, else the host)
		name = vertexprog.Backends()[len(vertexprog.Backends())-1]
	}
	if name == "cpu" {
		return describeHost(copyBytes)
	}
	fn, ok := deviceDescribers[name]
	if !ok {
		return deviceJSON{Name: name, Error: "this build cannot describe the device"}
	}
	d, err := fn()
	if err != nil {
		return deviceJSON{Name: name, Error: err.Error()}
	}
	return deviceJSON{Name: d.Name, Driver: d.Driver, ComputeCapability: d.ComputeCapability, SMs: d.SMs,
		MemoryBytes: d.MemoryBytes, CopyBandwidth: d.CopyBandwidth, CopyMethod: "measured by the backend: device-to-device copy, bytes read plus written"}
}

// describeHost is the cpu backend's device: the host, with its memory copy
// bandwidth measured now.
func describeHost(copyBytes int) deviceJSON {
	mem, _ := memTotal()
	bw := measureCopyBandwidth(copyBytes, 5)
	return deviceJSON{Name: cpuModel(), Cores: runtime.GOMAXPROCS(0), MemoryBytes: mem, CopyBandwidth: bw,
		CopyMethod: fmt.Sprintf("copy of %s split over GOMAXPROCS=%d goroutines, best of 5, bytes read plus written", mib(int64(copyBytes)), par.Workers())}
}

// measureCopyBandwidth copies size bytes reps times on every core and
// returns the best rate, counting bytes read plus bytes written (as STREAM
// Copy does).
func measureCopyBandwidth(size, reps int) float64 {
	if size <= 0 {
		return 0
	}
	src, dst := make([]byte, size), make([]byte, size)
	// Touch both buffers first so page faults are not timed.
	par.Blocks(size, func(_, lo, hi int) {
		for i := lo; i < hi; i += 4096 {
			src[i] = byte(i >> 12)
		}
		copy(dst[lo:hi], src[lo:hi])
	})
	best := time.Duration(math.MaxInt64)
	for range reps {
		t0 := time.Now()
		par.Blocks(size, func(_, lo, hi int) { copy(dst[lo:hi], src[lo:hi]) })
		best = min(best, time.Since(t0))
	}
	return 2 * float64(size) / max(best.Seconds(), 1e-9)
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), ":")
			if ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	return runtime.GOARCH + " CPU"
}

func memTotal() (int64, error) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no MemTotal in /proc/meminfo")
}

// buildVCS is the module version, VCS revision and whether the tree was
// modified, as the Go tool stamped them (go build does; go run and go test
// do not). Unstamped, it asks git about the working directory when that is
// a checkout of this module, and says so in from.
func buildVCS() (ver, rev string, modified bool, from string) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown", "", false, ""
	}
	ver = bi.Main.Version
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev != "" {
		return ver, rev, modified, "build info"
	}
	if rev, modified, ok = gitWorkingTree(bi.Main.Path); ok {
		return ver, rev, modified, "git in the working directory (binary not stamped)"
	}
	return ver, "", false, ""
}

// gitWorkingTree reads HEAD and whether tracked files changed, when the
// working directory is in a git checkout of module; read-only (no index
// refresh).
func gitWorkingTree(module string) (rev string, modified, ok bool) {
	git := func(args ...string) (string, error) {
		c := exec.Command("git", args...)
		c.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
		out, err := c.Output()
		return strings.TrimSpace(string(out)), err
	}
	top, err := git("rev-parse", "--show-toplevel")
	if err != nil || module == "" {
		return "", false, false
	}
	mod, err := os.ReadFile(filepath.Join(top, "go.mod"))
	if err != nil || !regexp.MustCompile(`(?m)^module\s+`+regexp.QuoteMeta(module)+`\s*$`).Match(mod) {
		return "", false, false
	}
	if rev, err = git("rev-parse", "HEAD"); err != nil {
		return "", false, false
	}
	status, err := git("status", "--porcelain", "--untracked-files=no")
	return rev, err == nil && status != "", true
}

// stats is the median, min and max of xs.
func stats(xs []float64) (med, lo, hi float64) {
	if len(xs) == 0 {
		return 0, 0, 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return median(s), s[0], s[len(s)-1]
}

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
				bg, err := loadBenchGraph(src, lf, needWeights, writeTo, relabelOn)
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
								weights = lf.weights
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
	lf.weights = "random:1-64"
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

func newBenchRecord(lf loadFlags, ef engineFlags, prm params, runs int, validate bool) *benchRecord {
	ver, rev, mod, from := buildVCS()
	hostname, _ := os.Hostname()
	mem, _ := memTotal()
	hf := ef.hf.options()
	return &benchRecord{
		Schema: benchSchema, Version: ver, Commit: rev, Modified: mod, CommitFrom: from,
		Date: time.Now().UTC().Format(time.RFC3339),
		Args: os.Args[1:],
		Host: benchHost{
			hostInfo: hostInfo{hostname, runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version()},
			CPUModel: cpuModel(), MemoryBytes: mem,
		},
		Devices:      map[string]deviceJSON{},
		EdgesCounted: edgesCounted,
		Settings: benchSettings{
			Warmup: 1, Runs: runs, Source: prm.src, SourceRule: srcRule(prm.src),
			Direction: ef.direction, Rule: ef.rule, RelativeSpeed: hf.RelativeSpeed, Breakeven: hf.Breakeven,
			Damping: prm.Damping, Tolerance: prm.Tolerance, MaxIter: prm.MaxIter, Iterations: prm.Iterations, Precision: prm.Precision,
			Delta: prm.Delta, Params: paramsJSON(prm), SSSPWeights: lf.weights, WeightSeed: lf.seed,
			Symmetrize: lf.symmetrize, KeepLoops: lf.keepLoops, KeepDuplicates: lf.keepDups, Relabel: lf.relabel, Validate: validate,
		},
		Graphs:  []benchGraphJSON{},
		Results: []benchResult{},
	}
}

func srcRule(src int64) string {
	if src < 0 {
		return sourceRule
	}
	return fmt.Sprintf("--src %d (the file's ids)", src)
}

// benchOne runs algorithm a on backend b: a warm-up, then runs timed runs,
// each on a fresh vertexprog.Graph so that the warm-up's PREPROCESS builds
// the matrices (cold) and the timed runs reuse them.
func benchOne(bg *benchGraph, a benchAlgo, backend string, base vertexprog.Options, prm params, runs int, validate bool, hopt hyb.Options) benchResult {
	d := bg.plain
	r := benchResult{Graph: bg.info.Name, Algorithm: a.name, Backend: backend, Weights: "none", Vertices: d.N, Edges: d.Edges()}
	if a.app.Takes("precision") && prm.Precision != registry.DefaultParams().Precision {
		r.Algorithm += "/" + prm.Precision
	}
	if a.app.Weighted {
		d = bg.weighted
		r.Weights = bg.info.Weights
	}
	if a.app.Source {
		if v, err := resolveSource(d, prm.src); err == nil {
			id := d.OriginalID(v)
			r.Source = &id
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
	opt := base
	opt.Backend = backend
	g := vertexprog.NewGraph(d)
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
	}
	r.Runs = runs
	r.Summary = last.summary
	r.MedianMS, r.MinMS, r.MaxMS = stats(r.ComputeMS)
	r.DeviceMedianMS, _, _ = stats(r.DeviceMS)
	r.PreprocessMedianMS, _, _ = stats(r.PreprocessMS)
	r.TransferMedianMS, _, _ = stats(r.TransferMS)
	r.MSPerStep, _, _ = stats(perStep)
	if r.MedianMS > 0 {
		r.MTEPS = float64(r.Edges) / (r.MedianMS * 1e3)
	}
	if r.NNZ, err = traversedNNZ(g, a.app.Edges(), hopt); err != nil {
		return fail(err)
	}
	iters := slices.Clone(r.Iterations)
	slices.Sort(iters)
	r.BytesModel = "no model"
	if a.app.Traffic != nil {
		t := a.app.Traffic(apps.TrafficIn{Graph: g, N: int64(d.N), NNZ: r.NNZ, Weighted: d.W != nil, Iterations: iters[len(iters)/2]})
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

func progressLine(r benchResult) string {
	head := fmt.Sprintf("%s %s %s:", r.Graph, r.Algorithm, r.Backend)
	switch {
	case r.Error != "":
		return head + " FAIL: " + r.Error
	case r.Skipped != "":
		return head + " SKIP: " + r.Skipped
	}
	line := fmt.Sprintf("%s median %.3f ms, %d supersteps, %.1f MTEPS", head, r.MedianMS, r.Iterations[0], r.MTEPS)
	switch a := r.Answer; {
	case a == nil:
	case a.Error != "":
		line += "; time to answer FAIL: " + a.Error
	default:
		line += fmt.Sprintf("; time to answer %.1f ms (fresh process, median)", a.MedianMS)
	}
	return line
}

func gbs(bytesPerS float64) string { return fmt.Sprintf("%.1f GB/s", bytesPerS/1e9) }

func printBench(out io.Writer, rec *benchRecord) {
	commit := rec.Commit
	if commit == "" {
		commit = "unknown commit"
	} else if rec.Modified {
		commit += "+dirty"
	}
	fmt.Fprintf(out, "hpgraph bench %s (%s), %s\n", rec.Version, commit, rec.Date)
	h := rec.Host
	fmt.Fprintf(out, "host: %s, %s, %d CPUs, GOMAXPROCS %d, %s\n", h.Hostname, h.CPUModel, h.CPUs, h.GOMAXPROCS, h.Go)
	for _, b := range rec.Settings.Backends {
		d := rec.Devices[b]
		if d.Error != "" {
			fmt.Fprintf(out, "device %s: %s: %s (no copy bandwidth: no %%copy)\n", b, d.Name, d.Error)
			continue
		}
		desc := d.Name
		if d.Driver != "" {
			desc += ", driver " + d.Driver
		}
		if d.ComputeCapability != "" {
			desc += ", compute " + d.ComputeCapability
		}
		if d.SMs > 0 {
			desc += fmt.Sprintf(", %d SMs", d.SMs)
		}
		if d.Cores > 0 {
			desc += fmt.Sprintf(", %d cores used", d.Cores)
		}
		if d.MemoryBytes > 0 {
			desc += fmt.Sprintf(", %.1f GiB", float64(d.MemoryBytes)/(1<<30))
		}
		fmt.Fprintf(out, "device %s: %s; copy bandwidth %s (%s)\n", b, desc, gbs(d.CopyBandwidth), d.CopyMethod)
	}
	s := rec.Settings
	fmt.Fprintf(out, "edges: %s\n", edgesCounted)
	fmt.Fprintf(out, "times: 1 warm-up + %d timed runs; median [min, max] of the compute time (superstep loop; load, PREPROCESS and the copy-back of results apart: finish_ms in --json); ms/step = compute/supersteps\n", s.Runs)
	fmt.Fprintf(out, "GB/s: bytes that must move (lower-bound model, bytes_model in --json) / median time; %%copy = GB/s / the device's copy bandwidth\n")
	fmt.Fprintf(out, "bfs/sssp source: %s\n", s.SourceRule)
	for _, g := range rec.Graphs {
		if g.Error != "" {
			fmt.Fprintf(out, "graph %s: FAIL: %s\n", g.Name, g.Error)
			continue
		}
		from := "read from " + g.File
		if g.Kind == "generator" {
			from = "generated: " + g.Generator
		}
		kind := "undirected"
		if g.Directed {
			kind = "directed"
		}
		fmt.Fprintf(out, "graph %s: %d vertices, %d edges, %d stored arcs (%s); load %.1f ms (%s); vertex order %s (%.1f ms)",
			g.Name, g.Vertices, g.Edges, g.NNZ, kind, g.LoadMS, from, g.Relabel, g.RelabelMS)
		if g.Weights != "" {
			fmt.Fprintf(out, "; sssp weights %s", g.Weights)
		}
		fmt.Fprintln(out)
	}
	fmt.Fprintln(out)
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "graph\talgo\tbackend\tmedian ms\tmin\tmax\tgpu ms\tsteps\tms/step\tMTEPS\tGB/s\t%%copy\tprep first ms\tprep ms\ttransfer ms\tnnz\t\n")
	var notes []string
	for _, r := range rec.Results {
		verdict := ""
		switch {
		case r.Skipped != "":
			verdict = "SKIP"
			notes = append(notes, fmt.Sprintf("SKIP %s %s %s: %s", r.Graph, r.Algorithm, r.Backend, r.Skipped))
		case r.Error != "":
			verdict = "FAIL"
			notes = append(notes, fmt.Sprintf("FAIL %s %s %s: %s", r.Graph, r.Algorithm, r.Backend, r.Error))
		}
		if r.Runs == 0 {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s%s\n", r.Graph, r.Algorithm, r.Backend, verdict, strings.Repeat("\t-", 12)+"\t")
			continue
		}
		pct := "-"
		if r.CopyFraction > 0 {
			pct = fmt.Sprintf("%.1f%%", 100*r.CopyFraction)
		}
		gpu := "-"
		if r.DeviceMedianMS > 0 {
			gpu = fmt.Sprintf("%.3f", r.DeviceMedianMS)
		}
		steps := fmt.Sprint(r.Iterations[0])
		if lo, hi := slices.Min(r.Iterations), slices.Max(r.Iterations); lo != hi {
			steps = fmt.Sprintf("%d-%d", lo, hi)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%.3f\t%.3f\t%.3f\t%s\t%s\t%.4f\t%.1f\t%.2f\t%s\t%.2f\t%.3f\t%.3f\t%d\t\n",
			r.Graph, r.Algorithm, r.Backend, r.MedianMS, r.MinMS, r.MaxMS, gpu, steps, r.MSPerStep, r.MTEPS, r.GBs, pct,
			r.PreprocessFirstMS, r.PreprocessMedianMS, r.TransferMedianMS, r.NNZ)
	}
	w.Flush()
	for _, n := range notes {
		fmt.Fprintln(out, n)
	}
	for _, r := range rec.Results {
		if len(r.Parts) == 0 {
			continue
		}
		fmt.Fprintf(out, "%s %s %s, per part and run:", r.Graph, r.Algorithm, r.Backend)
		for _, p := range r.Parts {
			fmt.Fprintf(out, " [%d: %d arcs, compute %.3f ms, exchange %.3f ms, %.1f MB in]", p.Index, p.Arcs, p.ComputeMS, p.ExchangeMS, float64(p.Bytes)/1e6)
		}
		fmt.Fprintln(out)
	}
	if rec.Settings.Validate {
		ok := 0
		for _, r := range rec.Results {
			if r.Validated {
				ok++
			}
		}
		fmt.Fprintf(out, "validation: %d of %d results PASS against the gonum reference\n", ok, len(rec.Results))
	}
}

// addParts adds one timed run's parts to the record's, each a share of
// the runs' mean.
func addParts(sum *[]partJSON, parts []vertexprog.PartStat, runs int) {
	if len(parts) == 0 {
		return
	}
	if *sum == nil {
		*sum = make([]partJSON, len(parts))
		for i, p := range parts {
			(*sum)[i] = partJSON{Index: p.Index, Lo: p.Lo, Hi: p.Hi, Arcs: p.Arcs}
		}
	}
	for i, p := range parts {
		if i < len(*sum) {
			(*sum)[i].ComputeMS += ms(p.Compute) / float64(runs)
			(*sum)[i].ExchangeMS += ms(p.Exchange) / float64(runs)
			(*sum)[i].Bytes += p.ExchangeBytes / int64(runs)
		}
	}
}
