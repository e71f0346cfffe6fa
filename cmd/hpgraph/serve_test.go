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
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/registry"
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
	so.lf.Relabel = "none"
	so.cfg.Listen, so.cfg.DataDir, so.cfg.Backend = "127.0.0.1:0", dir, "cpu"
	so.graphs = []string{"g=g.el"}
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	errc := make(chan error, 1)
	go func() { errc <- runServe(ctx, context.Background(), so, io.Discard, func(a string) { addrc <- a }) }()
	var base string
	select {
	case a := <-addrc:
		base = "http://" + a
	case err := <-errc:
		t.Fatal(err)
	}

	// The CLI's side: the same graph and parameters through run's code.
	ld, err := so.lf.load(filepath.Join(dir, "g.el"), "cpu", 1)
	if err != nil {
		t.Fatal(err)
	}
	g := vertexprog.NewGraph(ld.Data)
	var prm params
	prm.register(pflag.NewFlagSet("p", pflag.ContinueOnError))
	prm.src = id(3)
	opt := vertexprog.Options{Backend: "cpu"}
	if !slices.Equal(serve.Algorithms, registry.Names()) {
		t.Errorf("serve runs %v, the registry has %v", serve.Algorithms, registry.Names())
	}
	for _, a := range registry.Apps() {
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
		compareRows(t, a, cli.String(), out, ld.Data.N)
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

// TestServeSecondSignalStopsAtOnce: a SIGTERM lets the query in flight
// run on (a graceful stop), and a second one stops the server at once,
// the query cancelled, where it waited out the query's --timeout.
func TestServeSecondSignalStopsAtOnce(t *testing.T) {
	dir := t.TempDir()
	if out, code := hpgraph(t, "gen", "kron", "--scale", "14", "-o", filepath.Join(dir, "k14.hpg")); code != 0 {
		t.Fatalf("gen: exit %d\n%s", code, out)
	}
	cmd := exec.Command(binary(t), "serve", "--data-dir", dir, "--graph", "k=k14.hpg", "--listen", "127.0.0.1:0", "--backend", "cpu")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	defer func() {
		cmd.Process.Kill()
		<-exited
	}()
	lines := bufio.NewScanner(stderr)
	var url string
	for url == "" && lines.Scan() {
		if _, after, ok := strings.Cut(lines.Text(), "listening on "); ok {
			url = strings.Fields(after)[0]
		}
	}
	if url == "" {
		t.Fatal("serve printed no address")
	}
	go func() {
		for lines.Scan() {
		}
		exited <- cmd.Wait()
	}()
	// A query of a million LDBC PageRank iterations: minutes of work.
	answered := make(chan error, 1)
	go func() {
		resp, err := http.Post(url+"/v1/graphs/k/run", "application/json", strings.NewReader(`{"algo":"pagerank-ldbc","params":{"iterations":1000000}}`))
		if err == nil {
			resp.Body.Close()
		}
		answered <- err
	}()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get(url + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(body), "\nhpgraph_queries_running 1") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the query did not start:\n%s", body)
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		t.Fatalf("the first SIGTERM stopped the server (%v) with a query in flight", err)
	case <-time.After(500 * time.Millisecond):
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() == 0 {
			t.Errorf("stopped by a second signal: %v, want a non-zero exit", err)
		}
		exited <- err // (for the deferred wait)
	case <-time.After(10 * time.Second):
		t.Fatal("a second SIGTERM did not stop the server in 10 s")
	}
	if err := <-answered; err == nil {
		t.Error("the cancelled query was answered")
	}
}
