package serve

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/apps/reference"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/serve/client"
)

// testEdges are the test graph's entries as an upload sends them.
func testEdges(t testing.TB, dir string) client.Edges {
	t.Helper()
	el, err := datasets.LoadEdgeList(filepath.Join(dir, "sparse.el"))
	if err != nil {
		t.Fatal(err)
	}
	return client.Edges{N: el.N, Src: el.Src, Dst: el.Dst, W: el.W, Directed: el.Directed, IDs: el.IDs, IDBase: el.IDBase}
}

// sameGraph fails unless a and b hold the same CSR, ids and direction.
func sameGraph(t *testing.T, a, b *datasets.Graph) {
	t.Helper()
	if a.N != b.N || a.Directed != b.Directed || !slices.Equal(a.RowPtr, b.RowPtr) || !slices.Equal(a.Col, b.Col) || !slices.Equal(a.W, b.W) {
		t.Fatalf("graphs differ: n %d/%d directed %v/%v nnz %d/%d", a.N, b.N, a.Directed, b.Directed, a.NNZ(), b.NNZ())
	}
	for v := int32(0); v < int32(a.N); v++ {
		if a.OriginalID(v) != b.OriginalID(v) {
			t.Fatalf("vertex %d: id %d and %d", v, a.OriginalID(v), b.OriginalID(v))
		}
	}
}

// TestUploadMatchesFile: the test graph uploaded as edge arrays is the
// graph the server loads from its file (same cleaning, ids and
// renumbering), with every load option the upload takes.
func TestUploadMatchesFile(t *testing.T) {
	ts := newTestServer(t, nil)
	c := client.New(ts.url, "")
	ctx := context.Background()
	g := testEdges(t, ts.dir)
	for i, o := range []client.LoadOptions{
		{},
		{Symmetrize: true, KeepLoops: true, Relabel: "degree"},
		{KeepDuplicates: true, Weights: "random:1-9", Seed: 1 << 60, Relabel: "none"},
		{Weights: "none"},
	} {
		name := "up" + string(rune('a'+i))
		file, err := c.Load(ctx, "file"+name, "sparse.el", o)
		if err != nil {
			t.Fatal(err)
		}
		up, err := c.Upload(ctx, name, g, o)
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		if up.Path != "" || up.Vertices != file.Vertices || up.Edges != file.Edges || up.Weighted != file.Weighted || up.Directed != file.Directed || up.IDs != file.IDs {
			t.Fatalf("%+v: upload %+v, file %+v", o, up, file)
		}
		sameGraph(t, ts.graphs[name].d, ts.graphs["file"+name].d)
	}
}

// binaryRows reads a binary answer: the ids and each column by name.
func binaryRows(t *testing.T, body []byte) ([]int64, map[string][]float64) {
	t.Helper()
	le := binary.LittleEndian
	if len(body) < 24 || string(body[:8]) != binRowsMagic || le.Uint32(body[8:]) != binRowsVersion {
		t.Fatalf("binary answer starts %q", body[:min(len(body), 24)])
	}
	cols, n := int(le.Uint32(body[12:])), int(le.Uint64(body[16:]))
	off := 24
	names, types := make([]string, cols), make([]byte, cols)
	for c := range cols {
		types[c], names[c] = body[off], string(body[off+2:off+2+int(body[off+1])])
		off += 2 + int(body[off+1])
	}
	off = (off + 7) &^ 7
	if want := off + 8*n*(cols+1); len(body) != want {
		t.Fatalf("%d bytes, want %d", len(body), want)
	}
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = int64(le.Uint64(body[off+8*i:]))
	}
	out := map[string][]float64{}
	for c, name := range names {
		col := body[off+8*n*(c+1):]
		vals := make([]float64, n)
		for i := range vals {
			x := le.Uint64(col[8*i:])
			vals[i] = math.Float64frombits(x)
			if types[c] == 'q' {
				vals[i] = float64(int64(x))
			}
		}
		out[name] = vals
	}
	return ids, out
}

