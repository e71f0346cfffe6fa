package serve

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/registry"
	"github.com/hpgraph/hpgraph/serve/client"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// TestEveryAppServed: every app of the registry is served, with its
// parameters and defaults, summary, result and per-vertex columns: the
// server's answers equal the registry's own run, which passes verify's
// check against the reference.
func TestEveryAppServed(t *testing.T) {
	if !slices.Equal(Algorithms, registry.Names()) {
		t.Fatalf("Algorithms %v, the registry %v", Algorithms, registry.Names())
	}
	ts := newTestServer(t, nil)
	ts.load(t, "g", "sparse.el", nil)
	lg, _ := ts.lookup("g")
	for _, a := range registry.Apps() {
		t.Run(a.Name, func(t *testing.T) {
			post := func(output string) (int, http.Header, []byte) {
				return ts.do(t, "POST", "/v1/graphs/g/run", map[string]any{"algo": a.Name, "output": output})
			}
			if !a.Device() && testBackend != "cpu" && testBackend != "auto" {
				code, _, body := post("")
				wantError(t, code, body, http.StatusBadRequest, "algo")
				return
			}
			req := apps.Request{Params: registry.DefaultParams(), Need: apps.NeedRows}
			if a.Source {
				req.Source = defaultSource(lg)
			}
			want, err := a.Run(lg.g, req, vertexprog.Options{Backend: testBackend})
			if err != nil {
				t.Fatal(err)
			}
			if err := want.Check(); err != nil {
				t.Fatalf("the registry's run against the reference: %v", err)
			}
			tol := 1e-12
			if a.Tolerance != nil {
				tol = a.Tolerance(&req.Params)
			}

			code, _, body := post("")
			if code != 200 {
				t.Fatalf("summary: %d %s", code, body)
			}
			var s SummaryResponse
			if err := json.Unmarshal(body, &s); err != nil {
				t.Fatal(err)
			}
			// (On a device, float sums may differ in their last bits from
			// run to run, and with them which of the vertices that tie
			// comes first: the rows below compare to the tolerance.)
			var fields map[string]any
			b, _ := json.Marshal(want.Fields)
			json.Unmarshal(b, &fields)
			if testBackend == "cpu" && (s.Summary != want.Summary || fmt.Sprint(s.Result) != fmt.Sprint(fields)) {
				t.Errorf("summary %q, result %v; registry %q, %v", s.Summary, s.Result, want.Summary, fields)
			}
			if s.Algo != a.Name || s.Summary == "" || len(s.Result) != len(fields) {
				t.Errorf("%s: summary %q, result %v; registry %v", s.Algo, s.Summary, s.Result, fields)
			}
			var names []string
			for _, p := range a.AllParams() {
				names = append(names, p.JSONName())
			}
			if a.Source {
				names = append(names, "src")
			}
			for _, n := range names {
				if _, ok := s.Params[n]; !ok || len(s.Params) != len(names) {
					t.Errorf("params %v, want %v", s.Params, names)
				}
			}

			code, _, body = post("ndjson")
			if code != 200 {
				t.Fatalf("ndjson: %d %s", code, body)
			}
			rows := ndjsonRows(t, body)
			if len(rows) != lg.d.N {
				t.Fatalf("%d rows, %d vertices", len(rows), lg.d.N)
			}
			cells := make([]apps.Cell, len(a.Columns))
			for v := int32(0); v < int32(lg.d.N); v++ {
				row := rows[lg.d.OriginalID(v)]
				want.Rows(v, cells)
				if len(row) != 1+len(a.Columns) {
					t.Fatalf("row %v, columns %v", row, a.Columns)
				}
				for i, col := range a.Columns {
					got, c := num(t, row[col]), cells[i]
					switch {
					case !c.IsFloat && got != float64(c.Int),
						c.IsFloat && !closeTo(got, c.Float, tol) && !(math.IsInf(got, 1) && math.IsInf(c.Float, 1)):
						t.Fatalf("id %d: %s %v, registry %+v", lg.d.OriginalID(v), col, got, c)
					}
				}
			}

			code, _, body = post("csv")
			lines := strings.Split(strings.TrimSpace(string(body)), "\n")
			if code != 200 || lines[0] != "id,"+strings.Join(a.Columns, ",") || len(lines) != lg.d.N+1 {
				t.Fatalf("csv: %d, header %q, %d lines", code, lines[0], len(lines))
			}
		})
	}
}

// TestClientTakesEveryParam: the Go client's Params (a typed struct
// generated from the apps' declarations, since the client does not import
// the apps) name every parameter the server takes, under the server's
// JSON names, and nothing else.
func TestClientTakesEveryParam(t *testing.T) {
	want := []string{srcParam}
	for _, p := range registry.AllParams() {
		want = append(want, p.JSONName())
	}
	var got []string
	typ := reflect.TypeFor[client.Params]()
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		got = append(got, name)
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("client.Params has %v; the server takes %v", got, want)
	}
}
