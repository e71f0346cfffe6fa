package apps

import (
	"fmt"
	"io"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/hpgraph/hpgraph/vertexprog"
)

// registry is every built-in app, in the order the front ends list them
// (see the package comment). Each is declared once, in its app_*.go.
var registry = []*App{appBFS, appSSSP, appPageRank, appPageRankLDBC, appTC, appCC, appLCC, appCDLP}

// Registry returns the built-in apps in the order the front ends list them.
func Registry() []*App { return slices.Clone(registry) }

// Names returns the apps' names, in Registry's order.
func Names() []string {
	names := make([]string, len(registry))
	for i, a := range registry {
		names[i] = a.Name
	}
	return names
}

// Lookup returns the app of a name or an alias, or nil.
func Lookup(name string) *App {
	for _, a := range registry {
		if a.Name == name || slices.Contains(a.Aliases, name) {
			return a
		}
	}
	return nil
}

// Find is Lookup with an error that lists the apps.
func Find(name string) (*App, error) {
	if a := Lookup(name); a != nil {
		return a, nil
	}
	return nil, fmt.Errorf("unknown algorithm %q; want one of %s", name, strings.Join(Names(), ", "))
}

// App is a built-in app as the front ends run it: see the registry.
type App struct {
	// Name is the app's name on the command line and in serve's "algo";
	// Aliases are other names that find it.
	Name    string
	Aliases []string
	// About is one line for run's and bench's help.
	About string
	// Params are the parameters the app takes besides max-iter, which
	// every app takes (CommonParams).
	Params []AnyParam
	// Check, when set, refuses combinations of parameter values that the
	// parameters' own checks accept (the paper's PageRank in float32).
	Check func(p *Params) *ParamError
	// Source: the app runs from a source vertex (Request.Source), which
	// the front ends take as --src or params.src, the highest-degree
	// vertex by default.
	Source bool
	// Weighted: the app reads edge weights (bench loads its graph with
	// --weights; the others run unweighted).
	Weighted bool
	// Columns name the values of a per-vertex row (Result.Rows), after the
	// vertex's id: serve's NDJSON keys and CSV header.
	Columns []string
	// LDBC is what LDBC Graphalytics has of the app.
	LDBC LDBC
	// Program is a zero program of the app: the edge type of its Spec
	// names the matrix bench reports as traversed, and whether it is a
	// vertexprog.DeviceProgram whether it can run on a device backend.
	Program interface{ Spec() vertexprog.Spec }
	// RelabelPays: renumbering a skewed graph by degree pays for itself in
	// a single answer on the CPU (run's --relabel auto).
	RelabelPays bool
	// Tolerance is the relative tolerance of Check's comparison of float
	// answers with the reference; nil: they compare exactly.
	Tolerance func(p *Params) float64
	// Traffic is bench's lower bound on the bytes a run moves (nil: no
	// model).
	Traffic func(in TrafficIn) Traffic
	// Variants are bench's variants of the app (pagerank-iter).
	Variants []Variant

	run func(g *vertexprog.Graph, req Request, opt vertexprog.Options) (*Result, error)
}

// LDBC is what LDBC Graphalytics has of an app.
type LDBC struct {
	// Output: `run --out-format ldbc` writes LDBC's "id value" lines
	// (Result.WriteLDBC).
	Output bool
	// Source is the .properties key of the source vertex
	// ("bfs.source-vertex"), for Source apps.
	Source string
	// Params are the .properties keys of the app's parameters, which run
	// takes from a graph's .properties where no flag gives them.
	Params []LDBCParam
}

// LDBCParam is a parameter's key in an LDBC graph's .properties.
type LDBCParam struct {
	Param string // the parameter's name (Param.Name)
	Key   string // "pr.damping-factor", after "graph.NAME."
}

// Variant is a variant of an app that bench runs as a row of its own: the
// app with some parameters fixed.
type Variant struct {
	Name, About string
	// Set are the parameters it fixes, as flag values (`hpgraph run APP
	// --NAME VALUE` answers the same).
	Set []Setting
}

// Setting is a parameter's value as a flag gives it.
type Setting struct{ Param, Value string }

// Apply sets v's parameters in p.
func (v Variant) Apply(p *Params) error {
	for _, s := range v.Set {
		prm := findParam(s.Param)
		if prm == nil {
			return fmt.Errorf("%s: no parameter %q", v.Name, s.Param)
		}
		if err := prm.Set(p, s.Value); err != nil {
			return fmt.Errorf("%s: %w", v.Name, err)
		}
	}
	return nil
}

// Takes says whether the app takes the parameter of that name (flag or
// JSON spelling); every app takes max-iter.
func (a *App) Takes(name string) bool { return a.Param(name) != nil }

