package refdata

import (
	"math"
	"testing"
)

func needDir(t *testing.T) {
	t.Helper()
	if _, ok := Dir(); !ok {
		t.Skip("shared/datasets not present")
	}
}

func TestStats(t *testing.T) {
	needDir(t)
	stats, err := Stats()
	if err != nil {
		t.Fatal(err)
	}
	k, ok := stats["tiny/karate.mtx"]
	if !ok {
		t.Fatal("no row for tiny/karate.mtx")
	}
	want := StatsRow{File: "tiny/karate.mtx", MinID: 1, MaxID: 34, IDsPresent: 34, Entries: 78,
		DistinctArcs: 78, UndirectedEdges: 78, ComponentsInRange: 1, LargestComponent: 34,
		Triangles: 45, BFSSrc: 1, BFSReached: 34, BFSDepth: 3, MaxDegreeUndirected: 17}
	if k != want {
		t.Errorf("karate row %+v, want %+v", k, want)
	}
}

func TestLAGraph(t *testing.T) {
	needDir(t)
	tri, err := LAGraphTriangles()
	if err != nil {
		t.Fatal(err)
	}
	if tri["bcsstk13.mtx"] != 342300 {
		t.Errorf("bcsstk13 triangles = %d", tri["bcsstk13.mtx"])
	}
	if rel, ok := FindGraph("bcsstk13.mtx"); !ok || rel != "small/bcsstk13.mtx.gz" {
		t.Errorf("FindGraph(bcsstk13.mtx) = %q, %v", rel, ok)
	}
	cc, err := LAGraphComponents()
	if err != nil {
		t.Fatal(err)
	}
	if cc["zenios.mtx"] != 1391 {
		t.Errorf("zenios components = %d", cc["zenios.mtx"])
	}
	bfs, err := LAGraphKarateBFS()
	if err != nil {
		t.Fatal(err)
	}
	if len(bfs.Levels) != 34 || bfs.Levels[30] != 0 || bfs.Levels[16] != 4 || len(bfs.Parents[2]) != 3 {
		t.Errorf("karate bfs %+v", bfs)
	}
	pr, err := LAGraphPageRank("karate.mtx")
	if err != nil {
		t.Fatal(err)
	}
	if len(pr) != 34 || pr[0] != 0.0970011147 {
		t.Errorf("karate pagerank %v", pr)
	}
}

func TestLDBC(t *testing.T) {
	needDir(t)
	for _, c := range []struct {
		name     string
		n, m     int
		directed bool
		src, dst int64 // the first .e line's ids
	}{
		{"example-directed", 10, 17, true, 1, 3},
		{"example-undirected", 9, 12, false, 2, 3},
	} {
		el, err := LDBCExample(c.name)
		if err != nil {
			t.Fatal(err)
		}
		if el.N != c.n || len(el.Src) != c.m || len(el.W) != c.m || el.Directed != c.directed {
			t.Errorf("%s: %d vertices, %d edges, directed %v", c.name, el.N, len(el.Src), el.Directed)
		}
		if s, d := el.OriginalID(el.Src[0]), el.OriginalID(el.Dst[0]); s != c.src || d != c.dst {
			t.Errorf("%s: first edge %d -> %d, want %d -> %d", c.name, s, d, c.src, c.dst)
		}
		if _, err := LDBCExampleParams(c.name); err != nil {
			t.Error(err)
		}
	}
	bfs, err := LDBCOutputBFS("example-directed")
	if err != nil {
		t.Fatal(err)
	}
	if bfs[2] != LDBCUnreachable || bfs[4] != 2 {
		t.Errorf("bfs output %v", bfs)
	}
	sssp, err := LDBCOutputSSSP("example-directed")
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(sssp[2], 1) || sssp[4] != 0.8300000000000001 {
		t.Errorf("sssp output %v", sssp)
	}
	if _, err := LDBCExampleParams("nope"); err == nil {
		t.Error("unknown example accepted")
	}
	if _, err := LDBCExample("nope"); err == nil {
		t.Error("missing example files accepted")
	}
}
