package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/spf13/pflag"
)

// LDBC Graphalytics in run: a graph's .properties gives the parameters
// the user does not (sources, PageRank's damping and iterations: the keys
// each app's apps.LDBC names), and --out-format ldbc writes the "id value"
// lines of LDBC's expected outputs (apps.Result.WriteLDBC), so that they
// compare with LDBC's validation.

const (
	outHPGraph = "hpgraph"
	outLDBC    = "ldbc"
)

// ldbcOutputs lists the algorithms with an LDBC output.
func ldbcOutputs() string {
	return strings.Join(appNames(func(a *apps.App) bool { return a.LDBC.Output }), ", ")
}

// prepareLDBC checks --out-format for alg, and fills the parameters that
// the flags leave unset from the .properties of an LDBC graph at path
// (the keys alg.LDBC names).
func prepareLDBC(fs *pflag.FlagSet, path string, alg *apps.App, lf *loadFlags, p *params, srcText *string) error {
	switch p.outFormat {
	case "", outHPGraph:
	case outLDBC:
		if !alg.LDBC.Output {
			return fmt.Errorf("--out-format ldbc: %s has no LDBC output; %s have", alg.Name, ldbcOutputs())
		}
	default:
		return fmt.Errorf("--out-format %q: want hpgraph or ldbc", p.outFormat)
	}
	props, err := ldbcProperties(path, lf)
	if err != nil || props == nil {
		return err
	}
	if src := alg.LDBC.Source; src != "" && *srcText == "" {
		if v, ok := props.Get(src); ok {
			if _, _, err := props.Int(src); err != nil {
				return err
			}
			*srcText = v
		}
	}
	for _, lp := range alg.LDBC.Params {
		if err := ldbcParam(fs, props, alg.Param(lp.Param), lp.Key, &p.Params); err != nil {
			return err
		}
	}
	return nil
}

// ldbcParam sets prm from the property key unless its flag was given.
func ldbcParam(fs *pflag.FlagSet, props *datasets.LDBCProperties, prm apps.AnyParam, key string, p *apps.Params) error {
	if prm == nil {
		return fmt.Errorf("LDBC property %s names no parameter of the algorithm", key)
	}
	var text string
	switch prm.(type) {
	case *apps.Param[int]:
		n, ok, err := props.Int(key)
		if err != nil || !ok {
			return err
		}
		text = strconv.FormatInt(n, 10)
	case *apps.Param[float64]:
		f, ok, err := props.Float(key)
		if err != nil || !ok {
			return err
		}
		text = strconv.FormatFloat(f, 'g', -1, 64)
	default:
		v, ok := props.Get(key)
		if !ok {
			return nil
		}
		text = v
	}
	if fs.Changed(prm.ParamName()) {
		return nil
	}
	if err := prm.Set(p, text); err != nil {
		var pe *apps.ParamError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("%s: %s: %w", props.File, props.Key(key), err)
	}
	return nil
}

// ldbcProperties reads the .properties of the LDBC graph that path names,
// or returns nil when path names none or it has none.
func ldbcProperties(path string, lf *loadFlags) (*datasets.LDBCProperties, error) {
	in, err := lf.input()
	if err != nil || datasets.LDBCFormat(path, in) != datasets.FormatLDBC {
		return nil, err
	}
	files, err := datasets.FindLDBCFiles(path)
	if err != nil || files.Properties == "" {
		// (loading says what is missing)
		return nil, nil
	}
	return datasets.ReadLDBCProperties(files.Properties)
}
