package pipeline

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/serve/wire"
)

// OptionError is a load option that ParseLoadOptions refuses. Its Error
// names the option as the HTTP API does ("weights: ..."), Flag as the
// command line does ("--weights ...").
type OptionError struct {
	Field string // the option at fault, under its JSON name (keep_loops)
	With  string // for two options that exclude each other: the other one
	Msg   string // what is wrong, without the option's name
}

// Error is the message with the option's JSON name.
func (e *OptionError) Error() string {
	if e.With != "" {
		return fmt.Sprintf("%s: %s and %s: %s", e.Field, e.With, e.Field, e.Msg)
	}
	return e.Field + ": " + e.Msg
}

// Flag is the message with the option's flag.
func (e *OptionError) Flag() string {
	if e.With != "" {
		return fmt.Sprintf("%s and %s: %s", FlagName(e.With), FlagName(e.Field), e.Msg)
	}
	return FlagName(e.Field) + " " + e.Msg
}

// FlagName is the command line's flag of the option with JSON name
// field: keep_loops is --keep-loops.
func FlagName(field string) string { return "--" + strings.ReplaceAll(field, "_", "-") }

// ParseLoadOptions is the one parser of load options: every front end's
// (run, bench, verify, gen, serve's flags and its JSON and query
// parameters) turns its load options into the library's with it, under
// one rule. The zero value of a field is its default (wire.LoadOptions);
// a refused option is an *OptionError.
func ParseLoadOptions(o wire.LoadOptions) (datasets.Options, error) {
	opt := datasets.Options{Symmetrize: o.Symmetrize, KeepSelfLoops: o.KeepLoops, KeepDuplicates: o.KeepDuplicates, Seed: o.Seed}
	if opt.Seed == 0 {
		opt.Seed = wire.DefaultSeed
	}
	bad := func(field, format string, args ...any) (datasets.Options, error) {
		return datasets.Options{}, &OptionError{Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	// (datasets' parsers name the option first: "relabel \"x\": want ...")
	named := func(field string, err error) (datasets.Options, error) {
		return bad(field, "%s", strings.TrimPrefix(err.Error(), field+" "))
	}
	relabel := o.Relabel
	if relabel == "" {
		relabel = "auto"
	}
	var err error
	if opt.Relabel, err = datasets.ParseRelabeling(relabel); err != nil {
		return named("relabel", err)
	}
	switch {
	case o.Weights == "" || o.Weights == "keep":
	case o.Weights == "none":
		opt.Weights = datasets.WeightsNone
	case strings.HasPrefix(o.Weights, "random:"):
		lo, hi, ok := strings.Cut(strings.TrimPrefix(o.Weights, "random:"), "-")
		a, err1 := strconv.Atoi(lo)
		b, err2 := strconv.Atoi(hi)
		if !ok || err1 != nil || err2 != nil || a < 0 || a > b || b > wire.MaxRandomWeight {
			return bad("weights", "%q: want random:LO-HI with 0 <= LO <= HI <= %d, e.g. random:1-64", o.Weights, wire.MaxRandomWeight)
		}
		opt.Weights, opt.WeightMin, opt.WeightMax = datasets.WeightsRandom, a, b
	default:
		return bad("weights", "%q: want keep, none or random:LO-HI", o.Weights)
	}
	if o.Format != "" {
		if opt.Input.Format, err = datasets.ParseFormat(o.Format); err != nil {
			return named("format", err)
		}
	}
	switch {
	case o.Directed && o.Undirected:
		return datasets.Options{}, &OptionError{Field: "undirected", With: "directed", Msg: "give one"}
	case o.Directed:
		opt.Input.Directed = datasets.OverrideYes
	case o.Undirected:
		opt.Input.Directed = datasets.OverrideNo
	}
	if o.Weighted != nil {
		opt.Input.Weighted = datasets.OverrideNo
		if *o.Weighted {
			opt.Input.Weighted = datasets.OverrideYes
		}
	}
	return opt, nil
}

// libraryNames are the load options the library's errors name
// (datasets.RenameOptions), each with its JSON names: the two of
// Input.Directed are the options that set it.
var libraryNames = map[string][]string{
	"Input.Directed":         {"directed", "undirected"},
	"Input.Weighted":         {"weighted"},
	"Input.Format":           {"format"},
	"Options.Symmetrize":     {"symmetrize"},
	"Options.KeepDuplicates": {"keep_duplicates"},
	"Options.KeepSelfLoops":  {"keep_loops"},
	"Options.Weights":        {"weights"},
}

// Renames are the names the library's errors give the load options, as
// the command line's flags (flags) or the API's fields name them: for
// datasets.RenameOptions.
func Renames(flags bool) map[string]string {
	m := make(map[string]string, len(libraryNames))
	for lib, fields := range libraryNames {
		names := make([]string, len(fields))
		for i, f := range fields {
			switch {
			case flags:
				names[i] = FlagName(f)
			case len(fields) > 1: // (booleans, one of which sets the option)
				names[i] = fmt.Sprintf("%q: true", f)
			default:
				names[i] = fmt.Sprintf("%q", f)
			}
		}
		m[lib] = strings.Join(names, " or ")
	}
	return m
}
