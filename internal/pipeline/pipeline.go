// Package pipeline is the one way every front end (`hpgraph run`,
// `bench`, `verify` and `serve`) answers a query on a graph:
//
//	load      Read: the file (or a generator, an upload) read ...
//	clean     ... and cleaned as the load options say (ParseLoadOptions:
//	          symmetrize, self loops, duplicates, weights), in the
//	          file's vertex order
//	relabel   Loaded.Relabel: renumbered by degree where asked (on the
//	          device where the run goes), timed apart
//	PREPROCESS, run and answer
//	          Run: the app on the engine (vertexprog), which builds or
//	          finds the HYB matrices, runs the supersteps and gives the
//	          answer (apps.Result: summary, per-vertex rows, the check
//	          against the reference), the source in the file's ids
//	          (Vertex)
//
// The front ends keep what is theirs: flags and progress lines, JSON
// bodies and budgets, tables and records.
package pipeline

import (
	"fmt"
	"slices"
	"time"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/internal/phase"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// A Source makes a graph with the cleaning options it is given (their
// relabeling is none: Loaded.Relabel renumbers).
type Source func(opt datasets.Options) (*datasets.Graph, error)

// File is the graph file at path (any format datasets.Load reads);
// progress, when not nil, follows the reading.
func File(path string, progress datasets.Progress) Source {
	return func(opt datasets.Options) (*datasets.Graph, error) {
		var lo []datasets.LoadOption
		if progress != nil {
			lo = append(lo, datasets.WithProgress(progress))
		}
		return datasets.Load(path, opt, lo...)
	}
}

// Loaded is a graph through the pipeline's first stages.
type Loaded struct {
	Data *datasets.Graph
	// Order is the vertex order Relabel gave Data (RelabelDegree or
	// RelabelNone: the file's), Want the one the load options asked for.
	Order, Want datasets.Relabeling
	// ReadTime is reading and cleaning, RelabelTime renumbering.
	ReadTime, RelabelTime time.Duration
	// Parts is how many parts the graph's runs split into
	// (vertexprog.PartsOf; 0 or 1: whole), over which Relabel interleaves
	// the degree order.
	Parts int
}

// Read makes src's graph with opt's cleaning, in the file's order (opt's
// relabeling is kept in Want, for Relabel), and times it.
func Read(src Source, opt datasets.Options) (*Loaded, error) {
	l := &Loaded{Want: opt.Relabel}
	opt.Relabel = datasets.RelabelNone
	t0 := time.Now()
	d, err := src(opt)
	if err != nil {
		return nil, err
	}
	l.Data, l.ReadTime = d, time.Since(t0)
	return l, nil
}

// Relabel renumbers the graph into order r (auto: by degree where the
// degrees are skewed, datasets.Relabeling.Resolve), on backend's device
// where it is one (vertexprog.Relabel), and times it. Ids in sources and
// answers stay the file's.
func (l *Loaded) Relabel(r datasets.Relabeling, backend string) {
	t0 := time.Now()
	l.Order = r.Resolve(l.Data)
	l.Data = vertexprog.Relabel(l.Data, l.Order, backend, l.Parts)
	l.RelabelTime = time.Since(t0)
}

// LoadTime is reading, cleaning and renumbering.
func (l *Loaded) LoadTime() time.Duration { return l.ReadTime + l.RelabelTime }

// Load is Read, then Relabel into the order the load options asked for,
// for runs on backend (interleaved over its devices where its runs split
// into parts: vertexprog.PartsOf).
func Load(src Source, opt datasets.Options, backend string) (*Loaded, error) {
	l, err := Read(src, opt)
	if err != nil {
		return nil, err
	}
	l.Parts = vertexprog.PartsOf(vertexprog.Options{Backend: backend})
	l.Relabel(l.Want, backend)
	return l, nil
}

// Run runs app a on g for req: PREPROCESS (the engine builds, or finds
// kept, the matrices the program runs over), the supersteps, and the
// answer.
func Run(a *apps.App, g *vertexprog.Graph, req apps.Request, opt vertexprog.Options) (*apps.Result, error) {
	// (HPGRAPH_TRACE: the query beside its run's parts, which the
	// engine's line, "vertexprog trace: run", splits further)
	pt := phase.New("pipeline", a.Name)
	res, err := a.Run(g, req, opt)
	if err != nil {
		return nil, err
	}
	pt.Mark("query")
	pt.Add("of which PREPROCESS", res.Stats.Preprocess)
	pt.Add("compute", res.Stats.Compute)
	pt.Add("copy back", res.Stats.Finish)
	pt.Print()
	if req.Need == apps.NeedRows && res.Rows == nil {
		return nil, fmt.Errorf("%s kept no per-vertex answer", a.Name)
	}
	return res, nil
}

// Vertex maps a source given in d's file's ids to its vertex; a negative
// id picks the default, the vertex of highest out-degree (lowest id on
// ties: apps.DefaultSource).
func Vertex(d *datasets.Graph, id int64) (int32, error) {
	if id < 0 {
		return apps.DefaultSource(d), nil
	}
	if d.IDs == nil {
		v := id - d.IDBase
		if v < 0 || v >= int64(d.N) {
			return 0, fmt.Errorf("source %d is not a vertex of %s (ids %d..%d)", id, d.Name, d.IDBase, int64(d.N)-1+d.IDBase)
		}
		return int32(v), nil
	}
	if i, ok := slices.BinarySearch(d.IDs, id); ok {
		return int32(i), nil
	}
	for v, x := range d.IDs {
		if x == id {
			return int32(v), nil
		}
	}
	return 0, fmt.Errorf("source %d is not a vertex of %s", id, d.Name)
}
