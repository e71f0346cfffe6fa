package serve

import (
	"encoding/binary"
	"maps"
	"net/http"
	"slices"
	"testing"
)

// groupsAnswer reads a groups answer: each group's value and ids.
func groupsAnswer(t *testing.T, body []byte) (values []int64, groups [][]int64) {
	t.Helper()
	le := binary.LittleEndian
	if len(body) < 32 || string(body[:8]) != groupsMagic || le.Uint32(body[8:]) != groupsVersion {
		t.Fatalf("groups answer starts %q", body[:min(len(body), 32)])
	}
	n, g := int(le.Uint64(body[16:])), int(le.Uint64(body[24:]))
	if want := 32 + 8*(2*g+1+n); len(body) != want {
		t.Fatalf("%d bytes, want %d", len(body), want)
	}
	word := func(i int) int64 { return int64(le.Uint64(body[32+8*i:])) }
	for k := range g {
		values = append(values, word(k))
		lo, hi := word(g+k), word(g+k+1)
		if lo > hi || hi > int64(n) {
			t.Fatalf("group %d: offsets %d..%d of %d", k, lo, hi, n)
		}
		ids := make([]int64, 0, hi-lo)
		for i := lo; i < hi; i++ {
			ids = append(ids, word(2*g+1+int(i)))
		}
		groups = append(groups, ids)
	}
	if word(g) != 0 || word(2*g) != int64(n) {
		t.Fatalf("offsets from %d to %d, want 0 to %d", word(g), word(2*g), n)
	}
	return values, groups
}

