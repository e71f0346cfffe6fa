package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Three processes joined over loopback (--world/--rank/--coordinator, as
// on three hosts), two parts each, answer as one process does: rank 0
// writes the same --out file byte for byte, the others nothing.
func TestRunOverSeveralProcesses(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "k12.hpg")
	if out, code := hpgraph(t, "gen", "kron", "--scale", "12", "-o", g); code != 0 {
		t.Fatal(out)
	}
	for _, algo := range []string{"bfs", "sssp", "cc", "tc", "lcc", "cdlp"} {
		t.Run(algo, func(t *testing.T) {
			extra := []string{"--backend", "cpu"}
			if algo == "sssp" {
				extra = append(extra, "--weights", "random:1-64")
			}
			whole := filepath.Join(dir, algo+"-whole.txt")
			if out, code := hpgraph(t, append([]string{"run", algo, g, "--out", whole}, extra...)...); code != 0 {
				t.Fatal(out)
			}
			addr := loopbackAddr(t)
			parts := filepath.Join(dir, algo+"-parts.txt")
			outs := make([]string, 3)
			var wg sync.WaitGroup
			for r := range 3 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					args := append([]string{"run", algo, g, "--out", parts, "--parts", "2", "--world", "3",
						"--rank", string(rune('0' + r)), "--coordinator", addr, "--join-timeout", "30s"}, extra...)
					b, err := exec.Command(binary(t), args...).CombinedOutput()
					outs[r] = string(b)
					if err != nil {
						outs[r] += "\n" + err.Error()
					}
				}()
			}
			wg.Wait()
			for r, o := range outs {
				if strings.Contains(o, "exit status") || strings.Contains(o, "panic") {
					t.Fatalf("rank %d: %s", r, o)
				}
			}
			if !strings.Contains(outs[0], "result:") || strings.Contains(outs[1], "result:") {
				t.Fatalf("rank 0 must answer, the others not:\n%s\n---\n%s", outs[0], outs[1])
			}
			a, err1 := os.ReadFile(whole)
			b, err2 := os.ReadFile(parts)
			if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
				t.Fatalf("--out differs between the whole run and the run over processes (%v, %v)", err1, err2)
			}
		})
	}
}

// Three processes that each read only their parts' rows of an undirected
// .hpg (the default in a run over several) answer as one process that
// read it whole: bfs, sssp (the file's weights), pagerank, cc and cdlp write the
// same --out file byte for byte; each process read less than the file
// (--json's read_bytes), and says so; --read whole reads it all.
func TestRunReadsItsRows(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "k12w.hpg")
	if out, code := hpgraph(t, "gen", "kron", "--scale", "12", "--weights", "random:1-64", "-o", g); code != 0 {
		t.Fatal(out)
	}
	size := fileBytes(g)
	for _, algo := range []string{"bfs", "sssp", "pagerank", "cc", "cdlp"} {
		t.Run(algo, func(t *testing.T) {
			whole := filepath.Join(dir, algo+"-whole.txt")
			if out, code := hpgraph(t, "run", algo, g, "--backend", "cpu", "--out", whole); code != 0 {
				t.Fatal(out)
			}
			for _, readWhole := range []bool{false, true} {
				parts := filepath.Join(dir, fmt.Sprintf("%s-parts-%v.txt", algo, readWhole))
				outs, jsons := overProcesses(t, 3, g, dir, func(r int) []string {
					args := []string{"run", algo, g, "--backend", "cpu", "--out", parts, "--parts", "2"}
					if readWhole {
						args = append(args, "--read", "whole")
					}
					return args
				})
				if strings.Contains(outs[0], "this process's rows") == readWhole {
					t.Fatalf("--read whole %v, and rank 0 says:\n%s", readWhole, outs[0])
				}
				// (rank 0 writes the record: the others write no file)
				if rec := jsons[0]; readWhole && rec.ReadBytes != 0 || !readWhole && (rec.ReadBytes <= 0 || rec.ReadBytes >= size*3/4) {
					t.Fatalf("--read whole %v: rank 0 read %d bytes of the file's %d", readWhole, rec.ReadBytes, size)
				}
				a, err1 := os.ReadFile(whole)
				b, err2 := os.ReadFile(parts)
				if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
					t.Fatalf("--read whole %v: --out differs between the whole run and the run over processes (%v, %v)", readWhole, err1, err2)
				}
			}
		})
	}
}

