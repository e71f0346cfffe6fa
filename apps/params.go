package apps

import (
	"fmt"
	"strconv"
	"strings"
)

// Params are the values of every app's parameters, as a Request carries
// them; an app reads those it takes. The parameters the apps had first
// have a typed field here (Param.Field: their apps read req.Damping); a
// parameter declared since, in its app's folder alone, has none, and its
// value is kept beside the fields (Param.Get, Param.SetValue). (One
// struct for all apps: the front ends bind it once, by the parameters'
// declarations, and serve's JSON is its values.)
//
// A Params is a value: a copy (a Request's, DefaultParams' result) holds
// its own values, the declared ones too, and setting one in a copy
// changes no other.
type Params struct {
	MaxIter    int     // every app: superstep limit (0: the app's own)
	Damping    float64 // pagerank, pagerank-ldbc
	Tolerance  float64 // pagerank
	Iterations int     // pagerank-ldbc, cdlp
	Precision  string  // pagerank-ldbc: float64 or float32 (pagerank: float64 only)
	PerVertex  bool    // tc
	Delta      float64 // sssp: negative is DefaultDelta

	// declared are the values of the parameters with no field.
	declared declaredValues
}

// declaredValues are the values of parameters with no field of Params,
// one entry a parameter set. It is copied on write, never changed in
// place: copies of a Params share its entries, and a value set in one
// copy is seen in that copy alone, as a field's is. (A map would be
// shared by the copies, and set in one, changed in all.)
type declaredValues []declaredValue

type declaredValue struct {
	param AnyParam
	value any
}

// get is prm's value, or nil where none was set.
func (d declaredValues) get(prm AnyParam) any {
	for _, e := range d {
		if e.param == prm {
			return e.value
		}
	}
	return nil
}

// with is d with prm's value v: a new slice, d unchanged.
func (d declaredValues) with(prm AnyParam, v any) declaredValues {
	out := make(declaredValues, 0, len(d)+1)
	for _, e := range d {
		if e.param != prm {
			out = append(out, e)
		}
	}
	return append(out, declaredValue{prm, v})
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
	// Field, where set, is the value's field in Params: the parameters
	// the apps had first have one. A parameter declared since has none
	// (nil): its value is kept in Params beside the fields, where Get
	// and SetValue reach it, so that it needs no edit outside its app's
	// folder.
	Field func(p *Params) *T
}

// Get is the parameter's value in prm: its field, or where it has none
// the value set (SetValue, Set, SetDefault), or T's zero value, as a
// field's is in a zero Params.
func (p *Param[T]) Get(prm *Params) T {
	if p.Field != nil {
		return *p.Field(prm)
	}
	v, _ := prm.declared.get(p).(T)
	return v
}

// SetValue sets the parameter's value in prm to v, unchecked (as setting
// its field would).
func (p *Param[T]) SetValue(prm *Params, v T) {
	if p.Field != nil {
		*p.Field(prm) = v
		return
	}
	prm.declared = prm.declared.with(p, v)
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
func (p *Param[T]) Value(prm *Params) any  { return p.Get(prm) }
func (p *Param[T]) SetDefault(prm *Params) { p.SetValue(prm, p.Default) }

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
	p.SetValue(prm, v)
	return nil
}

func (p *Param[T]) check(prm *Params) *ParamError {
	if p.Check == nil {
		return nil
	}
	if err := p.Check(p.Get(prm)); err != nil {
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
