package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/spf13/pflag"
)

// loadFlags are the graph-cleaning options every command that reads a
// graph takes.
type loadFlags struct {
	symmetrize, keepLoops, keepDups bool
	weights, relabel                string
	seed                            uint64
	// How to read files that do not say (LDBC graphs), or a forced format.
	format, weighted     string
	directed, undirected bool
}

func (l *loadFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&l.symmetrize, "symmetrize", false, "treat a directed input as undirected")
	fs.BoolVar(&l.keepLoops, "keep-loops", false, "keep self loops (default: drop them, as GAP does)")
	fs.BoolVar(&l.keepDups, "keep-duplicates", false, "keep duplicate edges (default: merge them, keeping the lightest)")
	fs.StringVar(&l.weights, "weights", "keep", "edge weights: keep (from the file), none, or random:LO-HI (uniform integers, seeded)")
	fs.Uint64Var(&l.seed, "seed", 27491095, "seed for --weights random")
	fs.StringVar(&l.format, "format", "auto", "input format: auto (by content and name: .v/.e/.properties is an LDBC graph), mtx, edgelist, hpg, ldbc (GRAPH names NAME.v, NAME.e or NAME) or ldbc-adj (an LDBC adjacency list)")
	fs.BoolVar(&l.directed, "directed", false, "LDBC graphs: the edges are arcs (over the .properties)")
	fs.BoolVar(&l.undirected, "undirected", false, "LDBC graphs: each edge is undirected, listed once (over the .properties)")
	fs.StringVar(&l.weighted, "weighted", "", "LDBC graphs: the edge file's third column is the weight (--weighted=false: it has none), over the .properties")
	fs.Lookup("weighted").NoOptDefVal = "true"
	fs.StringVar(&l.relabel, "relabel", "auto", "renumber vertices after cleaning (part of loading): degree (by decreasing degree: locality for skewed graphs), none, or auto (degree when the degrees are skewed and it pays: always in bench, where the graph stays loaded; in run only for triangle counting on the CPU); ids in --src and output stay the file's")
}

func (l *loadFlags) options() (datasets.Options, error) {
	o := datasets.Options{Symmetrize: l.symmetrize, KeepSelfLoops: l.keepLoops, KeepDuplicates: l.keepDups, Seed: l.seed}
	var err error
	if o.Relabel, err = datasets.ParseRelabeling(l.relabel); err != nil {
		return o, fmt.Errorf("--%w", err)
	}
	if o.Input, err = l.input(); err != nil {
		return o, err
	}
	switch {
	case l.weights == "keep":
	case l.weights == "none":
		o.Weights = datasets.WeightsNone
	case strings.HasPrefix(l.weights, "random:"):
		lo, hi, ok := strings.Cut(strings.TrimPrefix(l.weights, "random:"), "-")
		a, err1 := strconv.Atoi(lo)
		b, err2 := strconv.Atoi(hi)
		if !ok || err1 != nil || err2 != nil || a < 0 || a > b {
			return o, fmt.Errorf("--weights %q: want random:LO-HI with 0 <= LO <= HI, e.g. random:1-64", l.weights)
		}
		o.Weights, o.WeightMin, o.WeightMax = datasets.WeightsRandom, a, b
	default:
		return o, fmt.Errorf("--weights %q: want keep, none or random:LO-HI", l.weights)
	}
	return o, nil
}

// input is how to read files that do not say (--format, --directed,
// --undirected, --weighted).
func (l *loadFlags) input() (datasets.Input, error) {
	var in datasets.Input
	var err error
	if l.format != "" {
		if in.Format, err = datasets.ParseFormat(l.format); err != nil {
			return in, fmt.Errorf("--%w", err)
		}
	}
	switch {
	case l.directed && l.undirected:
		return in, fmt.Errorf("--directed and --undirected: give one")
	case l.directed:
		in.Directed = datasets.OverrideYes
	case l.undirected:
		in.Directed = datasets.OverrideNo
	}
	switch l.weighted {
	case "":
	case "true":
		in.Weighted = datasets.OverrideYes
	case "false":
		in.Weighted = datasets.OverrideNo
	default:
		return in, fmt.Errorf("--weighted=%s: want true or false", l.weighted)
	}
	return in, nil
}

