package apps

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Params are the values of every app's parameters: one typed field a
// parameter, where its Param points (Param.Field). An app reads the
// fields of the parameters it takes.
type Params struct {
	MaxIter    int     // every app: superstep limit (0: the app's own)
	Damping    float64 // pagerank, pagerank-ldbc
	Tolerance  float64 // pagerank
	Iterations int     // pagerank-ldbc, cdlp
	Precision  string  // pagerank-ldbc: float64 or float32 (pagerank: float64 only)
	PerVertex  bool    // tc
	Delta      float64 // sssp: negative is DefaultDelta
}

// ParamType are the types of parameter values.
type ParamType interface{ int | float64 | string | bool }

// Param is a parameter of one or more apps, its values of type T.
type Param[T ParamType] struct {
	// Name is the flag (--NAME); in JSON the name with '_' for '-'.
	Name    string
	Default T
	Help    string
	// Check says why a value is not one the parameter takes, in a
	// message that shows the value and what was wanted ("1.5: want a
	// number in [0, 1]"); nil takes any.
	Check func(v T) error
	// Field is where the value lives in Params.
	Field func(p *Params) *T
}

// AnyParam is a *Param[T] of any ParamType; a front end switches on the
// type to bind it (a flag, a JSON value).
type AnyParam interface {
	// ParamName is the flag name ("max-iter"), JSONName serve's
	// ("max_iter").
	ParamName() string
	JSONName() string
	// Value is the parameter's value in p.
	Value(p *Params) any
	// SetDefault sets p's value to the default.
	SetDefault(p *Params)
	// Set parses text as a flag would, checks it and sets p's value.
	Set(p *Params, text string) error
	check(p *Params) *ParamError
}

func (p *Param[T]) ParamName() string      { return p.Name }
func (p *Param[T]) JSONName() string       { return strings.ReplaceAll(p.Name, "-", "_") }
func (p *Param[T]) Value(prm *Params) any  { return *p.Field(prm) }
func (p *Param[T]) SetDefault(prm *Params) { *p.Field(prm) = p.Default }

func (p *Param[T]) Set(prm *Params, text string) error {
	var v T
	var err error
	switch x := any(&v).(type) {
	case *int:
		if *x, err = strconv.Atoi(text); err != nil {
			err = fmt.Errorf("%q: want an integer", text)
		}
	case *float64:
		if *x, err = strconv.ParseFloat(text, 64); err != nil {
			err = fmt.Errorf("%q: want a number", text)
		}
	case *string:
		*x = text
	case *bool:
		if *x, err = strconv.ParseBool(text); err != nil {
			err = fmt.Errorf("%q: want true or false", text)
		}
	}
	if err == nil && p.Check != nil {
		err = p.Check(v)
	}
	if err != nil {
		return &ParamError{Param: p, Err: err}
	}
	*p.Field(prm) = v
	return nil
}

func (p *Param[T]) check(prm *Params) *ParamError {
	if p.Check == nil {
		return nil
	}
	if err := p.Check(*p.Field(prm)); err != nil {
		return &ParamError{Param: p, Err: err}
	}
	return nil
}

// ParamError is a parameter value an app does not take. Err shows the
// value and what was wanted; a front end names the parameter its way
// (--precision, params.precision).
type ParamError struct {
	Param AnyParam
	Err   error
}

func (e *ParamError) Error() string { return e.Param.ParamName() + ": " + e.Err.Error() }
func (e *ParamError) Unwrap() error { return e.Err }

// Is makes every ParamError an ErrInvalidInput (errors.Is), as the
// library's own checks of the same values are.
func (e *ParamError) Is(target error) bool { return target == ErrInvalidInput }

// invalidParam is the library's error for a value of prm that its check
// refused (err) in a program of app: an ErrInvalidInput and a
// *ParamError, saying the same as the front ends' checks do.
func invalidParam(app string, prm AnyParam, err error) error {
	return fmt.Errorf("%s: %w", app, &ParamError{Param: prm, Err: err})
}

// CommonParams are the parameters every app takes: max-iter.
func CommonParams() []AnyParam { return []AnyParam{paramMaxIter} }

// AllParams are every app's parameters, each once: CommonParams, then
// the apps' in Registry's order.
func AllParams() []AnyParam {
	all := CommonParams()
	for _, a := range registry {
		for _, p := range a.Params {
			if !slices.Contains(all, p) {
				all = append(all, p)
			}
		}
	}
	return all
}

