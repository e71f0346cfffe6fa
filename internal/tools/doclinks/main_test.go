package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// GitHub's anchors for headings of these notes, as github.com renders
// them (checked by hand on rendered pages of the same kind).
func TestSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"Pull COO by row bins":                           "pull-coo-by-row-bins",
		"The first PREPROCESS and kron27's BFS":          "the-first-preprocess-and-kron27s-bfs",
		"vp_loop's state in shared memory":               "vp_loops-state-in-shared-memory",
		"Groups near in columns for 4-byte accumulators": "groups-near-in-columns-for-4-byte-accumulators",
		"No ELL on the CPU (K = 0)":                      "no-ell-on-the-cpu-k--0",
		"Tuning: texture, HYB split, push grid":          "tuning-texture-hyb-split-push-grid",
		"`hpgraph serve` on the GPU":                     "hpgraph-serve-on-the-gpu",
		"A [linked](x.md) word":                          "a-linked-word",
		"Sessions 1–6":                                   "sessions-16",
	} {
		if got := Slug(heading); got != want {
			t.Errorf("Slug(%q) = %q, want %q", heading, got, want)
		}
	}
}

func TestAnchors(t *testing.T) {
	md := "# Title\n\n## Part\n\ntext\n\n```sh\n# not a heading\n```\n\n### Part\n#NoSpace\n    # indented code\n## Last ##\n"
	got := Anchors([]byte(md))
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want := []string{"last", "part", "part-1", "title"}
	if !slices.Equal(keys, want) {
		t.Errorf("anchors %v, want %v", keys, want)
	}
}

// A tree with good and broken citations of each kind: check finds the
// broken ones, and only those.
func TestCheckFindsBroken(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("docs/perf/a.md", "# A\n\n## Tiles, sorted\n\nSee [b](b.md#one), [gone](b.md#two), [self](#tiles-sorted), [no](#none), [file](c.md).\n")
	write("docs/perf/b.md", "# B\n\n## One\n")
	write("x/code.go", "// docs/perf/a.md#tiles-sorted and docs/perf/a.md#tiles\n// docs/perf/b.md docs/perf/missing.md ../shared/docs/design.md\n")
	write("x/k.cu", "// (docs/perf/b.md#one)\n")
	got, err := check(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"docs/perf/a.md:5: #none: no heading with this anchor in docs/perf/a.md",
		"docs/perf/a.md:5: b.md#two: no heading with this anchor in docs/perf/b.md",
		"docs/perf/a.md:5: c.md: no such file",
		"x/code.go:1: docs/perf/a.md#tiles: no heading with this anchor in docs/perf/a.md",
		"x/code.go:2: docs/perf/missing.md: no such file",
	}
	if !slices.Equal(got, want) {
		t.Errorf("broken:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The module's own citations: every docs/...md#anchor in its sources and
// every relative link of its Markdown resolves.
func TestModuleCitations(t *testing.T) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found: %v", err)
	}
	broken, err := check(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range broken {
		t.Error(b)
	}
}