// checkInputs checks that every graph file of paths can be opened (an
// LDBC graph: its files found), before a command spends time on the
// first: the errors of all that cannot, joined.
func checkInputs(paths []string, l *loadFlags) error {
	in, err := l.input()
	if err != nil {
		return err
	}
	var errs []error
	for _, p := range paths {
		if datasets.LDBCFormat(p, in) != datasets.FormatAuto {
			if _, err := datasets.FindLDBCFiles(p); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		f, err := datasets.Open(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		f.Close()
	}
	return errors.Join(errs...)
}

// describeOrder describes the vertex order that loading gave g (--relabel).
func (l *loadFlags) describeOrder(g *datasets.Graph) string {
	r, _ := datasets.ParseRelabeling(l.relabel)
	switch {
	case r == datasets.RelabelDegree:
		return "by decreasing degree (--relabel degree)"
	case r == datasets.RelabelAuto && r.Resolve(g) == datasets.RelabelDegree:
		return "by decreasing degree (--relabel auto: the degrees are skewed)"
	case r == datasets.RelabelAuto:
		return "the file's (--relabel auto: the degrees are not skewed)"
	}
	return "the file's (--relabel none)"
}

// load reads a graph with a progress indicator and reports the time taken.
func (l *loadFlags) load(path string) (*datasets.Graph, time.Duration, error) {
	opt, err := l.options()
	if err != nil {
		return nil, 0, err
	}
	t0 := time.Now()
	pr := newProgress("loading " + path)
	g, err := datasets.Load(path, opt, datasets.WithProgress(pr.bytes))
	pr.done()
	return g, time.Since(t0), err
}

// read loads a graph in the file's order (the renumbering, --relabel, is
// the caller's: order) and reports the time taken.
func (l *loadFlags) read(path string) (*datasets.Graph, time.Duration, error) {
	opt, err := l.options()
	if err != nil {
		return nil, 0, err
	}
	opt.Relabel = datasets.RelabelNone
	t0 := time.Now()
	pr := newProgress("loading " + path)
	g, err := datasets.Load(path, opt, datasets.WithProgress(pr.bytes))
	pr.done()
	return g, time.Since(t0), err
}

// order is the vertex order --relabel asks of g: auto renumbers skewed
// graphs only where worth says so.
func (l *loadFlags) order(g *datasets.Graph, worth bool) datasets.Relabeling {
	r, _ := datasets.ParseRelabeling(l.relabel)
	if r == datasets.RelabelAuto && !worth {
		return datasets.RelabelNone
	}
	return r.Resolve(g)
}

// answerRelabel says whether renumbering a skewed graph by degree pays
// for a single answer of alg on backend: the renumbering costs ~150 ms
// (16 cores) to ~500 ms (2 cores) on kron20-21, and saves more than that
// only for the apps that say so (apps.App.RelabelPays: triangle counting,
// seconds) on the CPU; on a GPU it saves at most ~35 ms of any app
// (docs/perf/time-to-answer.md#from-the-file-to-the-answer-on-the-gpu, row
// e). A graph that stays loaded (bench) is renumbered whenever skewed.
func answerRelabel(alg *apps.App, backend string) bool {
	return alg.RelabelPays && onCPU(backend)
}

// onCPU says whether runs on backend go to the CPU: cpu, or auto where no
// device backend can run.
func onCPU(backend string) bool {
	return backend == "cpu" || (backend == "auto" && len(vertexprog.Backends()) == 1)
}

// progress reports long work on stderr: on a terminal a line redrawn
// every second once the work has taken one, in a pipe or a log a line
// every progressEvery, so that a long gen or load is never silent. The
// work updates what it is doing (bytes, tick); a goroutine prints it.
type progress struct {
	label string
	start time.Time
	tty   bool
	stop  chan struct{}
	ended chan struct{}

	mu     sync.Mutex
	status string
	drawn  bool
}

// progressEvery is how often progress prints a line where stderr is not a
// terminal.
const progressEvery = 5 * time.Second

func newProgress(label string) *progress {
	fi, err := os.Stderr.Stat()
	p := &progress{label: label, start: time.Now(), tty: err == nil && fi.Mode()&os.ModeCharDevice != 0,
		stop: make(chan struct{}), ended: make(chan struct{})}
	every := progressEvery
	if p.tty {
		every = time.Second
	}
	go p.report(every)
	return p
}

func (p *progress) report(every time.Duration) {
	defer close(p.ended)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			line := fmt.Sprintf("%s: %s(%.0fs)", p.label, p.status, time.Since(p.start).Seconds())
			if p.tty {
				fmt.Fprintf(os.Stderr, "\r%s\033[K", line)
				p.drawn = true
			} else {
				fmt.Fprintln(os.Stderr, line)
			}
			p.mu.Unlock()
		}
	}
}

func (p *progress) set(status string) {
	p.mu.Lock()
	p.status = status
	p.mu.Unlock()
}

// bytes reports how far the reading of a file has got (datasets.Progress).
func (p *progress) bytes(read, total int64) {
	if total > 0 {
		p.set(fmt.Sprintf("%3.0f%% (%s of %s) ", 100*float64(read)/float64(total), mib(read), mib(total)))
	} else {
		p.set(mib(read) + " ")
	}
}

// tick reports progress of work without a byte count.
func (p *progress) tick(what string) { p.set(what + " ") }

// done stops the reports and clears a terminal's line.
func (p *progress) done() {
	close(p.stop)
	<-p.ended
	if p.drawn {
		fmt.Fprint(os.Stderr, "\r\033[K")
	}
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