// findParam returns the parameter of a name (flag or JSON spelling), or nil.
func findParam(name string) AnyParam {
	for _, p := range AllParams() {
		if p.ParamName() == name || p.JSONName() == name {
			return p
		}
	}
	return nil
}

// DefaultParams are every parameter at its default.
func DefaultParams() Params {
	var p Params
	for _, prm := range AllParams() {
		prm.SetDefault(&p)
	}
	return p
}

// PageRankLimit is the paper PageRank's superstep limit when max-iter
// sets none: it converges by tolerance, this only bounds a bad tolerance.
const PageRankLimit = 1000

var (
	paramMaxIter = &Param[int]{
		Name: "max-iter", Default: 0,
		Help:  "superstep limit for any algorithm (0: the algorithm's own; the paper's PageRank stops at 1000)",
		Check: func(n int) error { return atLeast(n, 0, "0 (the algorithm's own) or more") },
		Field: func(p *Params) *int { return &p.MaxIter },
	}
	paramDamping = &Param[float64]{
		Name: "damping", Default: 0.85,
		Help:  "PageRank damping factor",
		Check: checkDamping,
		Field: func(p *Params) *float64 { return &p.Damping },
	}
	paramTolerance = &Param[float64]{
		Name: "tolerance", Default: 1e-6,
		Help:  "PageRank (paper variant): a vertex stays active while its rank moves more than this",
		Check: checkTolerance,
		Field: func(p *Params) *float64 { return &p.Tolerance },
	}
	paramIterations = &Param[int]{
		Name: "iterations", Default: 10,
		Help:  "LDBC PageRank (1 or more) and CDLP (0 or more: every vertex keeps its own label): number of iterations",
		Check: checkCDLPIterations,
		Field: func(p *Params) *int { return &p.Iterations },
	}
	paramPrecision = &Param[string]{
		Name: "precision", Default: "float64",
		Help: "LDBC PageRank: float64 or float32 contributions and sums (ranks stay float64; float32 is what GPU peers and cuSPARSE's float SpMV use)",
		Check: func(s string) error {
			if s != "float64" && s != "float32" {
				return fmt.Errorf("%q: want float64 or float32", s)
			}
			return nil
		},
		Field: func(p *Params) *string { return &p.Precision },
	}
	paramPerVertex = &Param[bool]{
		Name: "per-vertex", Default: false,
		Help:  "triangle counting: also count per vertex (written by --out)",
		Field: func(p *Params) *bool { return &p.PerVertex },
	}
	paramDelta = &Param[float64]{
		Name: "delta", Default: -1,
		Help: "sssp: delta-stepping's bucket width on a GPU, where the frontier is small, and 16 times the CPU's (0: Bellman-Ford throughout; default: 16 times the mean edge weight)",
		Check: func(d float64) error {
			if math.IsInf(d, 0) || math.IsNaN(d) || (d < 0 && d != -1) {
				return fmt.Errorf("%g: want -1 (the default), 0 (Bellman-Ford) or a positive bucket width", d)
			}
			return nil
		},
		Field: func(p *Params) *float64 { return &p.Delta },
	}
)

// The checks of the parameters' values, shared by the front ends (Param's
// Check, App.Check) and the programs' Prepare, so that the CLI, serve and
// the library take and refuse the same values with the same words.

func checkDamping(d float64) error {
	if !(d >= 0 && d <= 1) {
		return fmt.Errorf("%g: want a number in [0, 1]", d)
	}
	return nil
}

func checkTolerance(t float64) error {
	if !(t >= 0) || math.IsInf(t, 0) {
		return fmt.Errorf("%g: want a finite number >= 0", t)
	}
	return nil
}

func checkCDLPIterations(n int) error { return atLeast(n, 0, "0 or more") }

// checkLDBCIterations: LDBC PageRank runs a fixed number of iterations,
// at least one (its program is active every superstep, so no iteration
// limit would mean no end).
func checkLDBCIterations(n int) error {
	return atLeast(n, 1, "1 or more (LDBC PageRank runs a fixed number of iterations)")
}

func atLeast(n, lo int, want string) error {
	if n < lo {
		return fmt.Errorf("%d: want %s", n, want)
	}
	return nil
}
