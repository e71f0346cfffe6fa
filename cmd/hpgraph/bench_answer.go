package main

// bench --answer: the time to answer of a fresh process, `hpgraph run ALGO
// FILE`, from spawn to exit, with the parts the process reports itself.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/internal/measure"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// answerJSON is a result's time to answer (bench --answer).
type answerJSON struct {
	// Command is one process's command line (its --json path aside).
	Command []string `json:"command"`
	// File is the graph file the processes read: the file given, or the
	// generator spec written once as .hpg (removed after unless --keep).
	File string `json:"file"`
	Runs int    `json:"runs"`
	// WallMS is each process's wall time from spawn to exit, on the bench's
	// clock: everything the user waits for, the exec and the Go runtime's
	// start included.
	WallMS   []float64 `json:"wall_ms"`
	MedianMS float64   `json:"median_ms"`
	MinMS    float64   `json:"min_ms"`
	MaxMS    float64   `json:"max_ms"`
	// The parts, medians over the processes of what each reported in its
	// run record (answer_ms is from its package main's start to the
	// result: the wall time less the exec, runtime start and exit).
	AnswerMS        float64 `json:"answer_ms"`
	StartMS         float64 `json:"start_ms"`
	LoadMS          float64 `json:"load_ms"`
	ReadMS          float64 `json:"read_ms"`
	RelabelMS       float64 `json:"relabel_ms"`
	SetupMS         float64 `json:"setup_ms"`
	SetupHiddenMS   float64 `json:"setup_hidden_ms"`
	PreprocessMS    float64 `json:"preprocess_ms"`
	ComputeMS       float64 `json:"compute_ms"`
	CopyBackMS      float64 `json:"copy_back_ms"`
	OutputMS        float64 `json:"output_ms"`
	HostPeakBytes   int64   `json:"host_peak_bytes"`
	FileBytes       int64   `json:"file_bytes"`
	DevicePeakBytes int64   `json:"device_peak_bytes,omitempty"`
	// AnsweredBy is the backend that answered in the last process, and
	// AnsweredWhy why (--backend auto: a race, or the device alone).
	AnsweredBy  string `json:"answered_by"`
	AnsweredWhy string `json:"answered_why,omitempty"`
	Error       string `json:"error,omitempty"`
}

// answerFlags are bench's --answer options.
type answerFlags struct {
	on   bool
	dir  string
	keep bool
	exe  string
}

func (a *answerFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&a.on, "answer", false, "also measure each row's time to answer: --runs fresh processes of hpgraph run ALGO FILE --backend B (with bench's load and algorithm flags), spawn to exit, with the parts each reports")
	fs.StringVar(&a.dir, "dir", "", "--answer: where a generator spec is written as .hpg, since a time to answer starts from a file (default: the system's temporary directory)")
	fs.BoolVar(&a.keep, "keep", false, "--answer: keep the .hpg files written for generator specs")
	fs.StringVar(&a.exe, "answer-exe", "", "--answer: the hpgraph binary to spawn (default: this one)")
}