// overProcesses runs world processes of hpgraph joined over loopback, each
// with the arguments args(rank) and --json, and returns their outputs and
// records (rank 0's: the others write none); a process that fails fails
// the test.
func overProcesses(t *testing.T, world int, g, dir string, args func(r int) []string) ([]string, []record) {
	t.Helper()
	addr := loopbackAddr(t)
	outs := make([]string, world)
	recs := make([]record, world)
	var wg sync.WaitGroup
	for r := range world {
		wg.Add(1)
		go func() {
			defer wg.Done()
			js := filepath.Join(dir, fmt.Sprintf("rank%d.json", r))
			a := append(args(r), "--world", fmt.Sprint(world), "--rank", fmt.Sprint(r), "--coordinator", addr, "--join-timeout", "30s", "--json", js)
			b, err := exec.Command(binary(t), a...).CombinedOutput()
			outs[r] = string(b)
			if err != nil {
				outs[r] += "\n" + err.Error()
			}
			if data, err := os.ReadFile(js); err == nil {
				json.Unmarshal(data, &recs[r])
			}
		}()
	}
	wg.Wait()
	for r, o := range outs {
		if strings.Contains(o, "exit status") || strings.Contains(o, "panic") {
			t.Fatalf("rank %d: %s", r, o)
		}
	}
	return outs, recs
}

// A process started with other flags than the rest fails at once, saying so.
func TestProcessesMustAgree(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "k10.hpg")
	if out, code := hpgraph(t, "gen", "kron", "--scale", "10", "-o", g); code != 0 {
		t.Fatal(out)
	}
	addr := loopbackAddr(t)
	outs := make([]string, 2)
	var wg sync.WaitGroup
	for r := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := []string{"run", "bfs", g, "--backend", "cpu", "--world", "2", "--rank", string(rune('0' + r)), "--coordinator", addr, "--join-timeout", "30s", "--parts", string(rune('1' + r))}
			b, _ := exec.Command(binary(t), args...).CombinedOutput()
			outs[r] = string(b)
		}()
	}
	wg.Wait()
	if !strings.Contains(outs[0], "every process of a run needs the same") {
		t.Fatalf("rank 0 did not refuse a process with other parts:\n%s", outs[0])
	}
}

// loopbackAddr is a loopback address whose port was free a moment ago,
// for a run's coordinator.
func loopbackAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestReadFlag: --read takes auto, rows or whole, and says so otherwise.
func TestReadFlag(t *testing.T) {
	g := filepath.Join(t.TempDir(), "g.hpg")
	if out, code := hpgraph(t, "gen", "kron", "--scale", "6", "-o", g); code != 0 {
		t.Fatalf("gen: %s", out)
	}
	out, code := hpgraph(t, "run", "bfs", g, "--backend", "cpu", "--read", "some")
	if code == 0 || !strings.Contains(out, `--read "some": want auto, rows or whole`) {
		t.Fatalf("--read some: exit %d, %s", code, out)
	}
	for _, r := range []string{"auto", "rows", "whole"} {
		if out, code := hpgraph(t, "run", "bfs", g, "--backend", "cpu", "--read", r); code != 0 {
			t.Fatalf("--read %s (one process): exit %d, %s", r, code, out)
		}
	}
}

// bench over processes makes a generated graph by rows: each process
// only its own, from the host generator here, renumbered by degree
// (--relabel auto) or not (none), and every app that runs on rows
// answers as bench does on the whole graph in one process, every one in
// its summary (in the input's ids); the apps that read the whole graph
// are skipped, saying why.
func TestBenchMakesRowsOverProcesses(t *testing.T) {
	for _, relabel := range []string{"auto", "none"} {
		t.Run(relabel, func(t *testing.T) { checkBenchRows(t, relabel) })
	}
}

func checkBenchRows(t *testing.T, relabel string) {
	dir := t.TempDir()
	args := []string{"bench", "kron:11", "--backend", "cpu", "--algo", "bfs,sssp,cc,pagerank-ldbc,cdlp,tc", "--runs", "1"}
	outs, _ := overProcesses(t, 2, "", dir, func(int) []string { return append(args, "--relabel", relabel) })
	readBench := func(path string) benchRecord {
		t.Helper()
		var rec benchRecord
		data, err := os.ReadFile(path)
		if err == nil {
			err = json.Unmarshal(data, &rec)
		}
		if err != nil {
			t.Fatalf("%s: %v (rank 0 said %s)", path, err, outs[0])
		}
		return rec
	}
	held := readBench(filepath.Join(dir, "rank0.json"))
	wholeJSON := filepath.Join(dir, "whole.json")
	if out, code := hpgraph(t, append(args, "--relabel", "none", "--json", wholeJSON)...); code != 0 {
		t.Fatal(out)
	}
	whole := readBench(wholeJSON)
	if g := held.Graphs[0]; !strings.Contains(g.Generator, "each of 2 processes its rows") || g.Edges != whole.Graphs[0].Edges || g.NNZ != whole.Graphs[0].NNZ ||
		strings.HasPrefix(g.Relabel, "degree") != (relabel == "auto") {
		t.Fatalf("the graph made by rows: %+v, whole %+v", g, whole.Graphs[0])
	}
	if !strings.Contains(outs[0], "this process made rows [0, ") || !strings.Contains(outs[1], "this process made rows [") {
		t.Fatalf("the processes did not say which rows they made:\n%s\n%s", outs[0], outs[1])
	}
	for i, r := range held.Results {
		w := whole.Results[i]
		if r.Algorithm == "tc" {
			if !strings.Contains(r.Skipped, "each process made only its rows") || w.Skipped != "" {
				t.Fatalf("tc: skipped %q on rows, %q whole", r.Skipped, w.Skipped)
			}
			continue
		}
		if r.Error != "" || r.Summary == "" || r.Summary != w.Summary {
			t.Fatalf("%s: %q (error %q) over rows, %q whole", r.Algorithm, r.Summary, r.Error, w.Summary)
		}
	}
}

