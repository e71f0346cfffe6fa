package datasets

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// pieces hands s to put in random consecutive pieces, empty ones among
// them.
func pieces[T any](rng *rand.Rand, s []T) func(put func([]T) error) error {
	return func(put func([]T) error) error {
		for len(s) > 0 {
			k := min(len(s), rng.IntN(40))
			if err := put(s[:k]); err != nil {
				return err
			}
			s = s[k:]
		}
		return put(s)
	}
}

func streamOf(rng *rand.Rand, g *Graph) CacheStream {
	s := CacheStream{Name: g.Name, Directed: g.Directed, IDBase: g.IDBase, Stats: g.Stats, RowPtr: g.RowPtr, IDs: g.IDs,
		Cols: pieces(rng, g.Col)}
	if g.W != nil {
		s.Weights = pieces(rng, g.W)
	}
	return s
}

// TestWriteCacheStream: a graph streamed in pieces is written byte for
// byte as WriteCache writes it.
func TestWriteCacheStream(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, le := range []bool{true, false} {
		littleEndian = le
		for name, g := range testGraphs(t) {
			var buf bytes.Buffer
			if err := WriteCacheStream(&buf, streamOf(rng, g)); err != nil {
				t.Fatalf("native=%v %s: %v", le, name, err)
			}
			if !bytes.Equal(buf.Bytes(), cacheBytes(t, g)) {
				t.Errorf("native=%v %s: the stream's cache differs from WriteCache's", le, name)
			}
		}
	}
	littleEndian = true
}

// TestWriteCacheStreamRejects: what Validate rejects, the streamed writer
// rejects as the pieces go by.
func TestWriteCacheStreamRejects(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	base := randomGraph(t, 5, 200, 1500, true, true, true)
	bad := map[string]func(g *Graph){
		"column out of range": func(g *Graph) { g.Col[len(g.Col)/2] = int32(g.N) },
		"negative column":     func(g *Graph) { g.Col[7] = -1 },
		"unsorted row": func(g *Graph) {
			for v := range g.N {
				if s := g.RowPtr[v]; g.RowPtr[v+1]-s >= 2 {
					g.Col[s], g.Col[s+1] = g.Col[s+1], g.Col[s]
					if g.Col[s] != g.Col[s+1] {
						return
					}
				}
			}
		},
		"infinite weight":   func(g *Graph) { g.W[3] = float32(math.Inf(1)) },
		"NaN weight":        func(g *Graph) { g.W[len(g.W)-1] = float32(math.NaN()) },
		"too few columns":   func(g *Graph) { g.Col = g.Col[:len(g.Col)-1] },
		"too many columns":  func(g *Graph) { g.Col = append(g.Col, 0) },
		"too few weights":   func(g *Graph) { g.W = g.W[:len(g.W)-2] },
		"negative row":      func(g *Graph) { g.RowPtr[5], g.RowPtr[6] = g.RowPtr[6], g.RowPtr[5]-1 },
		"offsets from 1":    func(g *Graph) { g.RowPtr[0] = 1 },
		"ids of other rows": func(g *Graph) { g.IDs = make([]int64, g.N-1) },
	}
	for name, spoil := range bad {
		g := *base
		g.RowPtr, g.Col, g.W = append([]int64(nil), base.RowPtr...), append([]int32(nil), base.Col...), append([]float32(nil), base.W...)
		spoil(&g)
		var buf bytes.Buffer
		err := WriteCacheStream(&buf, streamOf(rng, &g))
		if err == nil {
			t.Errorf("%s: written", name)
			continue
		}
		if !strings.Contains(err.Error(), "graph") {
			t.Errorf("%s: %v does not name the graph", name, err)
		}
	}
}