// sparseAndDense is a test server holding the test edges twice: "sparse"
// loaded from the file (sparse ids) and "dense" uploaded with ids 0..N-1.
func sparseAndDense(t *testing.T) *testServer {
	t.Helper()
	ts := newTestServer(t, nil)
	ts.load(t, "sparse", "sparse.el", nil)
	g := testEdges(t, ts.dir)
	g.IDs = nil
	if _, err := client.New(ts.url, "").Upload(context.Background(), "dense", g, client.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	return ts
}

// TestBinaryOutput: every app's binary answer, on a graph of sparse ids and
// on one of ids 0..N-1, is the reference's, rows ascending by id.
func TestBinaryOutput(t *testing.T) {
	ts := sparseAndDense(t)
	for _, name := range []string{"sparse", "dense"} {
		d := ts.graphs[name].d
		src := d.OriginalID(3)
		run := func(algo string, params map[string]any) (map[int32]int, map[string][]float64) {
			t.Helper()
			code, h, body := ts.do(t, "POST", "/v1/graphs/"+name+"/run", map[string]any{"algo": algo, "params": params, "output": "binary"})
			if code != 200 || h.Get("Content-Type") != "application/octet-stream" {
				t.Fatalf("%s %s: %d %s", name, algo, code, body)
			}
			ids, cols := binaryRows(t, body)
			if !slices.IsSorted(ids) || len(ids) != d.N {
				t.Fatalf("%s %s: %d ids, sorted %v", name, algo, len(ids), slices.IsSorted(ids))
			}
			row := map[int32]int{} // vertex -> row
			for i, id := range ids {
				row[vertexOf(t, d, id)] = i
			}
			return row, cols
		}
		t.Run(name+"/bfs", func(t *testing.T) {
			row, cols := run("bfs", map[string]any{"src": src})
			depth, parent := make([]int32, d.N), make([]int32, d.N)
			for v := int32(0); v < int32(d.N); v++ {
				depth[v], parent[v] = int32(cols["depth"][row[v]]), -1
				if p := int64(cols["parent"][row[v]]); p >= 0 {
					parent[v] = vertexOf(t, d, p)
				}
			}
			if err := reference.ValidateBFS(d, 3, depth, parent); err != nil {
				t.Fatal(err)
			}
		})
		t.Run(name+"/sssp", func(t *testing.T) {
			want, err := reference.SSSP(d, 3)
			if err != nil {
				t.Fatal(err)
			}
			row, cols := run("sssp", map[string]any{"src": src})
			for v, w := range want {
				if got := cols["dist"][row[int32(v)]]; !closeTo(got, w, 1e-6) {
					t.Fatalf("vertex %d: dist %v, reference %v", v, got, w)
				}
			}
		})
		t.Run(name+"/pagerank-ldbc", func(t *testing.T) {
			want := reference.PageRankLDBC(d, 0.85, 20)
			row, cols := run("pagerank-ldbc", map[string]any{"iterations": 20, "precision": "float64"})
			for v, w := range want {
				if got := cols["rank"][row[int32(v)]]; !closeTo(got, w, 1e-9) {
					t.Fatalf("vertex %d: rank %v, reference %v", v, got, w)
				}
			}
		})
		t.Run(name+"/cc", func(t *testing.T) {
			want := reference.Components(d)
			row, cols := run("cc", nil)
			for v, w := range want {
				if got := int64(cols["component"][row[int32(v)]]); got != d.OriginalID(w) {
					t.Fatalf("vertex %d: component %d, reference %d", v, got, d.OriginalID(w))
				}
			}
		})
		t.Run(name+"/tc+lcc", func(t *testing.T) {
			_, per := reference.Triangles(d)
			lcc := reference.LCC(d)
			row, cols := run("tc", map[string]any{"per_vertex": true})
			lrow, lcols := run("lcc", nil)
			for v := range per {
				if got := cols["triangles"][row[int32(v)]]; got != float64(per[v]) {
					t.Fatalf("vertex %d: %v triangles, reference %d", v, got, per[v])
				}
				if got := lcols["lcc"][lrow[int32(v)]]; !closeTo(got, lcc[v], 1e-12) {
					t.Fatalf("vertex %d: lcc %v, reference %v", v, got, lcc[v])
				}
			}
		})
	}
	// The limit on answers counts the binary output's bytes.
	small := newTestServer(t, func(c *Config) { c.MaxResultBytes = 1000 })
	small.load(t, "g", "sparse.el", nil)
	code, _, body := small.do(t, "POST", "/v1/graphs/g/run", map[string]any{"algo": "cc", "output": "binary"})
	wantError(t, code, body, http.StatusRequestEntityTooLarge, "output")
}

// TestUploadSymmetric: an undirected graph sent in both directions
// (symmetric) is the graph sent once an edge; entries without their
// reverse are refused.
func TestUploadSymmetric(t *testing.T) {
	ts := newTestServer(t, nil)
	c := client.New(ts.url, "")
	ctx := context.Background()
	once := testEdges(t, ts.dir)
	once.Directed = false
	both := once
	both.Src = append(slices.Clone(once.Src), once.Dst...)
	both.Dst = append(slices.Clone(once.Dst), once.Src...)
	both.W = append(slices.Clone(once.W), once.W...)
	both.Symmetric = true
	for _, o := range []client.LoadOptions{{}, {KeepLoops: true, KeepDuplicates: true, Relabel: "degree"}} {
		ts.DropGraph("once")
		ts.DropGraph("both")
		if _, err := c.Upload(ctx, "once", once, o); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Upload(ctx, "both", both, o); err != nil {
			t.Fatal(err)
		}
		if ts.graphs["both"].d.Directed {
			t.Fatal("a symmetric upload is directed")
		}
		sameGraph(t, ts.graphs["both"].d, ts.graphs["once"].d)
	}
	m := len(once.Src)
	lacking := both
	lacking.Src, lacking.Dst, lacking.W = both.Src[:2*m-1], both.Dst[:2*m-1], both.W[:2*m-1]
	heavier := both
	heavier.W = slices.Clone(both.W)
	heavier.W[m+5]++
	for _, g := range []client.Edges{lacking, heavier} {
		_, err := c.Upload(ctx, "bad", g, client.LoadOptions{})
		var e *client.Error
		if !errors.As(err, &e) || e.Status != 400 || e.Field != "body" || !strings.Contains(e.Message, "has no reverse of the same weight") {
			t.Fatalf("asymmetric upload: %v", err)
		}
	}
}

// put uploads body to ts as name with the query q, with its length
// unknown (chunked) when chunked.
func (ts *testServer) put(t *testing.T, name, q string, body []byte, chunked bool) (int, []byte) {
	t.Helper()
	var rd io.Reader = bytes.NewReader(body)
	if chunked {
		rd = io.MultiReader(rd) // (not a type whose length NewRequest knows)
	}
	req, err := http.NewRequest("PUT", ts.url+"/v1/graphs/"+name+"?"+q, rd)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

// TestUploadErrors: a malformed upload, bad options and bodies over the
// limit are refused with the field and what was expected and found.
func TestUploadErrors(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.MaxUploadBytes = 4096 })
	small := client.Edges{N: 4, Src: []int32{0, 1, 2}, Dst: []int32{1, 2, 3}, W: []float32{1, 2, 3}, Directed: true}
	enc := func(g client.Edges, edit func(b []byte) []byte) []byte {
		b, err := g.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if edit != nil {
			b = edit(b)
		}
		return b
	}
	set32 := func(off int, x uint32) func([]byte) []byte {
		return func(b []byte) []byte { binary.LittleEndian.PutUint32(b[off:], x); return b }
	}
	set64 := func(off int, x uint64) func([]byte) []byte {
		return func(b []byte) []byte { binary.LittleEndian.PutUint64(b[off:], x); return b }
	}
	withIDs := small
	withIDs.IDs = []int64{7, 9, 7, 1}
	negative := small
	negative.IDs = []int64{7, 9, -3, 1}
	outside := small
	outside.Dst = []int32{1, 2, 4}
	nan := small
	nan.W = []float32{1, float32(math.NaN()), 3}
	big := client.Edges{N: 1000, Src: make([]int32, 600), Dst: make([]int32, 600)}
	atLimit := client.Edges{N: 1000, Src: make([]int32, 507), Dst: make([]int32, 507)} // (40 + 8*507 = 4096 bytes)
	for _, c := range []struct {
		name, q string
		body    []byte
		chunked bool
		code    int
		field   string
		msg     string
	}{
		{"magic", "", []byte(`{"edges":[[1,2]]}` + strings.Repeat(" ", 40)), false, 400, "body", `expected magic "HPGEDGES"`},
		{"short", "", []byte("HPGEDGES"), false, 400, "body", "expected a 40-byte header, found 8 bytes"},
		{"version", "", enc(small, set32(8, 2)), false, 400, "body", "expected format version 1, found 2"},
		{"flags", "", enc(small, set32(12, 1|16)), false, 400, "body", "unknown flags 0x10"},
		{"dirsym", "", enc(small, set32(12, 1|8)), false, 400, "body", "directed and symmetric"},
		{"empty", "", enc(small, set64(16, 0)), false, 400, "body", "no vertices"},
		{"huge", "", enc(small, set64(16, 1<<40)), false, 400, "body", "expected 1 to 2147483647 vertices"},
		{"truncated", "", enc(small, func(b []byte) []byte { return b[:len(b)-1] }), true, 400, "body", "expected 76 bytes as the header describes, found 75"},
		{"length", "", enc(small, func(b []byte) []byte { return b[:len(b)-1] }), false, 400, "body", "expected 76 bytes as the header describes, found 75"},
		{"longer", "", enc(small, func(b []byte) []byte { return append(b, 0) }), true, 400, "body", "found more"},
		{"dupids", "", enc(withIDs, nil), false, 400, "body", "id 7 is given to two vertices"},
		{"negid", "", enc(negative, nil), false, 400, "body", "id -3: ids must be non-negative"},
		{"idbase", "", enc(small, set64(32, 1<<63-2)), false, 400, "body", "id base"},
		{"outside", "", enc(outside, nil), false, 400, "body", "entry 3 (2, 4) is outside [0, 4)"},
		{"nan", "", enc(nan, nil), false, 400, "body", "weights must be finite"},
		{"toolarge", "", enc(big, nil), false, 413, "body", "4840 bytes, over the server's upload limit of 4096"},
		{"describes", "", enc(small, set64(24, 1<<20)), true, 413, "body", "over the server's upload limit of 4096"},
		{"streamed", "", append(enc(atLimit, nil), 0), true, 413, "body", "larger than the server's upload limit of 4096"},
		{"format", "format=mtx", enc(small, nil), false, 400, "format", "does not apply to an upload"},
		{"bool", "keep_loops=maybe", enc(small, nil), false, 400, "keep_loops", `"maybe": want true or false`},
		{"unknown", "bogus=1", enc(small, nil), false, 400, "bogus", "unknown field"},
		{"twice", "seed=1&seed=2", enc(small, nil), false, 400, "seed", "given 2 times"},
		{"weights", "weights=random:5-1", enc(small, nil), false, 400, "weights", "random:LO-HI"},
		{"-name", "", enc(small, nil), false, 400, "name", "want 1 to 64"},
	} {
		code, body := ts.put(t, c.name, c.q, c.body, c.chunked)
		wantError(t, code, body, c.code, c.field)
		var e struct{ Error string }
		if json.Unmarshal(body, &e); !strings.Contains(e.Error, c.msg) {
			t.Errorf("%s: %q, want %q in it", c.name, e.Error, c.msg)
		}
	}
	if len(ts.graphs) != 0 {
		t.Fatalf("%d graphs loaded by bad uploads", len(ts.graphs))
	}
	if code, body := ts.put(t, "g", "", enc(small, nil), true); code != http.StatusCreated {
		t.Fatalf("upload: %d %s", code, body)
	}
	code, body := ts.put(t, "g", "", enc(small, nil), false)
	wantError(t, code, body, http.StatusConflict, "name")
	budget := newTestServer(t, func(c *Config) { c.DeviceBudget = 100 })
	code, body = budget.put(t, "g", "", enc(small, nil), false)
	wantError(t, code, body, http.StatusInsufficientStorage, "body")
}

