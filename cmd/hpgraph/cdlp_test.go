package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/apps/reference/refdata"
	"github.com/hpgraph/hpgraph/apps/registry"
)

// run cdlp --out-format ldbc on LDBC's example graphs writes LDBC's
// expected files byte for byte.
func TestRunCDLPLDBCBytes(t *testing.T) {
	dir, ok := refdata.Dir()
	if !ok {
		t.Skip("shared datasets not found")
	}
	examples := filepath.Join(dir, "reference", "ldbc-graphalytics", "example")
	for _, name := range refdata.LDBCExamples {
		prm, err := refdata.LDBCExampleParams(name)
		if err != nil {
			t.Fatal(err)
		}
		el, err := refdata.LDBCExample(name)
		if err != nil {
			t.Fatal(err)
		}
		direction := "--undirected"
		if el.Directed {
			direction = "--directed"
		}
		out := filepath.Join(t.TempDir(), "cdlp")
		if text, code := hpgraph(t, "run", "cdlp", filepath.Join(examples, name+".v"), direction, "--weighted",
			"--iterations", strconv.Itoa(prm.CDLPIterations), "--out-format", "ldbc", "--out", out, "--validate"); code != 0 || !strings.Contains(text, "validation: PASS") {
			t.Fatalf("%s: exit %d\n%s", name, code, text)
		}
		got, _ := os.ReadFile(out)
		want, err := os.ReadFile(filepath.Join(examples, name+"-CDLP"))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s: --out-format ldbc differs from %s-CDLP:\n%s\nwant\n%s", name, name, got, want)
		}
	}
}

// run cdlp: the summary and --out's lines on a hand-checked graph; verify;
// a device backend is refused.
func TestRunCDLP(t *testing.T) {
	dir := t.TempDir()
	// Directed: 900→500, 500→900, 900→40, 900→70, 70→60, and 10 alone.
	// One iteration: 900 sees 500 twice (in and out); 70 sees 900 and 60
	// once each and takes 60; 10 keeps its id.
	el := filepath.Join(dir, "g.el")
	if err := os.WriteFile(el, []byte("900 500\n500 900\n900 40\n900 70\n70 60\n10 10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := hpgraph(t, "run", "cdlp", el, "--keep-loops", "--iterations", "1", "--validate", "--out", filepath.Join(dir, "cdlp.txt"))
	if code != 0 || !strings.Contains(out, "validation: PASS") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "cdlp.txt"))
	lines := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		lines[l] = true
	}
	// (10's self loop counts twice: in and out; its only label is its own)
	for _, want := range []string{"900 500", "500 900", "40 900", "70 60", "60 70", "10 10"} {
		if !lines[want] {
			t.Errorf("--out lacks %q:\n%s", want, data)
		}
	}
	if len(lines) != 6 {
		t.Errorf("--out: %d lines, want 6:\n%s", len(lines), data)
	}
	if out, code := hpgraph(t, "verify", el, "--keep-loops", "--algo", "cdlp"); code != 0 || !strings.Contains(out, "all PASS") {
		t.Errorf("verify: exit %d:\n%s", code, out)
	}
	// (verify on a named device lists cdlp where it has device code)
	if out, _ := hpgraph(t, "verify", el, "--backend", "cuda"); strings.Contains(out, " cdlp ") != registry.Lookup("cdlp").Device() || !strings.Contains(out, " bfs ") {
		t.Errorf("verify --backend cuda lists cdlp (device code: %v), or no bfs:\n%s", registry.Lookup("cdlp").Device(), out)
	}
	failCases(t, []failCase{
		{"cdlp on a device", []string{"run", "cdlp", el, "--backend", "cuda"}, "backend not available"},
		{"negative iterations", []string{"run", "cdlp", el, "--iterations", "-1"}, "--iterations -1: want 0 or more"},
	})
	out, code = hpgraph(t, "bench", "kron:6", "--algo", "cdlp", "--backend", "cpu", "--runs", "1", "--validate")
	if code != 0 || !strings.Contains(out, "cdlp") {
		t.Errorf("bench: exit %d:\n%s", code, out)
	}
}
