package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGenOn: GAP's graphs are the same file wherever they are made: --on
// cpu, --on auto (the GPU where there is one) and --on gpu (which fails,
// saying why, where there is none).
func TestGenOn(t *testing.T) {
	dir := t.TempDir()
	for _, kind := range []string{"kron", "uniform"} {
		files := map[string][]byte{}
		for _, on := range []string{"cpu", "auto", "gpu"} {
			path := filepath.Join(dir, kind+"-"+on+".hpg")
			out, code := hpgraph(t, "gen", kind, "--scale", "11", "--weights", "random:1-9", "--on", on, "-o", path)
			if code != 0 {
				if on == "gpu" && gpuUnavailable() != nil && strings.Contains(out, "no GPU") {
					continue
				}
				t.Fatalf("gen %s --on %s: exit %d\n%s", kind, on, code, out)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			files[on] = b
		}
		for on, b := range files {
			if !bytes.Equal(b, files["cpu"]) {
				t.Errorf("gen %s --on %s: the file differs from --on cpu's", kind, on)
			}
		}
	}
	if out, code := hpgraph(t, "gen", "kron", "--on", "tpu", "-o", filepath.Join(dir, "x.hpg")); code == 0 || !strings.Contains(out, "--on") {
		t.Errorf("gen --on tpu: exit %d\n%s", code, out)
	}
}
