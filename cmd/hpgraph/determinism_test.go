package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// LDBC PageRank on the CPU writes the same --out bytes in every run and
// on any number of threads (GOMAXPROCS 1 to 4, two runs each, float64
// and float32), each run --validate'd against the gonum reference: its
// dangling sum is added in a fixed order (vertexprog's cellSums), not by
// whichever worker ran a block. kron16 has isolated (dangling) vertices
// and 32 of the engine's cells; before, its --out (12 digits) came out
// four ways in 12 runs on 1-4 threads.
func TestLDBCPageRankSameBitsAnyThreads(t *testing.T) {
	bin, dir := binary(t), t.TempDir()
	g := filepath.Join(dir, "kron16.hpg")
	if out, code := hpgraph(t, "gen", "kron", "--scale", "16", "-o", g); code != 0 {
		t.Fatalf("gen: exit %d:\n%s", code, out)
	}
	for _, precision := range []string{"float64", "float32"} {
		var first []byte
		for procs := 1; procs <= 4; procs++ {
			for run := range 2 {
				path := filepath.Join(dir, "ranks.txt")
				cmd := exec.Command(bin, "run", "pagerank-ldbc", g, "--backend", "cpu", "--precision", precision, "--validate", "--out", path)
				cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(procs))
				if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "backend cpu") {
					t.Fatalf("%s, %d threads: %v:\n%s", precision, procs, err, out)
				}
				ranks, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if first == nil {
					first = ranks
				} else if !bytes.Equal(ranks, first) {
					t.Fatalf("%s, %d threads, run %d: --out differs from the first run's (1 thread)", precision, procs, run)
				}
			}
		}
	}
}
