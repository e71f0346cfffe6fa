package datasets

import (
	"bufio"
	"cmp"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// roundTripGraphs are graphs with everything a format must carry:
// directed and undirected, weighted and not, vertices without edges, and
// original ids that are sparse, a range not starting at 1, or a range in
// another order (a renumbered graph).
func roundTripGraphs(t testing.TB) map[string]*Graph {
	t.Helper()
	gs := map[string]*Graph{}
	for _, directed := range []bool{true, false} {
		for _, weighted := range []bool{true, false} {
			for _, ids := range []string{"sparse ids", "ids from 0", "renumbered"} {
				r := rand.New(rand.NewPCG(uint64(len(gs)), 11))
				const n = 300
				el := &EdgeList{N: n, Directed: directed, Name: "rt"}
				// Vertices 250.. and every seventh have no edges.
				for range 900 {
					u, v := int32(r.IntN(250)), int32(r.IntN(250))
					if u%7 == 0 || v%7 == 0 {
						continue
					}
					el.Src, el.Dst = append(el.Src, u), append(el.Dst, v)
					if weighted {
						el.W = append(el.W, float32(r.Float64()*100)+float32(r.IntN(3)))
					}
				}
				switch ids {
				case "sparse ids":
					el.IDs = make([]int64, n)
					for v := range el.IDs {
						el.IDs[v] = int64(v)*int64(v)*13 + 5 + int64(v%3)<<40
					}
					slices.Sort(el.IDs)
				default:
					el.IDBase = 0
				}
				g, err := Build(el, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if ids == "renumbered" {
					g = g.Relabel(RelabelDegree)
					if g.IDs == nil {
						t.Fatal("renumbering kept the order")
					}
				}
				kind := map[bool]string{true: "directed", false: "undirected"}[directed]
				if weighted {
					kind += " weighted"
				}
				gs[kind+", "+ids] = g
			}
		}
	}
	return gs
}

// graphFormats are the files the writers make: each writes g at
// dir/name.EXT and returns the path to load.
var graphFormats = []struct {
	ext   string
	write func(t testing.TB, g *Graph, path string)
}{
	{".hpg", func(t testing.TB, g *Graph, path string) {
		writeWith(t, path, false, func(w io.Writer) error { return WriteCache(w, g) })
	}},
	{".mtx", func(t testing.TB, g *Graph, path string) {
		writeWith(t, path, false, func(w io.Writer) error { return WriteMatrixMarket(w, g) })
	}},
	{".mtx.gz", func(t testing.TB, g *Graph, path string) {
		writeWith(t, path, true, func(w io.Writer) error { return WriteMatrixMarket(w, g) })
	}},
	{".el", func(t testing.TB, g *Graph, path string) {
		writeWith(t, path, false, func(w io.Writer) error { return WriteEdgeList(w, g) })
	}},
	{".el.gz", func(t testing.TB, g *Graph, path string) {
		writeWith(t, path, true, func(w io.Writer) error { return WriteEdgeList(w, g) })
	}},
	// An edge list named like an LDBC edge file: its header tells them apart.
	{".e", func(t testing.TB, g *Graph, path string) {
		writeWith(t, path, false, func(w io.Writer) error { return WriteEdgeList(w, g) })
	}},
	{".properties", func(t testing.TB, g *Graph, path string) {
		base := strings.TrimSuffix(path, ".properties")
		files := map[string]*os.File{}
		for _, ext := range []string{".v", ".e", ".properties"} {
			f, err := os.Create(base + ext)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			files[ext] = f
		}
		if err := WriteLDBC(files[".v"], files[".e"], files[".properties"], g, filepath.Base(base)); err != nil {
			t.Fatal(err)
		}
	}},
}

// writeWith writes path through write, gzipped when gz.
func writeWith(t testing.TB, path string, gz bool, write func(io.Writer) error) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bw := bufio.NewWriter(f)
	var w io.Writer = bw
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(bw)
		w = zw
	}
	if err := write(w); err != nil {
		t.Fatal(err)
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
}

// arc is an arc in original ids, for comparing graphs whatever their
// vertex order.
type arc struct {
	u, v int64
	w    uint32
}

// sameGraphByIDs fails unless got and want are the same graph: the same
// vertex ids, directedness, weights and arcs between the same ids.
func sameGraphByIDs(t testing.TB, got, want *Graph) {
	t.Helper()
	if err := graphsDiffer(got, want); err != nil {
		t.Fatal(err)
	}
}

func graphsDiffer(got, want *Graph) error {
	if got.N != want.N || got.Directed != want.Directed || (got.W == nil) != (want.W == nil) || got.NNZ() != want.NNZ() {
		return fmt.Errorf("got N=%d directed=%v weighted=%v arcs=%d, want N=%d directed=%v weighted=%v arcs=%d",
			got.N, got.Directed, got.W != nil, got.NNZ(), want.N, want.Directed, want.W != nil, want.NNZ())
	}
	ids := func(g *Graph) []int64 {
		s := make([]int64, g.N)
		for v := range s {
			s[v] = g.OriginalID(int32(v))
		}
		slices.Sort(s)
		return s
	}
	if a, b := ids(got), ids(want); !slices.Equal(a, b) {
		return fmt.Errorf("vertex ids differ: got %v..., want %v...", a[:min(8, len(a))], b[:min(8, len(b))])
	}
	arcs := func(g *Graph) []arc {
		var s []arc
		for u := int32(0); u < int32(g.N); u++ {
			for i, v := range g.Neighbors(u) {
				a := arc{u: g.OriginalID(u), v: g.OriginalID(v)}
				if g.W != nil {
					a.w = math.Float32bits(g.Weights(u)[i])
				}
				s = append(s, a)
			}
		}
		slices.SortFunc(s, func(a, b arc) int {
			return cmp.Or(cmp.Compare(a.u, b.u), cmp.Compare(a.v, b.v), cmp.Compare(a.w, b.w))
		})
		return s
	}
	a, b := arcs(got), arcs(want)
	for i := range a {
		if a[i] != b[i] {
			return fmt.Errorf("arc %d: got %+v, want %+v", i, a[i], b[i])
		}
	}
	return nil
}

// Every format the writers make reads back as the graph written, and a
// graph read from any of them and written as any other reads back the
// same: directedness, weights, isolated vertices and ids.
func TestFormatRoundTrips(t *testing.T) {
	withProcs(t, 2)
	for name, g := range roundTripGraphs(t) {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			for _, src := range graphFormats {
				in := filepath.Join(dir, "src-"+strings.TrimPrefix(src.ext, ".")+src.ext)
				src.write(t, g, in)
				h, err := Load(in, Options{})
				if err != nil {
					t.Fatalf("%s: %v", src.ext, err)
				}
				if err := graphsDiffer(h, g); err != nil {
					t.Fatalf("written as %s, read back: %v", src.ext, err)
				}
				for _, dst := range graphFormats {
					out := filepath.Join(dir, "from-"+strings.TrimPrefix(src.ext, ".")+"-to"+dst.ext)
					dst.write(t, h, out)
					k, err := Load(out, Options{})
					if err != nil {
						t.Fatalf("%s -> %s: %v", src.ext, dst.ext, err)
					}
					if err := graphsDiffer(k, g); err != nil {
						t.Fatalf("%s -> %s: %v", src.ext, dst.ext, err)
					}
				}
			}
		})
	}
}