// Param returns the app's parameter of that name (flag or JSON spelling),
// or nil.
func (a *App) Param(name string) AnyParam {
	for _, p := range a.AllParams() {
		if p.ParamName() == name || p.JSONName() == name {
			return p
		}
	}
	return nil
}

// AllParams are the app's parameters: CommonParams, then its own.
func (a *App) AllParams() []AnyParam {
	return append(CommonParams(), a.Params...)
}

// Device says whether the app has device code: a device backend runs it
// (the others run on the cpu backend only, and auto runs them there).
func (a *App) Device() bool {
	_, ok := a.Program.(vertexprog.DeviceProgram)
	return ok
}

// Edges is the edge type of the app's program: its pull matrix is the one
// bench reports as traversed.
func (a *App) Edges() vertexprog.EdgeType { return a.Program.Spec().Edges }

// CheckParams checks the values of the app's parameters in p: each
// parameter's own check, then the app's.
func (a *App) CheckParams(p *Params) *ParamError {
	for _, prm := range a.AllParams() {
		if err := prm.check(p); err != nil {
			return err
		}
	}
	if a.Check != nil {
		return a.Check(p)
	}
	return nil
}

// Run checks the request's parameters (a *ParamError when one is bad),
// and runs the app on g with opt; opt.MaxIterations is the request's
// MaxIter.
func (a *App) Run(g *vertexprog.Graph, req Request, opt vertexprog.Options) (*Result, error) {
	if err := checkGraph(g); err != nil {
		return nil, err
	}
	if err := a.CheckParams(&req.Params); err != nil {
		return nil, err
	}
	if a.Source {
		if err := checkSource(g, req.Source); err != nil {
			return nil, err
		}
	}
	opt.MaxIterations = req.MaxIter
	return a.run(g, req, opt)
}

// Request is one run of an app.
type Request struct {
	// Params are the parameter values; the app reads those it takes.
	Params
	// Source is the source vertex (an index, 0..N-1) of a Source app.
	Source int32
	// Need says what of the result the caller will read.
	Need Need
	// Scratch, when set, holds what an app keeps from one run for the
	// next of the same caller on the same graph (a BFS's arrays): the
	// per-vertex answer of the run before is then the caller's no more.
	Scratch *Scratch
}

// Need says what of a Result the caller will read.
type Need int

const (
	// NeedAll: the summary, the check and the per-vertex outputs, as the
	// parameters ask for them (run, verify, bench).
	NeedAll Need = iota
	// NeedSummary: the summary only; an app may leave its per-vertex
	// state on the device (vertexprog.Options.SummaryOnly), and Rows,
	// WriteText, WriteLDBC and Check then fail or are nil.
	NeedSummary
	// NeedRows: the per-vertex rows too, which an app then computes even
	// where its parameters would not ask for them (tc's per-vertex).
	NeedRows
)

// Scratch is what an app keeps between the runs of one caller (see
// Request.Scratch); its zero value is empty, and a nil *Scratch lends
// nothing and keeps nothing.
type Scratch struct {
	bfs *BFSResult
	// The per-vertex arrays of the last answers, which the next run writes
	// into instead of fresh memory (a page fault per 4 KB: ~5 ms of a
	// served kron21 PageRank): a PageRank's ranks, and the values
	// (vertexprog.Options.Values) of any app's, one array of each element
	// type ([]float64, []float32, []int32, []int64), so that a caller
	// mixing apps (a server) keeps reusing them instead of dropping one
	// array for another at every change of app.
	ranks  kept
	values []kept
	counts []int32 // cc's component sizes
	// Backend, when a device backend's name (or "auto"), is the backend
	// the scratch's runs use: the arrays it keeps are page-locked for its
	// copies (vertexprog.Pin), which then go by DMA (a served kron21
	// PageRank's 16 MB of ranks: ~1 ms staged; a batch's SSSP distances),
	// and unlocked when they are replaced or the scratch is dropped.
	Backend string
	final   bool // release is set as s's finalizer
}

// kept is an array a Scratch keeps, and the function that unlocks it
// (nil: not locked).
type kept struct {
	array any
	unpin func()
}

// lentValues returns the []T that s keeps (the last answer's values of
// that type), or nil.
func lentValues[T any](s *Scratch) []T {
	if s == nil {
		return nil
	}
	for _, k := range s.values {
		if x, ok := k.array.([]T); ok {
			return x
		}
	}
	return nil
}

// lentRanks returns the ranks s keeps, or nil.
func (s *Scratch) lentRanks() []float64 {
	if s == nil {
		return nil
	}
	x, _ := s.ranks.array.([]float64)
	return x
}

