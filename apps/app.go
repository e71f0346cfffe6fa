package apps

import (
	"fmt"

	"github.com/hpgraph/hpgraph/vertexprog"
)

// App is a built-in app as the front ends run it: each app's folder
// declares one (bfs.App, ...), and package apps/registry lists them.
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
	// Answer runs the app on g: what Run does once it has checked the
	// request.
	Answer func(g *vertexprog.Graph, req Request, opt vertexprog.Options) (*Result, error)
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
type Setting struct {
	Param AnyParam
	Value string
}

// Apply sets v's parameters in p.
func (v Variant) Apply(p *Params) error {
	for _, s := range v.Set {
		if err := s.Param.Set(p, s.Value); err != nil {
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

// DefaultParams are the app's parameters at their defaults (the other
// apps' fields zero).
func (a *App) DefaultParams() Params {
	var p Params
	for _, prm := range a.AllParams() {
		prm.SetDefault(&p)
	}
	return p
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
	if err := CheckGraph(g); err != nil {
		return nil, err
	}
	if err := a.CheckParams(&req.Params); err != nil {
		return nil, err
	}
	if a.Source {
		if err := CheckSource(g, req.Source); err != nil {
			return nil, err
		}
	}
	opt.MaxIterations = req.MaxIter
	return a.Answer(g, req, opt)
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