// The headers that carry what the lines cannot are checked against them.
func TestEdgeListHeaderErrors(t *testing.T) {
	hdr := func(rest string) string { return "# g\n#hpgraph edgelist " + rest + "\n" }
	for _, c := range []struct{ name, in, want string }{
		{"fewer edges", hdr("directed=true weighted=false vertices=3 edges=2 ids=0..2") + "0 1\n", "g.el:3: expected 2 edges as the header on line 2 declares"},
		{"more edges", hdr("directed=true weighted=false vertices=3 edges=1 ids=0..2") + "0 1\n1 2\n", "g.el:4: expected the end of the file after the 1 edges"},
		{"id outside the range", hdr("directed=true weighted=false vertices=3 edges=1 ids=0..2") + "0 3\n", "g.el:3: expected ids in 0..2"},
		{"missing weight", hdr("directed=true weighted=true vertices=3 edges=1 ids=0..2") + "0 1\n", "g.el:3: expected \"u v w\""},
		{"unexpected weight", hdr("directed=true weighted=false vertices=3 edges=1 ids=0..2") + "0 1 2\n", "g.el:3: expected \"u v\""},
		{"range and count disagree", hdr("directed=true weighted=false vertices=4 edges=1 ids=0..2"), "g.el:2: the header declares 4 vertices with ids 0..2"},
		{"missing key", hdr("directed=true vertices=3 edges=1 ids=0..2"), "g.el:2: expected \"directed=true|false"},
		{"unknown key", hdr("directed=true weighted=false vertices=3 edges=1 ids=0..2 loops=1"), "unknown key \"loops\""},
		{"bad value", hdr("directed=maybe weighted=false vertices=3 edges=1 ids=0..2"), "found \"directed=maybe\""},
		{"no vertices", hdr("directed=true weighted=false vertices=0 edges=0 ids=0..0"), "declares 0 vertices"},
		{"huge claim", hdr("directed=true weighted=false vertices=2000000000 edges=1 ids=0..1999999999") + "0 1\n", "expected at most 4 vertices per edge"},
		{"two headers", hdr("directed=true weighted=false vertices=3 edges=0 ids=0..2") + "#hpgraph edgelist directed=true\n", "g.el:3: expected one"},
		{"isolated without listed ids", hdr("directed=true weighted=false vertices=3 edges=0 ids=0..2") + "#hpgraph isolated 4\n", "g.el:3: expected \"#hpgraph isolated\" lines only after"},
		{"bad isolated id", hdr("directed=true weighted=false vertices=3 edges=1 ids=listed") + "#hpgraph isolated 4 x\n1 2\n", "g.el:3: expected vertex ids"},
		{"isolated count", hdr("directed=true weighted=false vertices=4 edges=1 ids=listed") + "#hpgraph isolated 9\n1 2\n", "declares 4 vertices, found 2 ids on the edges and 1 isolated"},
		{"isolated on an edge", hdr("directed=true weighted=false vertices=3 edges=1 ids=listed") + "#hpgraph isolated 2\n1 2\n", "an id listed as isolated is on an edge"},
		{"unknown tag", "#hpgraph edges 3\n0 1\n", "g.el:1: expected \"#hpgraph edgelist\""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadEdgeList(strings.NewReader(c.in), "g.el")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
	// A header with no edges at all: every vertex isolated.
	el, err := ReadEdgeList(strings.NewReader(hdr("directed=false weighted=false vertices=2 edges=0 ids=listed")+"#hpgraph isolated 10 30\n"), "g.el")
	if err != nil || el.N != 2 || !slices.Equal(el.IDs, []int64{10, 30}) || el.Directed {
		t.Fatalf("got %+v, %v", el, err)
	}
}

func TestMatrixMarketIDCommentErrors(t *testing.T) {
	const banner = "%%MatrixMarket matrix coordinate pattern general\n"
	for _, c := range []struct{ name, in, want string }{
		{"too few ids", banner + "%hpgraph ids 5 6\n3 3 1\n1 2\n", "g.mtx:2: expected 3 ids on the \"%hpgraph ids\" lines"},
		{"repeated id", banner + "%hpgraph ids 5 6 5\n3 3 1\n1 2\n", "found 5 twice"},
		{"bad id", banner + "%hpgraph ids 5 -6 7\n3 3 1\n1 2\n", "g.mtx:2: expected vertex ids"},
		{"bad base", banner + "%hpgraph idbase x\n3 3 1\n1 2\n", "g.mtx:2: expected \"%hpgraph idbase\""},
		{"base and ids", banner + "%hpgraph idbase 0\n%hpgraph ids 1 2 3\n3 3 1\n1 2\n", "g.mtx:3: expected either"},
		{"base overflows", banner + "%hpgraph idbase 9223372036854775807\n3 3 1\n1 2\n", "g.mtx:2: expected ids up to"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadMatrixMarket(strings.NewReader(c.in), "g.mtx")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}
