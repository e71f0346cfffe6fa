package main

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/internal/pipeline"
	"github.com/hpgraph/hpgraph/serve/wire"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/spf13/pflag"
)

// loadFlags are the graph-cleaning options every command that reads a
// graph takes: the server's load options (wire.LoadOptions) bound to
// flags, parsed by the parser every front end shares
// (pipeline.ParseLoadOptions).
type loadFlags struct {
	wire.LoadOptions
	weighted string // --weighted's text: "", true or false
}

func (l *loadFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&l.Symmetrize, "symmetrize", false, "treat a directed input as undirected")
	fs.BoolVar(&l.KeepLoops, "keep-loops", false, "keep self loops (default: drop them, as GAP does)")
	fs.BoolVar(&l.KeepDuplicates, "keep-duplicates", false, "keep duplicate edges (default: merge them, keeping the lightest)")
	fs.StringVar(&l.Weights, "weights", "keep", fmt.Sprintf("edge weights: keep (from the file), none, or random:LO-HI (uniform integers in 0 <= LO <= HI <= %d, seeded)", wire.MaxRandomWeight))
	fs.Uint64Var(&l.Seed, "seed", wire.DefaultSeed, "seed for --weights random (0: the default)")
	fs.StringVar(&l.Format, "format", "auto", "input format: auto (by content and name: .v/.e/.properties is an LDBC graph), mtx, edgelist, hpg, ldbc (GRAPH names NAME.v, NAME.e or NAME), ldbc-adj (an LDBC adjacency list) or gap (a GAP serialized graph, .sg or .wsg)")
	fs.BoolVar(&l.Directed, "directed", false, "LDBC graphs: the edges are arcs (over the .properties)")
	fs.BoolVar(&l.Undirected, "undirected", false, "LDBC graphs: each edge is undirected, listed once (over the .properties)")
	fs.StringVar(&l.weighted, "weighted", "", "LDBC graphs: the edge file's third column is the weight (--weighted=false: it has none), over the .properties")
	fs.Lookup("weighted").NoOptDefVal = "true"
	fs.StringVar(&l.Relabel, "relabel", "auto", "renumber vertices after cleaning (part of loading): degree (by decreasing degree: locality for skewed graphs), none, or auto (degree when the degrees are skewed and it pays: always in bench and serve, where the graph stays loaded; in run only for triangle counting on the CPU); ids in --src and output stay the file's")
}

// wireOptions are the flags as the server's load options (those of POST
// /v1/graphs and of the Go client).
func (l *loadFlags) wireOptions() (wire.LoadOptions, error) {
	o := l.LoadOptions
	switch l.weighted {
	case "":
		o.Weighted = nil
	case "true", "false":
		w := l.weighted == "true"
		o.Weighted = &w
	default:
		return o, fmt.Errorf("--weighted=%s: want true or false", l.weighted)
	}
	return o, nil
}

// options are the flags as the library's options, parsed as every front
// end parses them; an error names the flag at fault.
func (l *loadFlags) options() (datasets.Options, error) {
	o, err := l.wireOptions()
	if err != nil {
		return datasets.Options{}, err
	}
	opt, err := pipeline.ParseLoadOptions(o)
	if oe, ok := err.(*pipeline.OptionError); ok {
		return opt, errors.New(oe.Flag())
	}
	return opt, err
}

// input is how to read files that do not say (--format, --directed,
// --undirected, --weighted).
func (l *loadFlags) input() (datasets.Input, error) {
	opt, err := l.options()
	return opt.Input, err
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
	r, _ := datasets.ParseRelabeling(l.Relabel)
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

// load reads a graph through the pipeline's load, clean and relabel
// (renumbering on backend's device where it is one, interleaved over
// parts: vertexprog.PartsOf the runs' options) with a progress indicator.
func (l *loadFlags) load(path, backend string, parts int) (*pipeline.Loaded, error) {
	opt, err := l.options()
	if err != nil {
		return nil, err
	}
	pr := newProgress("loading " + path)
	ld, err := pipeline.Read(pipeline.File(path, pr.bytes), opt)
	pr.done()
	if err != nil {
		return nil, err
	}
	ld.Parts = parts
	ld.Relabel(ld.Want, backend)
	return ld, nil
}

// read loads a graph in the file's order (the renumbering, --relabel, is
// the caller's: order, then Loaded.Relabel).
func (l *loadFlags) read(path string) (*pipeline.Loaded, error) {
	opt, err := l.options()
	if err != nil {
		return nil, err
	}
	pr := newProgress("loading " + path)
	defer pr.done()
	return pipeline.Read(pipeline.File(path, pr.bytes), opt)
}

// order is the vertex order --relabel asks of g: auto renumbers skewed
// graphs only where worth says so.
func (l *loadFlags) order(g *datasets.Graph, worth bool) datasets.Relabeling {
	r, _ := datasets.ParseRelabeling(l.Relabel)
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