// TestSelectedRowsAndGroups: the binary and NDJSON outputs with columns and
// reached_only, and the groups output, are the full NDJSON answer's rows
// and columns (on a graph of sparse ids and on one of ids 0..N-1):
// reached_only keeps exactly the rows whose depth or dist is reached,
// groups hold each id under its value, in the order of their smallest ids.
func TestSelectedRowsAndGroups(t *testing.T) {
	ts := sparseAndDense(t)
	run := func(name string, body map[string]any) []byte {
		t.Helper()
		code, _, out := ts.do(t, "POST", "/v1/graphs/"+name+"/run", body)
		if code != http.StatusOK {
			t.Fatalf("%v: %d %s", body, code, out)
		}
		return out
	}
	for _, name := range []string{"sparse", "dense"} {
		d := ts.graphs[name].d
		for _, q := range []struct {
			algo    string
			params  map[string]any
			columns []string
		}{
			{"bfs", map[string]any{"src": d.OriginalID(3)}, []string{"depth"}},
			{"bfs", map[string]any{"src": d.OriginalID(7)}, []string{"parent", "depth"}},
			{"sssp", map[string]any{"src": d.OriginalID(3)}, nil},
			{"cc", nil, nil},
			{"cdlp", map[string]any{"iterations": 3}, []string{"community"}},
		} {
			full := ndjsonRows(t, run(name, map[string]any{"algo": q.algo, "params": q.params, "output": "ndjson"}))
			source := q.algo == "bfs" || q.algo == "sssp"
			// The rows a reached_only answer keeps, by the full answer.
			var want []int64
			unreached := 0
			for id, row := range full {
				first := row["depth"]
				if q.algo != "bfs" {
					first = row["dist"]
				}
				if !source || (first != nil && num(t, first) >= 0) {
					want = append(want, id)
				} else {
					unreached++
				}
			}
			slices.Sort(want)
			for _, reached := range []bool{false, true} {
				if reached && !source {
					continue
				}
				body := map[string]any{"algo": q.algo, "params": q.params, "output": "binary", "columns": q.columns, "reached_only": reached}
				ids, got := binaryRows(t, run(name, body))
				wantIDs := want
				if !reached {
					wantIDs = slices.Sorted(maps.Keys(full))
				}
				if !slices.Equal(ids, wantIDs) {
					t.Fatalf("%s %v reached_only %v: %d ids, want %d", name, q, reached, len(ids), len(wantIDs))
				}
				if q.columns != nil && len(got) != len(q.columns) {
					t.Fatalf("%s %v: columns %v, asked %v", name, q, got, q.columns)
				}
				for col, vals := range got {
					for i, id := range ids {
						if w := num(t, full[id][col]); vals[i] != w {
							t.Fatalf("%s %v: id %d %s %v, ndjson %v", name, q, id, col, vals[i], w)
						}
					}
				}
				body["output"] = "ndjson"
				rows := ndjsonRows(t, run(name, body))
				if len(rows) != len(wantIDs) {
					t.Fatalf("%s %v ndjson reached_only %v: %d rows, want %d", name, q, reached, len(rows), len(wantIDs))
				}
				for id, row := range rows {
					if q.columns != nil && len(row) != 1+len(q.columns) {
						t.Fatalf("%s %v ndjson: row %v, columns %v", name, q, row, q.columns)
					}
					for col, v := range row {
						if w := full[id][col]; num(t, v) != num(t, w) {
							t.Fatalf("%s %v ndjson: id %d %s %v, want %v", name, q, id, col, v, w)
						}
					}
				}
			}
			if source && unreached == 0 && q.algo == "sssp" {
				t.Fatalf("%s: every vertex reached from %v: reached_only untested", name, q.params)
			}
			// groups by the first column asked (default the app's first).
			if q.algo == "sssp" {
				continue
			}
			by := map[string]string{"bfs": "depth", "cc": "component", "cdlp": "community"}[q.algo]
			gcols := []string{by}
			for _, reached := range []bool{false, true} {
				if reached && !source {
					continue
				}
				values, groups := groupsAnswer(t, run(name, map[string]any{"algo": q.algo, "params": q.params, "output": "groups",
					"columns": gcols, "reached_only": reached}))
				var wantValues []int64
				wantGroups := map[int64][]int64{}
				ids := want
				if !reached {
					ids = slices.Sorted(maps.Keys(full))
				}
				for _, id := range ids {
					v := int64(num(t, full[id][by]))
					if _, ok := wantGroups[v]; !ok {
						wantValues = append(wantValues, v)
					}
					wantGroups[v] = append(wantGroups[v], id)
				}
				if !slices.Equal(values, wantValues) {
					t.Fatalf("%s %s groups: values %v, want %v", name, q.algo, values, wantValues)
				}
				for k, v := range values {
					if !slices.Equal(groups[k], wantGroups[v]) {
						t.Fatalf("%s %s group %d: %v, want %v", name, q.algo, v, groups[k], wantGroups[v])
					}
				}
			}
		}
	}
}

// TestSelectionErrors: columns, reached_only and groups refused where
// they mean nothing, each naming its field.
func TestSelectionErrors(t *testing.T) {
	ts := newTestServer(t, nil)
	ts.load(t, "g", "sparse.el", nil)
	for _, c := range []struct {
		body  string
		field string
	}{
		{`{"algo":"bfs","columns":["depth"]}`, "columns"},
		{`{"algo":"bfs","reached_only":true}`, "reached_only"},
		{`{"algo":"bfs","output":"binary","columns":[]}`, "columns"},
		{`{"algo":"bfs","output":"binary","columns":["dist"]}`, "columns"},
		{`{"algo":"bfs","output":"csv","columns":["depth","depth"]}`, "columns"},
		{`{"algo":"bfs","output":"groups","columns":["depth","parent"]}`, "columns"},
		{`{"algo":"cc","output":"binary","reached_only":true}`, "reached_only"},
		{`{"algo":"pagerank","output":"groups"}`, "columns"},
		{`{"algo":"bfs","output":"binary","columns":"depth"}`, "columns"},
		{`{"algo":"bfs","output":"binary","reached_only":1}`, "reached_only"},
		{`{"algo":"bfs","output":"group"}`, "output"},
	} {
		code, _, out := ts.do(t, "POST", "/v1/graphs/g/run", c.body)
		wantError(t, code, out, http.StatusBadRequest, c.field)
	}
}
