package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/registry"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/internal/pipeline"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/spf13/pflag"
)

// The algorithms are apps' registry (registry.Apps): their names, help,
// parameters (flags), sources, outputs and references come from there.

// params are the algorithm parameters of run, verify and bench: the apps'
// (apps.Params, each bound to its flag) and the source.
type params struct {
	apps.Params
	src       int64 // in the file's ids; -1 picks the highest-degree vertex
	srcSet    bool  // srcVertex holds the source, resolved already (run's batches of queries)
	srcVertex int32
	batch     *sharedBatch // run's batch of queries (--src with several sources), or nil
	outFormat string       // run's --out-format: hpgraph ("") or ldbc
}

// sharedBatch is what the queries of one batch share: an app keeps its
// arrays in the scratch for the next query (BFS writes each answer into
// the arrays of the one before: the CLI is done with it), and with no
// --out or --validate an answer is its summary, so the device keeps the
// per-vertex state (apps.NeedSummary).
type sharedBatch struct {
	scratch     apps.Scratch
	summaryOnly bool
}

// outcome is one algorithm run, with what the CLI prints, writes and checks.
type outcome struct {
	run     runStats
	summary string
	// write prints one line per vertex, with the file's original ids, in
	// the format --out-format asks for.
	write func(w io.Writer) error
	// check compares with the gonum reference.
	check func() error
}

// runStats is the part of vertexprog.Result that does not depend on X.
type runStats = apps.Stats

// findAlgorithm finds run's and verify's algorithm by name.
func findAlgorithm(name string) (*apps.App, error) { return registry.Find(name) }

// runApp runs app a on g with the parameters p.
func runApp(a *apps.App, g *vertexprog.Graph, p params, opt vertexprog.Options) (*outcome, error) {
	req := apps.Request{Params: p.Params}
	if a.Source {
		src, err := p.source(g.Dataset())
		if err != nil {
			return nil, err
		}
		req.Source = src
	}
	if p.batch != nil {
		req.Scratch = &p.batch.scratch
		if p.batch.summaryOnly {
			req.Need = apps.NeedSummary
		}
	}
	res, err := pipeline.Run(a, g, req, opt)
	if err != nil {
		return nil, flagError(err)
	}
	o := &outcome{run: res.Stats, summary: res.Summary, write: res.WriteText, check: res.Check}
	if p.outFormat == outLDBC {
		o.write = res.WriteLDBC
	}
	return o, nil
}

// flagError names a parameter the app refused by its flag.
func flagError(err error) error {
	var pe *apps.ParamError
	if errors.As(err, &pe) {
		return fmt.Errorf("--%s %w", pe.Param.ParamName(), pe.Err)
	}
	return err
}

// checkParamFlags refuses the algorithm flags given (fs's changed ones)
// that none of the apps to run takes (run bfs --damping 0.5 ran and said
// nothing, where serve refuses the parameter).
func checkParamFlags(fs *pflag.FlagSet, selected []*apps.App) error {
	names := make([]string, len(selected))
	for i, a := range selected {
		names[i] = a.Name
	}
	for _, prm := range registry.AllParams() {
		name := prm.ParamName()
		if f := fs.Lookup(name); f == nil || !f.Changed {
			continue
		}
		if !slices.ContainsFunc(selected, func(a *apps.App) bool { return a.Takes(name) }) {
			if len(selected) == 1 {
				return fmt.Errorf("--%s: %s takes no --%s (it takes %s)", name, selected[0].Name, name, flagList(selected[0]))
			}
			return fmt.Errorf("--%s: none of %s takes it", name, andList(names))
		}
	}
	return nil
}

// flagList names the flags of a's parameters, --src first for a Source
// app.
func flagList(a *apps.App) string {
	var flags []string
	if a.Source {
		flags = append(flags, "--src")
	}
	for _, p := range a.AllParams() {
		flags = append(flags, "--"+p.ParamName())
	}
	return andList(flags)
}

