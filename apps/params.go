package apps

import (
	"fmt"
	"strconv"
	"strings"
)

// Params are the values of every app's parameters: one typed field a
// parameter, where its Param points (Param.Field). An app reads the
// fields of the parameters it takes. (One struct for all apps: the front
// ends bind it once, and serve's JSON is its fields.)
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

// InvalidParam is the library's error for a value of prm that its check
// refused (err) in a program of app: an ErrInvalidInput and a
// *ParamError, saying the same as the front ends' checks do.
func InvalidParam(app string, prm AnyParam, err error) error {
	return fmt.Errorf("%s: %w", app, &ParamError{Param: prm, Err: err})
}

// CommonParams are the parameters every app takes: max-iter.
func CommonParams() []AnyParam { return []AnyParam{ParamMaxIter} }

// The parameters apps share: max-iter, which every app takes, and
// iterations (LDBC PageRank's and CDLP's). An app's own are declared in
// its folder.
var (
	ParamMaxIter = &Param[int]{
		Name: "max-iter", Default: 0,
		Help:  "superstep limit for any algorithm (0: the algorithm's own; the paper's PageRank stops at 1000)",
		Check: func(n int) error { return atLeast(n, 0, "0 (the algorithm's own) or more") },
		Field: func(p *Params) *int { return &p.MaxIter },
	}
	ParamIterations = &Param[int]{
		Name: "iterations", Default: 10,
		Help:  "LDBC PageRank (1 or more) and CDLP (0 or more: every vertex keeps its own label): number of iterations",
		Check: func(n int) error { return atLeast(n, 0, "0 or more") },
		Field: func(p *Params) *int { return &p.Iterations },
	}
)

func atLeast(n, lo int, want string) error {
	if n < lo {
		return fmt.Errorf("%d: want %s", n, want)
	}
	return nil
}
