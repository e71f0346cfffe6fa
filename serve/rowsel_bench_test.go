package serve

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/registry"
	"github.com/hpgraph/hpgraph/datasets"
)

// benchAnswer writes a per-vertex answer of 1 M vertices (ids 0..N-1):
// bfs's depth and parent, the reached half (even vertices), and cc's
// labels, half the vertices alone and half in one component, as the
// answers the Python package asks for on a kron graph are.
func benchAnswer(b *testing.B, algo, output string, cols []string, reached bool) {
	const n = 1 << 20
	lg := &loadedGraph{d: &datasets.Graph{N: n}}
	q := &query{app: registry.Lookup(algo), output: output}
	if e := (&RunRequest{Columns: cols, ReachedOnly: reached}).selection(q); e != nil {
		b.Fatal(e)
	}
	row := func(v int32, c []apps.Cell) {
		c[0] = apps.IntCell(-1)
		if v%2 == 0 {
			c[0] = apps.IntCell(int64(v % 7))
		}
		if algo == "cc" && v%2 == 1 {
			c[0] = apps.IntCell(1)
		}
		if len(c) > 1 {
			c[1] = apps.IntCell(int64(v / 2))
		}
	}
	write := writeBinaryRows
	if output == "groups" {
		write = writeGroups
	}
	for b.Loop() {
		if err := write(discard{httptest.NewRecorder()}, lg, q, row, context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBinaryRowsAll(b *testing.B) {
	benchAnswer(b, "bfs", "binary", nil, false)
}

func BenchmarkBinaryRowsReached(b *testing.B) {
	benchAnswer(b, "bfs", "binary", []string{"depth"}, true)
}

func BenchmarkGroups(b *testing.B) {
	benchAnswer(b, "cc", "groups", nil, false)
}

// discard is a ResponseWriter that drops the body, as a socket takes it.
type discard struct{ *httptest.ResponseRecorder }

func (discard) Write(p []byte) (int, error) { return len(p), nil }
