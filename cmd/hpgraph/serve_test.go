package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/serve"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/spf13/pflag"
)

// TestServeMatchesRun: `hpgraph serve` answers every algorithm as run and
// verify compute it (the same summary line, the same per-vertex values in
// the file's sparse ids), and stops cleanly when its context ends.
func TestServeMatchesRun(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	id := func(k int) int64 { return 700 + int64(5*k*k) }
	for k := 0; k < 60; k++ {
		for _, j := range []int{(k + 1) % 50, (k + 2) % 50, (k * 11) % 50} {
			if j != k && k < 50 {
				fmt.Fprintf(&b, "%d %d %d\n", id(k), id(j), 1+(k+j)%7)
			}
		}
		if k >= 50 {
			fmt.Fprintf(&b, "%d %d 3\n", id(k), id(50+(k-49)%10))
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "g.el"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	var so serveOptions
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	so.lf.register(fs)
	so.cf.register(fs)
	so.lf.relabel = "none"
	so.cfg.Listen, so.cfg.DataDir, so.cfg.Backend = "127.0.0.1:0", dir, "cpu"
	so.graphs = []string{"g=g.el"}
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	errc := make(chan error, 1)
	go func() { errc <- runServe(ctx, so, io.Discard, func(a string) { addrc <- a }) }()
	var base string
	select {
	case a := <-addrc:
		base = "http://" + a
	case err := <-errc:
		t.Fatal(err)
	}

	// The CLI's side: the same graph and parameters through run's code.
	d, _, err := so.lf.load(filepath.Join(dir, "g.el"))
	if err != nil {
		t.Fatal(err)
	}
	g := vertexprog.NewGraph(d)
	var prm params
	prm.register(pflag.NewFlagSet("p", pflag.ContinueOnError))
	prm.src = id(3)
	opt := vertexprog.Options{Backend: "cpu"}
	if !slices.Equal(serve.Algorithms, apps.Names()) {
		t.Errorf("serve runs %v, the registry has %v", serve.Algorithms, apps.Names())
	}
	for _, a := range apps.Registry() {
		p := prm
		p.PerVertex = true // (tc: a per-vertex answer counts per vertex)
		o, err := runApp(a, g, p, opt)
		if err != nil {
			t.Fatal(a.Name, err)
		}
		if err := o.check(); err != nil {
			t.Fatalf("%s: run against the reference: %v", a.Name, err)
		}
		var cli bytes.Buffer
		if err := o.write(&cli); err != nil {
			t.Fatal(err)
		}
		req := map[string]any{"algo": a.Name, "output": "ndjson"}
		if a.Source {
			req["params"] = map[string]any{"src": prm.src}
		}
		body, _ := json.Marshal(req)
		resp, err := http.Post(base+"/v1/graphs/g/run", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", a.Name, resp.StatusCode, out)
		}
		if got := resp.Header.Get("X-Hpgraph-Summary"); got != o.summary {
			t.Errorf("%s: server %q, run %q", a.Name, got, o.summary)
		}
		// Summary output: the same line.
		delete(req, "output")
		body, _ = json.Marshal(req)
		resp, err = http.Post(base+"/v1/graphs/g/run", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var sum struct{ Summary string }
		json.NewDecoder(resp.Body).Decode(&sum)
		resp.Body.Close()
		if sum.Summary != o.summary {
			t.Errorf("%s summary: server %q, run %q", a.Name, sum.Summary, o.summary)
		}
		compareRows(t, a, cli.String(), out, d.N)
	}
	cancel()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
}

// compareRows compares run's --out lines ("id v1 [v2]") with NDJSON rows.
func compareRows(t *testing.T, a *apps.App, cli string, ndjson []byte, n int) {
	algo := a.Name
	t.Helper()
	want := map[int64][]float64{}
	for _, line := range strings.Split(strings.TrimSpace(cli), "\n") {
		f := strings.Fields(line)
		k, _ := strconv.ParseInt(f[0], 10, 64)
		var vals []float64
		for _, x := range f[1:] {
			v, err := strconv.ParseFloat(x, 64) // "Infinity" parses as +Inf
			if err != nil {
				t.Fatalf("%s: run line %q", algo, line)
			}
			vals = append(vals, v)
		}
		want[k] = vals
	}
	rows := 0
	sc := bufio.NewScanner(bytes.NewReader(ndjson))
	for sc.Scan() {
		rows++
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: %q: %v", algo, sc.Text(), err)
		}
		k := int64(m["id"].(float64))
		w, ok := want[k]
		if !ok {
			t.Fatalf("%s: id %d not in run's output", algo, k)
		}
		var got []float64
		for _, col := range a.Columns {
			x, ok := m[col].(float64)
			if !ok {
				x = math.Inf(1) // null: unreached
			}
			got = append(got, x)
		}
		for i := range w {
			if a, b := got[i], w[i]; a != b && math.Abs(a-b) > 1e-11*math.Max(math.Abs(a), math.Abs(b)) {
				t.Fatalf("%s: id %d: server %v, run %v", algo, k, got, w)
			}
		}
	}
	if rows != n || len(want) != n {
		t.Fatalf("%s: %d server rows, %d run lines, %d vertices", algo, rows, len(want), n)
	}
}
