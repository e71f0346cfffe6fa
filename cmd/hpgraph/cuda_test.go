package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/cuda"
	"github.com/spf13/pflag"
)

// The GPU backend's devices and options as flags (--devices, --cuda-*):
// every command that runs programs has them, with device 0 and
// cuda.DefaultOptions() as defaults, and what they say reaches the
// registered backend (cuda.Registered) before the runs start (checked on
// the CPU backend: no GPU needed), or is refused.

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

// device0 is --devices' default.
var device0 = cuda.DeviceList{Ordinals: []int{0}}

// resetCUDAOptions sets the defaults back when t ends (the commands set
// the registered backend's devices and options).
func resetCUDAOptions(t *testing.T) {
	t.Cleanup(func() { _ = cuda.Configure(device0, cuda.DefaultOptions()) })
}

// cudaConfig is what the registered backend was configured with.
func cudaConfig() (string, cuda.Options) {
	b := cuda.Registered()
	return b.Devices().String(), b.Options()
}

func TestCUDAFlagsRegistered(t *testing.T) {
	d := cuda.DefaultOptions()
	want := map[string]string{"devices": "0", "cuda-texture": "true", "cuda-graphs": "true", "cuda-tiles": "auto", "cuda-loop": "16"}
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
	flags := []string{"--cuda-texture=false", "--cuda-graphs=false", "--cuda-tiles", "never", "--cuda-loop", "4", "--devices", "1,0"}
	want := cuda.Options{Texture: false, Graphs: false, Tiles: cuda.TilesNever, LoopCluster: 4}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"run", []string{"run", "bfs", g, "--src", "0", "--backend", "cpu"}},
		{"verify", []string{"verify", g, "--algo", "bfs", "--backend", "cpu"}},
		{"bench", []string{"bench", "grid:4x4", "--algo", "bfs", "--backend", "cpu", "--runs", "1"}},
	} {
		if err := cuda.Configure(device0, cuda.DefaultOptions()); err != nil {
			t.Fatal(err)
		}
		if out, err := cudaCmd(t, append(c.args, flags...)...); err != nil {
			t.Fatalf("%s: %v\n%s", c.name, err, out)
		}
		if devs, got := cudaConfig(); got != want || devs != "1,0" {
			t.Errorf("%s: devices %s, options %+v, want 1,0 and %+v", c.name, devs, got, want)
		}
		// Without the flags, a command sets the defaults again.
		if out, err := cudaCmd(t, c.args...); err != nil {
			t.Fatalf("%s: %v\n%s", c.name, err, out)
		}
		if devs, got := cudaConfig(); got != cuda.DefaultOptions() || devs != "0" {
			t.Errorf("%s without --cuda-*: devices %s, options %+v, want 0 and the defaults", c.name, devs, got)
		}
	}
	for _, tiles := range []string{"always", "auto"} {
		if out, err := cudaCmd(t, "run", "bfs", g, "--src", "0", "--backend", "cpu", "--cuda-tiles", tiles); err != nil {
			t.Fatalf("--cuda-tiles %s: %v\n%s", tiles, err, out)
		}
		if _, o := cudaConfig(); o.Tiles.String() != tiles {
			t.Errorf("--cuda-tiles %s: options say %s", tiles, o.Tiles)
		}
	}

	if out, err := cudaCmd(t, "run", "bfs", g, "--src", "0", "--backend", "cpu", "--devices", "all"); err != nil {
		t.Fatalf("--devices all: %v\n%s", err, out)
	}
	if d := cuda.Registered().Devices(); !d.All || d.First() != 0 {
		t.Errorf("--devices all: the registered backend lists %v", d)
	}

	// Bad values are refused before anything runs, and change nothing.
	if err := cuda.Configure(cuda.DeviceList{Ordinals: []int{2, 3}}, want); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]string{{"--cuda-tiles", "sometimes"}, {"--cuda-tiles", ""}, {"--cuda-loop", "17"}, {"--cuda-loop", "-1"},
		{"--devices", ""}, {"--devices", "-1"}, {"--devices", "0,0"}, {"--devices", "gpu0"}} {
		for _, cmd := range [][]string{{"run", "bfs", g, "--src", "0", "--backend", "cpu"}, {"verify", g, "--algo", "bfs", "--backend", "cpu"}} {
			out, err := cudaCmd(t, append(cmd, bad...)...)
			if err == nil || !strings.Contains(err.Error(), bad[0]) {
				t.Errorf("%s %v: error %v, want one naming %s\n%s", cmd[0], bad, err, bad[0], out)
			}
		}
		if devs, got := cudaConfig(); got != want || devs != "2,3" {
			t.Errorf("after the refused %v: devices %s, options %+v, want 2,3 and %+v", bad, devs, got, want)
		}
	}
}

// TestCUDAFlagsServe: serve sets the devices and options at its start,
// and refuses bad ones before it listens.
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
	if err := serveWith("--cuda-graphs=false", "--cuda-tiles=always", "--cuda-loop=1", "--devices=1"); err != nil {
		t.Fatal(err)
	}
	want := cuda.Options{Texture: true, Graphs: false, Tiles: cuda.TilesAlways, LoopCluster: 1}
	if devs, got := cudaConfig(); got != want || devs != "1" {
		t.Errorf("serve: devices %s, options %+v, want 1 and %+v", devs, got, want)
	}
	if err := serveWith("--cuda-loop=99"); err == nil || !strings.Contains(err.Error(), "--cuda-loop") {
		t.Errorf("serve --cuda-loop=99: %v, want an error naming --cuda-loop", err)
	}
	if err := serveWith("--devices=0,x"); err == nil || !strings.Contains(err.Error(), "--devices") {
		t.Errorf("serve --devices=0,x: %v, want an error naming --devices", err)
	}
	if d := cuda.Registered().Devices(); !slices.Equal(d.Ordinals, []int{1}) {
		t.Errorf("after the refused serve: devices %v, want 1", d)
	}
}