// run of a graph in parts says what each part computed and exchanged
// (their arcs adding up to the graph's), and how much of the time to
// answer's compute was exchange (the record's parts and
// exchange_total_ms); a whole run says neither.
func TestRunReportsItsParts(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "k10.hpg")
	if out, code := hpgraph(t, "gen", "kron", "--scale", "10", "-o", g); code != 0 {
		t.Fatal(out)
	}
	for _, parts := range []int{1, 3} {
		js := filepath.Join(dir, fmt.Sprintf("run%d.json", parts))
		out, code := hpgraph(t, "run", "bfs", g, "--backend", "cpu", "--parts", fmt.Sprint(parts), "--runs", "2", "--json", js)
		if code != 0 {
			t.Fatal(out)
		}
		var rec struct {
			Parts []struct {
				Index      int     `json:"index"`
				Arcs       int64   `json:"arcs"`
				ExchangeMS float64 `json:"exchange_ms"`
			} `json:"parts"`
			Graph struct {
				NNZ int64 `json:"nnz"`
			} `json:"graph"`
			ComputeTotalMS  float64 `json:"compute_total_ms"`
			ExchangeTotalMS float64 `json:"exchange_total_ms"`
		}
		b, err := os.ReadFile(js)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &rec); err != nil {
			t.Fatal(err)
		}
		line := fmt.Sprintf("%d parts in this process, per part and run:", parts)
		if parts == 1 {
			if len(rec.Parts) != 0 || rec.ExchangeTotalMS != 0 || strings.Contains(out, "parts in this process") || strings.Contains(out, "exchange") {
				t.Errorf("a whole run reports parts or an exchange:\n%s\n%s", out, b)
			}
			continue
		}
		if len(rec.Parts) != parts || strings.Count(out, "] [") != parts-1 || !strings.Contains(out, line) || !strings.Contains(out, "of it exchange between the parts") {
			t.Errorf("%d parts: the output or the record lacks them:\n%s\n%s", parts, out, b)
		}
		arcs := int64(0)
		for i, p := range rec.Parts {
			arcs += p.Arcs
			if p.Index != i || p.ExchangeMS <= 0 {
				t.Errorf("part %d of %d: %+v", i, parts, p)
			}
		}
		if rec.ExchangeTotalMS <= 0 || rec.ExchangeTotalMS > rec.ComputeTotalMS {
			t.Errorf("exchange %.3f ms of a compute of %.3f", rec.ExchangeTotalMS, rec.ComputeTotalMS)
		}
		if !strings.Contains(out, fmt.Sprintf("%d arcs", rec.Parts[0].Arcs)) {
			t.Errorf("the parts line does not give part 0's arcs:\n%s", out)
		}
		if strings.Contains(out, "orientation") {
			t.Errorf("BFS's parts read no orientation, but the output says so:\n%s", out)
		}
		if arcs != rec.Graph.NNZ {
			t.Errorf("the parts' arcs add up to %d, the graph's to %d", arcs, rec.Graph.NNZ)
		}
	}
}

// Triangle counting in parts says that each part reads the whole graph's
// orientation and how large it is (the record's whole_bytes: on the CPU
// the ranked lists' arrays, at least 4 bytes an edge).
func TestRunSaysPartsReadTheWholeOrientation(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "k10.hpg")
	if out, code := hpgraph(t, "gen", "kron", "--scale", "10", "-o", g); code != 0 {
		t.Fatal(out)
	}
	js := filepath.Join(dir, "tc.json")
	out, code := hpgraph(t, "run", "tc", g, "--backend", "cpu", "--parts", "2", "--json", js)
	if code != 0 {
		t.Fatal(out)
	}
	var rec struct {
		WholeBytes int64 `json:"whole_bytes"`
		Graph      struct {
			Edges int64 `json:"edges"`
		} `json:"graph"`
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.WholeBytes < 4*rec.Graph.Edges {
		t.Errorf("whole_bytes %d for a graph of %d edges", rec.WholeBytes, rec.Graph.Edges)
	}
	if !strings.Contains(out, fmt.Sprintf("each part reads the whole graph's orientation, %.1f MB: one copy on the host", float64(rec.WholeBytes)/1e6)) {
		t.Errorf("run tc in parts does not say its parts read the whole orientation:\n%s", out)
	}
}