// registerParams registers every app's parameters as flags bound to p.
func registerParams(fs *pflag.FlagSet, p *apps.Params) { bindParams(fs, p, registry.AllParams()) }

// bindParams registers the parameters prms as flags bound to p, each by
// its type as pflag binds a variable of that type.
func bindParams(fs *pflag.FlagSet, p *apps.Params, prms []apps.AnyParam) {
	for _, prm := range prms {
		switch x := prm.(type) {
		case *apps.Param[int]:
			bindParam(fs, x, p, (*pflag.FlagSet).IntVar)
		case *apps.Param[float64]:
			bindParam(fs, x, p, (*pflag.FlagSet).Float64Var)
		case *apps.Param[string]:
			bindParam(fs, x, p, (*pflag.FlagSet).StringVar)
		case *apps.Param[bool]:
			bindParam(fs, x, p, (*pflag.FlagSet).BoolVar)
		default:
			panic(fmt.Sprintf("parameter %s: no flag for %T", prm.ParamName(), prm))
		}
	}
}

// bindParam registers prm's flag by typed (fs.IntVar, ...): bound to its
// field of p where it has one; where it has none (a parameter declared in
// its app's folder alone), to a variable of its own whose every value
// pflag takes is then set in p, so that it parses, shows its default and
// help, and refuses a bad value as a field's flag does.
func bindParam[T apps.ParamType](fs *pflag.FlagSet, prm *apps.Param[T], p *apps.Params, typed func(fs *pflag.FlagSet, v *T, name string, def T, help string)) {
	if prm.Field != nil {
		typed(fs, prm.Field(p), prm.Name, prm.Default, prm.Help)
		return
	}
	own := pflag.NewFlagSet(prm.Name, pflag.ContinueOnError)
	v := new(T)
	typed(own, v, prm.Name, prm.Default, prm.Help)
	f := own.Lookup(prm.Name)
	f.Value = declaredFlag{Value: f.Value, set: func() { prm.SetValue(p, *v) }}
	prm.SetDefault(p)
	fs.AddFlag(f)
}

// declaredFlag is the flag of a parameter with no field of apps.Params:
// pflag's own value of its type, which parses it, and set, which copies
// what that took into the parameters. (The flag keeps what pflag gave
// it: a bool's --NAME alone means true. The help knows its type by
// Type(), and a zero default, which it leaves out, by the text alone: a
// string parameter whose default is "0" or "false" shows none.)
type declaredFlag struct {
	pflag.Value
	set func()
}

func (f declaredFlag) Set(text string) error {
	if err := f.Value.Set(text); err != nil {
		return err
	}
	f.set()
	return nil
}

// paramsJSON are p's parameters under their JSON names, and src.
func paramsJSON(p params) map[string]any { return paramValues(p, registry.AllParams()) }

// paramValues are p's values of prms under their JSON names, and src.
func paramValues(p params, prms []apps.AnyParam) map[string]any {
	m := map[string]any{"src": p.src}
	for _, prm := range prms {
		m[prm.JSONName()] = prm.Value(&p.Params)
	}
	return m
}

// resolveSource maps a source given in the file's ids to a vertex, or picks
// the vertex of highest out-degree (lowest id on ties) when none is given
// (pipeline.Vertex).
func resolveSource(g *datasets.Graph, id int64) (int32, error) { return pipeline.Vertex(g, id) }

// source is the source vertex of a Source app in d.
func (p params) source(d *datasets.Graph) (int32, error) {
	if p.srcSet {
		return p.srcVertex, nil
	}
	return resolveSource(d, p.src)
}

// appNames are the names of the apps that keep says yes to.
func appNames(keep func(a *apps.App) bool) []string {
	var names []string
	for _, a := range registry.Apps() {
		if keep(a) {
			names = append(names, a.Name)
		}
	}
	return names
}

// andList joins names as "a, b and c".
func andList(names []string) string {
	if n := len(names); n > 1 {
		return strings.Join(names[:n-1], ", ") + " and " + names[n-1]
	}
	return strings.Join(names, "")
}
