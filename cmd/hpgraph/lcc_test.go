package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/apps/registry"
)

// run lcc: the summary, --out's "id value" lines and --out-format ldbc's,
// --validate against the reference; a device backend is refused.
func TestRunLCC(t *testing.T) {
	dir := t.TempDir()
	// K4 on ids 1..4 with a pendant vertex 5 on 4, and an isolated 6:
	// 1, 2, 3 have lcc 1; 4 has 3 edges among 4 neighbours, 3/6; 5, 6: 0.
	el := filepath.Join(dir, "g.el")
	if err := os.WriteFile(el, []byte("1 2\n1 3\n1 4\n2 3\n2 4\n3 4\n4 5\n6 6\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := hpgraph(t, "run", "lcc", el, "--symmetrize", "--keep-loops", "--validate", "--out", filepath.Join(dir, "lcc.txt"))
	if code != 0 || !strings.Contains(out, "mean lcc 0.583333 over 6 vertices; 4 with lcc > 0") || !strings.Contains(out, "validation: PASS") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "lcc.txt"))
	if want := "1 1\n2 1\n3 1\n4 0.5\n5 0\n6 0\n"; string(data) != want {
		t.Errorf("--out:\n%s\nwant\n%s", data, want)
	}
	out, code = hpgraph(t, "run", "lcc", el, "--symmetrize", "--out-format", "ldbc", "--out", filepath.Join(dir, "lcc-ldbc.txt"))
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	data, _ = os.ReadFile(filepath.Join(dir, "lcc-ldbc.txt"))
	if want := "1 1.000000000000000e+00\n2 1.000000000000000e+00\n3 1.000000000000000e+00\n4 5.000000000000000e-01\n5 0.000000000000000e+00\n6 0.000000000000000e+00\n"; string(data) != want {
		t.Errorf("--out-format ldbc:\n%s\nwant\n%s", data, want)
	}
	if out, code := hpgraph(t, "verify", el, "--symmetrize", "--algo", "lcc"); code != 0 || !strings.Contains(out, "all PASS") {
		t.Errorf("verify: exit %d:\n%s", code, out)
	}
	// By default verify on a named device leaves out what it cannot run
	// (this binary may have no device at all: every other row fails).
	if out, _ := hpgraph(t, "verify", el, "--symmetrize", "--backend", "cuda"); strings.Contains(out, " lcc ") != registry.Lookup("lcc").Device() || !strings.Contains(out, " bfs ") {
		t.Errorf("verify --backend cuda lists lcc (device code: %v), or no bfs:\n%s", registry.Lookup("lcc").Device(), out)
	}
	dup := filepath.Join(dir, "dup.el")
	if err := os.WriteFile(dup, []byte("1 2\n1 2\n2 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	failCases(t, []failCase{
		{"duplicate edges kept", []string{"run", "lcc", dup, "--symmetrize", "--keep-duplicates"}, "lcc is defined on simple graphs"},
	})
	out, code = hpgraph(t, "bench", "kron:6", "--algo", "lcc", "--backend", "cpu", "--runs", "1", "--validate")
	if code != 0 || !strings.Contains(out, "lcc") {
		t.Errorf("bench: exit %d:\n%s", code, out)
	}
}
