package main

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/datasets"
)

// convertGraphs are small graphs with what a format must keep: directed
// and undirected, weighted and not, vertices without edges, sparse ids
// and ids from 0.
func convertGraphs(t *testing.T) map[string]*datasets.Graph {
	t.Helper()
	gs := map[string]*datasets.Graph{}
	for i, c := range []struct {
		directed, weighted, sparse bool
	}{{true, true, true}, {false, false, false}, {true, false, false}, {false, true, true}} {
		r := rand.New(rand.NewPCG(uint64(i), 3))
		const n = 120
		el := &datasets.EdgeList{N: n, Directed: c.directed, Name: "convert"}
		for range 300 {
			u, v := int32(r.IntN(100)), int32(r.IntN(100)) // 100.. have no edges
			el.Src, el.Dst = append(el.Src, u), append(el.Dst, v)
			if c.weighted {
				el.W = append(el.W, float32(r.Float64()*10))
			}
		}
		if c.sparse {
			el.IDs = make([]int64, n)
			for v := range el.IDs {
				el.IDs[v] = int64(v)*int64(v)*7 + 3
			}
		}
		g, err := datasets.Build(el, datasets.Options{})
		if err != nil {
			t.Fatal(err)
		}
		gs[fmt.Sprintf("directed=%v weighted=%v sparse ids=%v", c.directed, c.weighted, c.sparse)] = g
	}
	return gs
}

// writeSource writes g in the format path's extension names (an LDBC
// graph for .properties: NAME.v, NAME.e and NAME.properties).
func writeSource(t *testing.T, g *datasets.Graph, path string) {
	t.Helper()
	create := func(p string) (*os.File, *bufio.Writer) {
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		return f, bufio.NewWriter(f)
	}
	done := func(f *os.File, w *bufio.Writer) {
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if strings.HasSuffix(path, ".properties") {
		base := strings.TrimSuffix(path, ".properties")
		vf, vw := create(base + ".v")
		ef, ew := create(base + ".e")
		pf, pw := create(path)
		if err := datasets.WriteLDBC(vw, ew, pw, g, filepath.Base(base)); err != nil {
			t.Fatal(err)
		}
		done(vf, vw)
		done(ef, ew)
		done(pf, pw)
		return
	}
	f, w := create(path)
	write := map[string]func(io.Writer, *datasets.Graph) error{
		".hpg": datasets.WriteCache, ".mtx": datasets.WriteMatrixMarket, ".el": datasets.WriteEdgeList, ".e": datasets.WriteEdgeList,
	}[filepath.Ext(path)]
	if err := write(w, g); err != nil {
		t.Fatal(err)
	}
	done(f, w)
}

// graphsDiffer says how got differs from want: vertex ids, directedness,
// weights, or the arcs between ids.
func graphsDiffer(got, want *datasets.Graph) error {
	if got.N != want.N || got.Directed != want.Directed || (got.W == nil) != (want.W == nil) || got.NNZ() != want.NNZ() {
		return fmt.Errorf("N=%d directed=%v weighted=%v arcs=%d, want N=%d directed=%v weighted=%v arcs=%d",
			got.N, got.Directed, got.W != nil, got.NNZ(), want.N, want.Directed, want.W != nil, want.NNZ())
	}
	type arc struct {
		u, v int64
		w    uint32
	}
	arcs := func(g *datasets.Graph) ([]int64, []arc) {
		var ids []int64
		var s []arc
		for u := int32(0); u < int32(g.N); u++ {
			ids = append(ids, g.OriginalID(u))
			for i, v := range g.Neighbors(u) {
				a := arc{u: g.OriginalID(u), v: g.OriginalID(v)}
				if g.W != nil {
					a.w = math.Float32bits(g.Weights(u)[i])
				}
				s = append(s, a)
			}
		}
		slices.Sort(ids)
		slices.SortFunc(s, func(a, b arc) int { return cmp.Or(cmp.Compare(a.u, b.u), cmp.Compare(a.v, b.v), cmp.Compare(a.w, b.w)) })
		return ids, s
	}
	gi, ga := arcs(got)
	wi, wa := arcs(want)
	if !slices.Equal(gi, wi) {
		return fmt.Errorf("vertex ids %v..., want %v...", gi[:min(6, len(gi))], wi[:min(6, len(wi))])
	}
	if !slices.Equal(ga, wa) {
		return fmt.Errorf("the arcs differ")
	}
	return nil
}

// convert writes every format it writes so that it reads back as the
// graph it read, from every format it reads.
func TestConvertRoundTrips(t *testing.T) {
	sources := []string{".hpg", ".mtx", ".el", ".e", ".properties"}
	outputs := []string{".hpg", ".mtx", ".mm", ".mtx.gz", ".el", ".el.gz", ".txt", ".edgelist", ".tsv", ".snap", ".e", ".properties"}
	for name, g := range convertGraphs(t) {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			for _, src := range sources {
				in := filepath.Join(dir, "src-"+strings.TrimPrefix(src, ".")+src)
				writeSource(t, g, in)
				for _, ext := range outputs {
					out := filepath.Join(dir, "from-"+strings.TrimPrefix(src, ".")+"-to"+ext)
					if ext == ".properties" { // (LDBC: its .v and .e beside it)
						out = filepath.Join(dir, "ldbc-from-"+strings.TrimPrefix(src, ".")+ext)
					}
					// (--relabel auto renumbers skewed graphs: ids stay)
					if text, code := hpgraph(t, "convert", in, out); code != 0 {
						t.Fatalf("convert %s %s: exit %d\n%s", src, ext, code, text)
					}
					back, err := datasets.Load(out, datasets.Options{})
					if err != nil {
						t.Fatalf("%s -> %s: %v", src, ext, err)
					}
					if err := graphsDiffer(back, g); err != nil {
						t.Fatalf("%s -> %s, read back: %v", src, ext, err)
					}
				}
			}
		})
	}
}

// A Kronecker graph (undirected, a third of its vertices isolated)
// converted to an edge list has the same components: the list says it is
// undirected and which vertices it has.
func TestConvertKeepsIsolatedVertices(t *testing.T) {
	dir := t.TempDir()
	hpg := filepath.Join(dir, "k12.hpg")
	if out, code := hpgraph(t, "gen", "kron", "--scale", "12", "-o", hpg); code != 0 {
		t.Fatalf("gen: exit %d\n%s", code, out)
	}
	result := regexp.MustCompile(`result: .*`)
	var want string
	for _, f := range []string{"k12.hpg", "k12.el", "k12.mtx", "k12.e.gz"} {
		path := filepath.Join(dir, f)
		if f != "k12.hpg" {
			if out, code := hpgraph(t, "convert", hpg, path); code != 0 {
				t.Fatalf("convert %s: exit %d\n%s", f, code, out)
			}
		}
		out, code := hpgraph(t, "run", "cc", path, "--backend", "cpu")
		if code != 0 {
			t.Fatalf("cc %s: exit %d\n%s", f, code, out)
		}
		if want == "" {
			want = result.FindString(out)
		} else if got := result.FindString(out); got != want {
			t.Errorf("cc on %s: %q, on k12.hpg %q", f, got, want)
		}
	}
	if !strings.Contains(want, "components") {
		t.Fatalf("no components in %q", want)
	}
}