// executable is the binary --answer spawns.
func (a *answerFlags) executable() (string, error) {
	if a.exe != "" {
		return a.exe, nil
	}
	return os.Executable()
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// answerFile reserves the .hpg file a generator spec is written to.
func (a *answerFlags) answerFile(spec string) (string, error) {
	dir := a.dir
	if dir == "" {
		dir = os.TempDir()
	}
	f, err := os.CreateTemp(dir, "hpgraph-answer-"+unsafeName.ReplaceAllString(spec, "_")+"-*.hpg")
	if err != nil {
		return "", fmt.Errorf("--answer: %w", err)
	}
	f.Close()
	return f.Name(), nil
}

// writeAnswerGraph writes g, as loading left it before any renumbering and
// without the weights sssp's rows add, so that each process loads it as a
// user's file: cleaning again changes nothing, --relabel and --weights
// apply as they would.
func writeAnswerGraph(path string, g *datasets.Graph) error {
	if g.W != nil {
		plain := *g
		plain.W = nil
		g = &plain
	}
	return datasets.WriteCacheFile(path, g)
}

// answerArgs is the command line of one process for algorithm a on backend.
// It passes on the flags of bench's that run shares and that were given
// (cleaning, --relabel, the engine's and the algorithm's); sssp gets
// --weights, the others none, as bench runs them; a variant runs as its
// app with the flags it fixes.
func answerArgs(bench *cobra.Command, file string, a benchAlgo, backend, weights string) []string {
	run := newRun()
	args := []string{"run", a.app.Name, file, "--backend", backend}
	skip := map[string]bool{"backend": true, "weights": true, "runs": true, "validate": true, "json": true, "verbose": true, "out": true}
	bench.Flags().Visit(func(f *pflag.Flag) {
		if !skip[f.Name] && run.Flags().Lookup(f.Name) != nil {
			args = append(args, "--"+f.Name+"="+f.Value.String())
		}
	})
	args = append(args, "--weights", weights)
	if a.variant != nil {
		for _, s := range a.variant.Set {
			args = append(args, "--"+s.Param.ParamName(), s.Value)
		}
	}
	return args
}

// measureAnswer spawns the process runs times and reads each one's record.
func measureAnswer(exe string, args []string, file string, runs int) *answerJSON {
	a := &answerJSON{Command: append([]string{exe}, args...), File: file, Runs: runs}
	tmp, err := os.MkdirTemp("", "hpgraph-answer-json")
	if err != nil {
		a.Error = err.Error()
		return a
	}
	defer os.RemoveAll(tmp)
	var recs []record
	for i := range runs {
		js := filepath.Join(tmp, fmt.Sprintf("run%d.json", i))
		var out bytes.Buffer
		c := exec.Command(exe, append(slices.Clone(args), "--json", js)...)
		c.Stdout, c.Stderr = &out, &out
		t0 := time.Now()
		err := c.Run()
		wall := time.Since(t0)
		if err != nil {
			a.Error = fmt.Sprintf("%s: %v: %s", strings.Join(a.Command, " "), err, lastLines(out.String(), 3))
			return a
		}
		b, err := os.ReadFile(js)
		var r record
		if err == nil {
			err = json.Unmarshal(b, &r)
		}
		if err != nil {
			a.Error = fmt.Sprintf("reading the run record: %v", err)
			return a
		}
		a.WallMS = append(a.WallMS, ms(wall))
		recs = append(recs, r)
	}
	a.MedianMS, a.MinMS, a.MaxMS = measure.Stats(a.WallMS)
	med := func(f func(r record) float64) float64 {
		xs := make([]float64, len(recs))
		for i, r := range recs {
			xs[i] = f(r)
		}
		m, _, _ := measure.Stats(xs)
		return m
	}
	a.AnswerMS = med(func(r record) float64 { return r.AnswerMS })
	a.StartMS = med(func(r record) float64 { return r.StartMS })
	a.LoadMS = med(func(r record) float64 { return r.LoadMS })
	a.ReadMS = med(func(r record) float64 { return r.ReadMS })
	a.RelabelMS = med(func(r record) float64 { return r.RelabelMS })
	a.SetupMS = med(func(r record) float64 { return r.SetupMS })
	a.SetupHiddenMS = med(func(r record) float64 { return r.SetupHiddenMS })
	a.PreprocessMS = med(func(r record) float64 { return r.PreprocessTotalMS })
	a.ComputeMS = med(func(r record) float64 { return r.ComputeTotalMS })
	a.CopyBackMS = med(func(r record) float64 { return r.CopyBackMS })
	a.OutputMS = med(func(r record) float64 { return r.OutputMS })
	a.HostPeakBytes = int64(med(func(r record) float64 { return float64(r.HostPeakBytes) }))
	a.DevicePeakBytes = int64(med(func(r record) float64 { return float64(r.DevicePeakBytes) }))
	a.FileBytes = recs[0].FileBytes
	a.AnsweredBy, a.AnsweredWhy = recs[len(recs)-1].Backend, recs[len(recs)-1].BackendWhy
	return a
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], " | ")
}

// printAnswers prints the time-to-answer table of the results that have one.
func printAnswers(out io.Writer, rec *benchRecord) {
	if !slices.ContainsFunc(rec.Results, func(r benchResult) bool { return r.Answer != nil }) {
		return
	}
	fmt.Fprintf(out, "\ntime to answer: fresh processes `hpgraph run ALGO FILE --backend B`, %d each; wall = spawn to exit, median [min, max]; the parts are medians of what the processes report (answer = their package main's start to the result; set-up overlaps the load, hidden = the part the load hid)\n", rec.Settings.Runs)
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "graph\talgo\tbackend\tanswered by\twall ms\tmin\tmax\tanswer ms\tload\t(relabel)\tset-up\t(hidden)\tprep\tcompute\tcopy back\toutput\thost peak MiB\tx file\tdevice peak MiB\t\n")
	var notes []string
	for _, r := range rec.Results {
		a := r.Answer
		if a == nil {
			continue
		}
		if a.Error != "" {
			fmt.Fprintf(w, "%s\t%s\t%s\tFAIL%s\n", r.Graph, r.Algorithm, r.Backend, strings.Repeat("\t-", 15)+"\t")
			notes = append(notes, fmt.Sprintf("FAIL %s %s %s (time to answer): %s", r.Graph, r.Algorithm, r.Backend, a.Error))
			continue
		}
		ratio, dev := "-", "-"
		if a.FileBytes > 0 {
			ratio = fmt.Sprintf("%.2f", float64(a.HostPeakBytes)/float64(a.FileBytes))
		}
		if a.DevicePeakBytes > 0 {
			dev = fmt.Sprintf("%.0f", float64(a.DevicePeakBytes)/(1<<20))
		}
		if a.AnsweredWhy != "" {
			notes = append(notes, fmt.Sprintf("%s %s %s: answered by %s (%s)", r.Graph, r.Algorithm, r.Backend, a.AnsweredBy, a.AnsweredWhy))
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.2f\t%.3f\t%.2f\t%.2f\t%.0f\t%s\t%s\t\n",
			r.Graph, r.Algorithm, r.Backend, a.AnsweredBy, a.MedianMS, a.MinMS, a.MaxMS, a.AnswerMS, a.LoadMS, a.RelabelMS,
			a.SetupMS, a.SetupHiddenMS, a.PreprocessMS, a.ComputeMS, a.CopyBackMS, a.OutputMS,
			float64(a.HostPeakBytes)/(1<<20), ratio, dev)
	}
	w.Flush()
	for _, n := range notes {
		fmt.Fprintln(out, n)
	}
}
