package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/apps/registry"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/spf13/pflag"
)

// TestEveryAppThroughTheCLI: every app of the registry (registry.Apps)
// is run's, verify's and bench's, by its name and its aliases, with its
// outputs and its check against the reference, and in their help.
func TestEveryAppThroughTheCLI(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "g.el")
	// Two triangles sharing vertex 3, a tail and an isolated vertex 9.
	if err := os.WriteFile(g, []byte("1 2 4\n2 3 1\n3 1 2\n3 4 5\n4 5 1\n5 3 3\n5 6 2\n6 7 7\n9 9 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const vertices = 8 // (the loop on 9 is dropped, 9 kept: 1..7 and 9)
	lines := func(path string) int {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(string(data), "\n")
	}
	for _, a := range registry.Apps() {
		for _, name := range append([]string{a.Name}, a.Aliases...) {
			out := filepath.Join(dir, name+".txt")
			args := []string{"run", name, g, "--backend", "cpu", "--symmetrize", "--validate", "--out", out}
			if a.Takes("per-vertex") {
				args = append(args, "--per-vertex")
			}
			text, code := hpgraph(t, args...)
			if code != 0 || !strings.Contains(text, "validation: PASS") || !strings.HasPrefix(text, a.Name+" on ") {
				t.Fatalf("run %s: exit %d:\n%s", name, code, text)
			}
			if n := lines(out); n != vertices {
				t.Errorf("run %s: %d lines in --out, want %d", name, n, vertices)
			}
		}
		if a.LDBC.Output {
			out := filepath.Join(dir, a.Name+"-ldbc.txt")
			if text, code := hpgraph(t, "run", a.Name, g, "--backend", "cpu", "--out-format", "ldbc", "--out", out); code != 0 {
				t.Fatalf("run %s --out-format ldbc: exit %d:\n%s", a.Name, code, text)
			}
			if n := lines(out); n != vertices {
				t.Errorf("run %s --out-format ldbc: %d lines, want %d", a.Name, n, vertices)
			}
		} else if text, code := hpgraph(t, "run", a.Name, g, "--out-format", "ldbc"); code == 0 || !strings.Contains(text, "has no LDBC output") {
			t.Errorf("run %s --out-format ldbc: exit %d:\n%s", a.Name, code, text)
		}
	}

	text, code := hpgraph(t, "verify", g, "--backend", "cpu", "--symmetrize")
	if code != 0 || !strings.Contains(text, "all PASS") {
		t.Fatalf("verify: exit %d:\n%s", code, text)
	}
	for _, a := range registry.Apps() {
		if !regexp.MustCompile(`(?m)^\S+\s+` + regexp.QuoteMeta(a.Name) + `\s+cpu\s.*PASS$`).MatchString(text) {
			t.Errorf("verify has no PASS row for %s:\n%s", a.Name, text)
		}
	}

	var want []string
	for _, a := range registry.Apps() {
		want = append(want, a.Name)
		for _, v := range a.Variants {
			want = append(want, v.Name)
		}
	}
	if got := benchAlgoNames(); !slices.Equal(got, want) {
		t.Errorf("bench runs %v, want %v", got, want)
	}
	if b, err := findBenchAlgos("wcc"); err != nil || b[0].name != "cc" {
		t.Errorf("bench --algo wcc: %v, %v", b, err)
	}

	help, _ := hpgraph(t, "run", "--help")
	bench, _ := hpgraph(t, "bench", "--help")
	for _, a := range benchAlgorithms() {
		if a.variant == nil && !strings.Contains(help, a.name) || !strings.Contains(bench, a.about) {
			t.Errorf("%s is missing from the help", a.name)
		}
	}
	for _, p := range registry.AllParams() {
		if !strings.Contains(help, "--"+p.ParamName()) {
			t.Errorf("run's help lacks --%s", p.ParamName())
		}
	}
}

// TestBenchSkipsCPUOnlyApps: on a device backend bench skips the apps
// without device code (apps.App.Device) rather than fail; the others it
// runs (here, with no device, they fail).
func TestBenchSkipsCPUOnlyApps(t *testing.T) {
	var lf loadFlags
	lf.register(pflag.NewFlagSet("bench", pflag.ContinueOnError))
	src, err := parseGraphArg("grid:3x3")
	if err != nil {
		t.Fatal(err)
	}
	bg, err := loadBenchGraph(src, lf, false, "", "cpu", 1)
	if err != nil {
		t.Fatal(err)
	}
	var prm params
	prm.register(pflag.NewFlagSet("p", pflag.ContinueOnError))
	for _, a := range benchAlgorithms() {
		if a.app.Weighted {
			continue
		}
		r := benchOne(bg, a, "no-such-device", vertexprog.Options{}, prm, 1, false, hyb.Options{})
		if skipped := r.Skipped != ""; skipped != !a.app.Device() || (!skipped && r.Error == "") {
			t.Errorf("%s (device code %v): skipped %q, error %q", a.name, a.app.Device(), r.Skipped, r.Error)
		}
	}
}
