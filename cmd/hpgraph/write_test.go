package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// files lists dir's entries.
func files(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// A write that fails leaves neither the file nor a temporary; one that
// succeeds leaves the file alone, replacing what was there.
func TestWriteFileIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := writeText(path, false, func(w writer) error {
		w.Write([]byte("partial"))
		return errors.New("broken")
	}); err == nil {
		t.Fatal("the writer's error was lost")
	}
	if names := files(t, dir); len(names) != 0 {
		t.Fatalf("a failed write left %v", names)
	}
	for _, content := range []string{"first\n", "second\n"} {
		if err := writeText(path, false, func(w writer) error { _, err := w.Write([]byte(content)); return err }); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(path); string(b) != content {
			t.Fatalf("file holds %q, want %q", b, content)
		}
	}
	if names := files(t, dir); len(names) != 1 {
		t.Fatalf("left %v, want out.txt alone", names)
	}
}

// A gen killed while it writes (SIGTERM, then SIGINT) leaves nothing
// behind: neither a truncated file under the output's name nor its
// temporary.
func TestSignalMidWriteLeavesNothing(t *testing.T) {
	bin := binary(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		dir := t.TempDir()
		cmd := exec.Command(bin, "gen", "kron", "--scale", "18", "-o", filepath.Join(dir, "k18.mtx"))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait for the output's temporary to appear: the write has begun.
		writing := func() bool {
			m, _ := filepath.Glob(filepath.Join(dir, ".k18.mtx.tmp*"))
			return len(m) > 0
		}
		deadline := time.Now().Add(60 * time.Second)
		for !writing() && time.Now().Before(deadline) {
			time.Sleep(2 * time.Millisecond)
		}
		if !writing() {
			cmd.Process.Kill()
			t.Fatal("gen wrote nothing within a minute")
		}
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 128+int(sig) {
			t.Fatalf("%v: gen ended with %v, want exit %d", sig, err, 128+int(sig))
		}
		if names := files(t, dir); len(names) != 0 {
			t.Fatalf("%v mid-write left %v", sig, names)
		}
	}
}

// Output paths are checked before any work.
func TestOutputsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "k8.hpg")
	if out, code := hpgraph(t, "gen", "kron", "--scale", "8", "-o", g); code != 0 {
		t.Fatalf("gen: exit %d:\n%s", code, out)
	}
	missing := filepath.Join(dir, "no", "such", "dir")
	failCases(t, []failCase{
		{"run --out in a missing directory", []string{"run", "bfs", g, "--out", filepath.Join(missing, "d.txt")}, "does not exist"},
		{"run --json onto a directory", []string{"run", "bfs", g, "--json", dir}, "is a directory"},
		{"run --out onto the input", []string{"run", "bfs", g, "--out", g}, "is the input file"},
		{"convert onto its input", []string{"convert", g, g}, "is the input file"},
		{"gen with an unknown format", []string{"gen", "kron", "-o", filepath.Join(dir, "x.foo")}, "unknown output format"},
		{"gen into a missing directory", []string{"gen", "kron", "-o", filepath.Join(missing, "x.hpg")}, "does not exist"},
		{"bench --json in a missing directory", []string{"bench", g, "--json", filepath.Join(missing, "b.json")}, "does not exist"},
	})
	if b, err := os.ReadFile(g); err != nil || len(b) == 0 {
		t.Fatalf("the input was harmed: %v", err)
	}
}
