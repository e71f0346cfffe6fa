package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/cuda"
	"github.com/spf13/pflag"
)

// The GPU backend's options as flags (--cuda-*): every command that runs
// programs has them, with cuda.DefaultOptions() as defaults, and what
// they say reaches cuda.CurrentOptions() before the runs start (checked
// on the CPU backend: no GPU needed), or is refused.

// cudaCmd runs `hpgraph args...` in the process.
func cudaCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

// resetCUDAOptions sets the defaults back when t ends (the commands set
// the process's options).
func resetCUDAOptions(t *testing.T) {
	t.Cleanup(func() { _ = cuda.SetOptions(cuda.DefaultOptions()) })
}

func TestCUDAFlagsRegistered(t *testing.T) {
	d := cuda.DefaultOptions()
	want := map[string]string{"cuda-texture": "true", "cuda-graphs": "true", "cuda-tiles": "auto", "cuda-loop": "16"}
	if !d.Texture || !d.Graphs || d.Tiles.String() != "auto" || d.LoopCluster != 16 {
		t.Fatalf("cuda.DefaultOptions() = %+v: the flags' defaults below are out of date", d)
	}
	root := newRoot()
	for _, name := range []string{"run", "bench", "verify", "serve"} {
		cmd, _, err := root.Find([]string{name})
		if err != nil || cmd.Name() != name {
			t.Fatalf("no command %s: %v", name, err)
		}
		for flag, def := range want {
			f := cmd.Flags().Lookup(flag)
			if f == nil {
				t.Errorf("%s has no --%s", name, flag)
				continue
			}
			if f.DefValue != def {
				t.Errorf("%s --%s defaults to %q, want %q", name, flag, f.DefValue, def)
			}
			if !strings.HasPrefix(f.Usage, "GPU: ") {
				t.Errorf("%s --%s: help %q does not start with \"GPU: \"", name, flag, f.Usage)
			}
		}
	}
}

func TestCUDAFlagsSetOptions(t *testing.T) {
	resetCUDAOptions(t)
	dir := t.TempDir()
	g := filepath.Join(dir, "g.el")
	if err := os.WriteFile(g, []byte("0 1\n1 2\n2 3\n3 0\n1 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--cuda-texture=false", "--cuda-graphs=false", "--cuda-tiles", "never", "--cuda-loop", "4"}
	want := cuda.Options{Texture: false, Graphs: false, Tiles: cuda.TilesNever, LoopCluster: 4}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"run", []string{"run", "bfs", g, "--src", "0", "--backend", "cpu"}},
		{"verify", []string{"verify", g, "--algo", "bfs", "--backend", "cpu"}},
		{"bench", []string{"bench", "grid:4x4", "--algo", "bfs", "--backend", "cpu", "--runs", "1"}},
	} {
		if err := cuda.SetOptions(cuda.DefaultOptions()); err != nil {
			t.Fatal(err)
		}
		if out, err := cudaCmd(t, append(c.args, flags...)...); err != nil {
			t.Fatalf("%s: %v\n%s", c.name, err, out)
		}
		if got := cuda.CurrentOptions(); got != want {
			t.Errorf("%s: options %+v, want %+v", c.name, got, want)
		}
		// Without the flags, a command sets the defaults again.
		if out, err := cudaCmd(t, c.args...); err != nil {
			t.Fatalf("%s: %v\n%s", c.name, err, out)
		}
		if got := cuda.CurrentOptions(); got != cuda.DefaultOptions() {
			t.Errorf("%s without --cuda-*: options %+v, want the defaults", c.name, got)
		}
	}
	for _, tiles := range []string{"always", "auto"} {
		if out, err := cudaCmd(t, "run", "bfs", g, "--src", "0", "--backend", "cpu", "--cuda-tiles", tiles); err != nil {
			t.Fatalf("--cuda-tiles %s: %v\n%s", tiles, err, out)
		}
		if got := cuda.CurrentOptions().Tiles.String(); got != tiles {
			t.Errorf("--cuda-tiles %s: options say %s", tiles, got)
		}
	}

	// Bad values are refused before anything runs, and change nothing.
	if err := cuda.SetOptions(want); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]string{{"--cuda-tiles", "sometimes"}, {"--cuda-tiles", ""}, {"--cuda-loop", "17"}, {"--cuda-loop", "-1"}} {
		for _, cmd := range [][]string{{"run", "bfs", g, "--src", "0", "--backend", "cpu"}, {"verify", g, "--algo", "bfs", "--backend", "cpu"}} {
			out, err := cudaCmd(t, append(cmd, bad...)...)
			if err == nil || !strings.Contains(err.Error(), bad[0]) {
				t.Errorf("%s %v: error %v, want one naming %s\n%s", cmd[0], bad, err, bad[0], out)
			}
		}
		if got := cuda.CurrentOptions(); got != want {
			t.Errorf("after the refused %v: options %+v, want %+v", bad, got, want)
		}
	}
}

// TestCUDAFlagsServe: serve sets the options at its start, and refuses
// bad ones before it listens.
func TestCUDAFlagsServe(t *testing.T) {
	resetCUDAOptions(t)
	dir := t.TempDir()
	serveWith := func(args ...string) error {
		var so serveOptions
		fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
		so.lf.register(fs)
		so.cf.register(fs)
		if err := fs.Parse(args); err != nil {
			return err
		}
		so.cfg.Listen, so.cfg.DataDir, so.cfg.Backend = "127.0.0.1:0", dir, "cpu"
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		errc := make(chan error, 1)
		go func() { errc <- runServe(ctx, context.Background(), so, io.Discard, func(string) { cancel() }) }()
		return <-errc
	}
	if err := serveWith("--cuda-graphs=false", "--cuda-tiles=always", "--cuda-loop=1"); err != nil {
		t.Fatal(err)
	}
	want := cuda.Options{Texture: true, Graphs: false, Tiles: cuda.TilesAlways, LoopCluster: 1}
	if got := cuda.CurrentOptions(); got != want {
		t.Errorf("serve: options %+v, want %+v", got, want)
	}
	if err := serveWith("--cuda-loop=99"); err == nil || !strings.Contains(err.Error(), "--cuda-loop") {
		t.Errorf("serve --cuda-loop=99: %v, want an error naming --cuda-loop", err)
	}
}
