package pipeline

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/serve/wire"
)

// writeStar writes a star on ids 10..14 whose centre is 13, plus the arc
// 11 -> 12 listed twice and a self loop on 10: an edge list the cleaning
// and the renumbering both change.
func writeStar(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "star.el")
	text := "# directed\n13 10\n13 11\n13 12\n13 14\n11 12\n11 12\n10 10\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoad(t *testing.T) {
	path := writeStar(t)
	opt, err := ParseLoadOptions(wireOptions("degree"))
	if err != nil {
		t.Fatal(err)
	}
	ld, err := Load(File(path, nil), opt, "cpu")
	if err != nil {
		t.Fatal(err)
	}
	d := ld.Data
	// Cleaning: the duplicate merged, the loop dropped: 4 + 1 arcs.
	if d.NNZ() != 5 || d.Stats.SelfLoops != 1 || d.Stats.Duplicates != 1 {
		t.Fatalf("%d arcs, %d loops, %d duplicates dropped; want 5, 1, 1", d.NNZ(), d.Stats.SelfLoops, d.Stats.Duplicates)
	}
	// Renumbering by degree: the centre (4 out-arcs) first, then 11.
	if ld.Order != datasets.RelabelDegree || ld.Want != datasets.RelabelDegree {
		t.Fatalf("order %v, want %v: degree", ld.Order, ld.Want)
	}
	if d.OriginalID(0) != 13 || d.OriginalID(1) != 11 {
		t.Fatalf("vertices 0 and 1 are ids %d and %d, want 13 and 11", d.OriginalID(0), d.OriginalID(1))
	}
	// The same answer as the library's own load, which renumbers on the host.
	want, err := datasets.Load(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	for v := range int32(d.N) {
		if d.OriginalID(v) != want.OriginalID(v) || len(d.Neighbors(v)) != len(want.Neighbors(v)) {
			t.Fatalf("vertex %d: id %d, %d arcs; datasets.Load: id %d, %d arcs", v, d.OriginalID(v), len(d.Neighbors(v)), want.OriginalID(v), len(want.Neighbors(v)))
		}
	}
	// The source in the file's ids, and the default: the centre.
	for _, c := range []struct {
		id   int64
		want int32
	}{{13, 0}, {11, 1}, {-1, 0}} {
		if v, err := Vertex(d, c.id); err != nil || v != c.want {
			t.Errorf("Vertex(%d) = %d, %v; want %d", c.id, v, err, c.want)
		}
	}
	if _, err := Vertex(d, 99); err == nil || !strings.Contains(err.Error(), "source 99 is not a vertex") {
		t.Errorf("Vertex(99): %v", err)
	}

	// Read keeps the file's order; the time is the read's only.
	rd, err := Read(File(path, nil), opt)
	if err != nil {
		t.Fatal(err)
	}
	if rd.Order != datasets.RelabelNone || rd.Data.OriginalID(0) != 10 || rd.RelabelTime != 0 {
		t.Fatalf("Read: order %v, vertex 0 id %d", rd.Order, rd.Data.OriginalID(0))
	}
}

func TestReadError(t *testing.T) {
	boom := errors.New("boom")
	_, err := Read(func(datasets.Options) (*datasets.Graph, error) { return nil, boom }, datasets.Options{})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want the source's error", err)
	}
	if _, err := Load(File(filepath.Join(t.TempDir(), "none.el"), nil), datasets.Options{}, "cpu"); err == nil {
		t.Fatal("a missing file loaded")
	}
}

func wireOptions(relabel string) wire.LoadOptions { return wire.LoadOptions{Relabel: relabel} }