// keep keeps ranks and values (a slice of one of the element types
// above), each when not nil, for the next run, in place of what s kept
// of that kind.
func (s *Scratch) keep(ranks []float64, values any) {
	if s == nil {
		return
	}
	if ranks != nil {
		s.replace(&s.ranks, ranks)
	}
	if values == nil {
		return
	}
	for i := range s.values {
		if reflect.TypeOf(s.values[i].array) == reflect.TypeOf(values) {
			s.replace(&s.values[i], values)
			return
		}
	}
	s.values = append(s.values, kept{})
	s.replace(&s.values[len(s.values)-1], values)
}

// replace puts array in k, page-locked for s.Backend's copies where it
// is a device's, the array k held before unlocked (nothing changes when
// it is the same array). A finalizer unlocks what s keeps when s is
// dropped (it keeps the arrays alive until it has run).
func (s *Scratch) replace(k *kept, array any) {
	if sameArray(k.array, array) {
		return
	}
	k.release()
	k.array = array
	if s.Backend == "" || s.Backend == "cpu" {
		return
	}
	switch x := array.(type) {
	case []float64:
		k.unpin = vertexprog.Pin(s.Backend, x)
	case []float32:
		k.unpin = vertexprog.Pin(s.Backend, x)
	case []int32:
		k.unpin = vertexprog.Pin(s.Backend, x)
	case []int64:
		k.unpin = vertexprog.Pin(s.Backend, x)
	}
	if k.unpin != nil && !s.final {
		s.final = true
		runtime.SetFinalizer(s, (*Scratch).release)
	}
}

// sameArray says whether a and b are the same slice (of one type, the
// same first element and length).
func sameArray(a, b any) bool {
	if a == nil || b == nil || reflect.TypeOf(a) != reflect.TypeOf(b) {
		return false
	}
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	return va.Len() == vb.Len() && (va.Len() == 0 || va.Pointer() == vb.Pointer())
}

func (k *kept) release() {
	if k.unpin != nil {
		k.unpin()
		k.unpin = nil
	}
}

// release unlocks the arrays s keeps, if locked.
func (s *Scratch) release() {
	s.ranks.release()
	for i := range s.values {
		s.values[i].release()
	}
}

// Result is a run's answer, in the forms the front ends give it.
type Result struct {
	Stats Stats
	// Summary is the line `run` prints after "result: " (serve's
	// "summary"); Fields are its values (serve's "result").
	Summary string
	Fields  map[string]any
	// Rows fills one vertex's row: a cell per App.Columns. It is nil
	// where the run kept no per-vertex answer.
	Rows func(v int32, cells []Cell)
	// WriteText writes --out's lines, one per vertex in the file's ids
	// (triangle counting without per-vertex counts: the total).
	WriteText func(w io.Writer) error
	// WriteLDBC writes LDBC Graphalytics' "id value" lines (nil where the
	// app has no LDBC output).
	WriteLDBC func(w io.Writer) error
	// Check compares the answer with the independent reference
	// (apps/reference), to App.Tolerance.
	Check func() error
}

// Cell is a value of a per-vertex row: an integer, or a float when
// IsFloat (+Inf: unreached).
type Cell struct {
	Int     int64
	Float   float64
	IsFloat bool
}

// Stats are the parts of a vertexprog.Result that do not depend on the
// program's value type.
type Stats struct {
	Backend             string
	Iterations          int
	Active              []int
	Directions          []vertexprog.Direction
	StepTimes           []time.Duration
	Preprocess, Compute time.Duration
	Finish, Transfer    time.Duration
	Device, BackendWait time.Duration
	// Parts is what each of a partitioned run's parts did (nil for a
	// whole-graph run).
	Parts []vertexprog.PartStat
}

// statsOf returns r's Stats.
func statsOf[X any](r *vertexprog.Result[X]) Stats {
	return Stats{Backend: r.Backend, Iterations: r.Iterations, Active: r.Active, Directions: r.Directions, StepTimes: r.StepTimes,
		Preprocess: r.Preprocess, Compute: r.Compute, Finish: r.Finish, Transfer: r.Transfer, Device: r.Device, BackendWait: r.BackendWait, Parts: r.Parts}
}

// TrafficIn is what bench knows of a run when it models its traffic.
type TrafficIn struct {
	// Graph is the graph the app ran on.
	Graph *vertexprog.Graph
	// N is its vertices, NNZ the nonzeros of the matrix the app traverses.
	N, NNZ int64
	// Weighted: the run read edge weights.
	Weighted bool
	// Iterations is the run's supersteps (the median of bench's runs).
	Iterations int
}

// Traffic is a lower bound on the bytes a run must move between memory
// and the processor (each input read once, each output written once), and
// the model it comes from. Real traffic is higher (frontier re-reads,
// gathers of x[u] per nonzero, HYB padding), so achieved GB/s against it
// is an efficiency.
type Traffic struct {
	Bytes int64
	Model string
	// OrientedArcs are triangle counting's oriented (lower to higher rank)
	// arcs, which its model counts; 0 for the others.
	OrientedArcs int64
}
