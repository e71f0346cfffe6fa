package pipeline

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/serve/wire"
)

func TestParseLoadOptions(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		in   wire.LoadOptions
		want datasets.Options
	}{
		// The zero value: the defaults.
		{wire.LoadOptions{}, datasets.Options{Seed: 27491095, Relabel: datasets.RelabelAuto}},
		{wire.LoadOptions{Weights: "keep", Seed: 7, Relabel: "none"}, datasets.Options{Seed: 7}},
		{wire.LoadOptions{Weights: "none", Relabel: "degree", Symmetrize: true, KeepLoops: true, KeepDuplicates: true},
			datasets.Options{Weights: datasets.WeightsNone, Seed: 27491095, Relabel: datasets.RelabelDegree, Symmetrize: true, KeepSelfLoops: true, KeepDuplicates: true}},
		{wire.LoadOptions{Weights: "random:1-64"}, datasets.Options{Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 64, Seed: 27491095, Relabel: datasets.RelabelAuto}},
		// The highest weight a float32 holds exactly: 2^24.
		{wire.LoadOptions{Weights: "random:0-16777216"}, datasets.Options{Weights: datasets.WeightsRandom, WeightMax: 1 << 24, Seed: 27491095, Relabel: datasets.RelabelAuto}},
		{wire.LoadOptions{Format: "mtx", Directed: true, Weighted: &yes},
			datasets.Options{Seed: 27491095, Relabel: datasets.RelabelAuto, Input: datasets.Input{Format: datasets.FormatMatrixMarket, Directed: datasets.OverrideYes, Weighted: datasets.OverrideYes}}},
		{wire.LoadOptions{Format: "ldbc", Undirected: true, Weighted: &no},
			datasets.Options{Seed: 27491095, Relabel: datasets.RelabelAuto, Input: datasets.Input{Format: datasets.FormatLDBC, Directed: datasets.OverrideNo, Weighted: datasets.OverrideNo}}},
	}
	for _, c := range cases {
		got, err := ParseLoadOptions(c.in)
		if err != nil || got != c.want {
			t.Errorf("%+v: got %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
}

func TestParseLoadOptionsRefuses(t *testing.T) {
	cases := []struct {
		in        wire.LoadOptions
		api, flag string
	}{
		{wire.LoadOptions{Weights: "random:0-16777217"}, `weights: "random:0-16777217": want random:LO-HI with 0 <= LO <= HI <= 16777216, e.g. random:1-64`,
			`--weights "random:0-16777217": want random:LO-HI with 0 <= LO <= HI <= 16777216, e.g. random:1-64`},
		{wire.LoadOptions{Weights: "random:5-4"}, `weights: "random:5-4": want`, `--weights "random:5-4": want`},
		{wire.LoadOptions{Weights: "random:-1-4"}, `weights: "random:-1-4": want`, `--weights "random:-1-4": want`},
		{wire.LoadOptions{Weights: "heavy"}, `weights: "heavy": want keep, none or random:LO-HI`, `--weights "heavy": want keep, none or random:LO-HI`},
		{wire.LoadOptions{Relabel: "random"}, `relabel: "random": want none, degree or auto`, `--relabel "random": want none, degree or auto`},
		{wire.LoadOptions{Format: "csv"}, `format: "csv": want auto, mtx`, `--format "csv": want auto, mtx`},
		{wire.LoadOptions{Directed: true, Undirected: true}, `undirected: directed and undirected: give one`, `--directed and --undirected: give one`},
	}
	for _, c := range cases {
		_, err := ParseLoadOptions(c.in)
		var oe *OptionError
		if !errors.As(err, &oe) {
			t.Errorf("%+v: got %v, want an *OptionError", c.in, err)
			continue
		}
		if !strings.HasPrefix(oe.Error(), c.api) || !strings.HasPrefix(oe.Flag(), c.flag) {
			t.Errorf("%+v:\n got %q / %q\nwant %q / %q", c.in, oe.Error(), oe.Flag(), c.api, c.flag)
		}
	}
}

// FuzzParseLoadOptions: any options are parsed or refused with an error
// naming the field at fault, never a panic; what is accepted is within
// the rules (random weights in 0 <= LO <= HI <= 2^24, a seed).
func FuzzParseLoadOptions(f *testing.F) {
	f.Add("random:1-64", "auto", "mtx", uint64(0), uint8(0))
	f.Add("keep", "", "", uint64(5), uint8(0xff))
	f.Add("random:0-16777216", "degree", "ldbc-adj", uint64(1), uint8(3))
	f.Add("random:-0-+1", "none", "auto", uint64(1<<63), uint8(0x30))
	f.Fuzz(func(t *testing.T, weights, relabel, format string, seed uint64, bits uint8) {
		o := wire.LoadOptions{Weights: weights, Relabel: relabel, Format: format, Seed: seed,
			Symmetrize: bits&1 != 0, KeepLoops: bits&2 != 0, KeepDuplicates: bits&4 != 0,
			Directed: bits&8 != 0, Undirected: bits&16 != 0}
		if bits&32 != 0 {
			w := bits&64 != 0
			o.Weighted = &w
		}
		opt, err := ParseLoadOptions(o)
		if err != nil {
			oe, ok := err.(*OptionError)
			if !ok || oe.Field == "" || !strings.HasPrefix(oe.Error(), oe.Field+": ") || !strings.HasPrefix(oe.Flag(), "--") {
				t.Fatalf("%+v: error %v (%T) names no field", o, err, err)
			}
			return
		}
		if o.Directed && o.Undirected {
			t.Fatalf("%+v: directed and undirected accepted", o)
		}
		if opt.Seed == 0 || (seed != 0 && opt.Seed != seed) {
			t.Fatalf("seed %d parsed as %d", seed, opt.Seed)
		}
		if opt.Weights == datasets.WeightsRandom {
			if opt.WeightMin < 0 || opt.WeightMin > opt.WeightMax || opt.WeightMax > wire.MaxRandomWeight {
				t.Fatalf("%q parsed as %d-%d", weights, opt.WeightMin, opt.WeightMax)
			}
			lo, hi, _ := strings.Cut(strings.TrimPrefix(weights, "random:"), "-")
			if a, _ := strconv.Atoi(lo); a != opt.WeightMin {
				t.Fatalf("%q: LO parsed as %d", weights, opt.WeightMin)
			}
			if b, _ := strconv.Atoi(hi); b != opt.WeightMax {
				t.Fatalf("%q: HI parsed as %d", weights, opt.WeightMax)
			}
		}
	})
}

// TestRenames: the library's names of the options, as each front end
// names them.
func TestRenames(t *testing.T) {
	flags, fields := Renames(true), Renames(false)
	for lib, want := range map[string][2]string{
		"Input.Directed":        {"--directed or --undirected", `"directed": true or "undirected": true`},
		"Options.KeepSelfLoops": {"--keep-loops", `"keep_loops"`},
		"Input.Format":          {"--format", `"format"`},
	} {
		if flags[lib] != want[0] || fields[lib] != want[1] {
			t.Errorf("%s: %q and %q, want %q and %q", lib, flags[lib], fields[lib], want[0], want[1])
		}
	}
	if len(flags) != 7 || len(fields) != 7 {
		t.Errorf("%d and %d names, want 7", len(flags), len(fields))
	}
}