// FuzzUpload feeds arbitrary bodies and queries to the upload: none may
// crash the server or get a 5xx but 507 (over the budget), and a graph
// it accepts is valid and answers a query.
func FuzzUpload(f *testing.F) {
	ts := newTestServer(f, func(c *Config) { c.MaxUploadBytes = 1 << 16 })
	h := ts.Handler()
	for _, g := range []client.Edges{
		{N: 4, Src: []int32{0, 1, 2}, Dst: []int32{1, 2, 3}, W: []float32{1, 2, 3}, Directed: true},
		{N: 3, Src: []int32{0, 1, 1, 2, 2, 2}, Dst: []int32{1, 0, 2, 1, 2, 2}, Symmetric: true},
		{N: 3, Src: []int32{0, 2}, Dst: []int32{2, 2}, IDs: []int64{40, 5, 9}},
		{N: 2, IDBase: 7},
	} {
		b, err := g.MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		for _, q := range []string{"", "keep_loops=true&relabel=degree", "symmetrize=1&weights=random:1-3&keep_duplicates=true"} {
			f.Add(b, q)
		}
	}
	f.Fuzz(func(t *testing.T, body []byte, query string) {
		req, err := http.NewRequestWithContext(t.Context(), "PUT", "/v1/graphs/f?"+query, bytes.NewReader(body))
		if err != nil {
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if c := rec.Code; c >= 500 && c != http.StatusInsufficientStorage {
			t.Fatalf("%q %x: %d %s", query, body, c, rec.Body.String())
		}
		if rec.Code != http.StatusCreated {
			return
		}
		defer ts.DropGraph("f")
		d := ts.graphs["f"].d
		if err := d.Validate(); err != nil {
			t.Fatalf("accepted an invalid graph: %v", err)
		}
		rec = httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequestWithContext(t.Context(), "POST", "/v1/graphs/f/run", strings.NewReader(`{"algo":"cc","output":"binary"}`)))
		if rec.Code != 200 {
			t.Fatalf("cc on an accepted upload: %d %s", rec.Code, rec.Body.String())
		}
	})
}
