package main

// bench's JSON record (benchSchema) and what it says about the host and
// the devices.

import (
	"cmp"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/hpgraph/hpgraph/internal/measure"
	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/serve/wire"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

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
	Delta          float64  `json:"sssp_delta"` // negative: apps.DefaultDelta
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
	// WholeBytes is the whole graph's orientation every part reads
	// (triangle counting, LCC: vertexprog.Result.Whole), 0 otherwise.
	WholeBytes int64 `json:"whole_bytes,omitempty"`
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
	mem, _ := measure.MemTotal()
	bw := measure.CopyBandwidth(copyBytes, 5)
	return deviceJSON{Name: measure.CPUModel(), Cores: runtime.GOMAXPROCS(0), MemoryBytes: mem, CopyBandwidth: bw,
		CopyMethod: fmt.Sprintf("copy of %s split over GOMAXPROCS=%d goroutines, best of 5, bytes read plus written", mib(int64(copyBytes)), par.Workers())}
}

func newBenchRecord(lf loadFlags, ef engineFlags, prm params, runs int, validate bool) *benchRecord {
	ver, rev, mod, from := measure.BuildVCS()
	hostname, _ := os.Hostname()
	mem, _ := measure.MemTotal()
	hf := ef.hf.options()
	return &benchRecord{
		Schema: benchSchema, Version: ver, Commit: rev, Modified: mod, CommitFrom: from,
		Date: time.Now().UTC().Format(time.RFC3339),
		Args: os.Args[1:],
		Host: benchHost{
			hostInfo: hostInfo{hostname, runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version()},
			CPUModel: measure.CPUModel(), MemoryBytes: mem,
		},
		Devices:      map[string]deviceJSON{},
		EdgesCounted: edgesCounted,
		Settings: benchSettings{
			Warmup: 1, Runs: runs, Source: prm.src, SourceRule: srcRule(prm.src),
			Direction: ef.direction, Rule: ef.rule, RelativeSpeed: hf.RelativeSpeed, Breakeven: hf.Breakeven,
			Damping: prm.Damping, Tolerance: prm.Tolerance, MaxIter: prm.MaxIter, Iterations: prm.Iterations, Precision: prm.Precision,
			Delta: prm.Delta, Params: paramsJSON(prm), SSSPWeights: lf.Weights, WeightSeed: cmp.Or(lf.Seed, wire.DefaultSeed),
			Symmetrize: lf.Symmetrize, KeepLoops: lf.KeepLoops, KeepDuplicates: lf.KeepDuplicates, Relabel: lf.Relabel, Validate: validate,
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
