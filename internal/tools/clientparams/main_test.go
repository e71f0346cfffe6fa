package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestGeneratedFileIsCurrent: serve/client/params_gen.go is what the
// apps' declarations make now (run `go generate ./serve/client` where a
// parameter was added, removed or changed).
func TestGeneratedFileIsCurrent(t *testing.T) {
	want, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "..", "..", target))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run go generate ./serve/client", target)
	}
}

func TestWrap(t *testing.T) {
	got := wrap("aa bb cc dddddddd e", 5)
	want := []string{"aa bb", "cc", "dddddddd", "e"}
	if len(got) != len(want) {
		t.Fatalf("wrap = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("wrap = %q, want %q", got, want)
		}
	}
}

func TestGoName(t *testing.T) {
	for in, want := range map[string]string{"max-iter": "MaxIter", "per-vertex": "PerVertex", "delta": "Delta", "min_degree": "MinDegree"} {
		if got := goName(in); got != want {
			t.Errorf("goName(%q) = %q, want %q", in, got, want)
		}
	}
}
