package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// One binary for every machine: what version says about the GPU, what
// --backend cuda does without one, and that --backend auto says where it
// ran.

// gpuStatus runs bin's version and returns whether the cuda backend is
// available and, when not, the reason version gives.
func gpuStatus(t *testing.T, bin string) (available bool, why string) {
	t.Helper()
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("hpgraph version: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`(?m)^backends: \[([^\]]*)\](?: \((.*)\))?$`).FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("hpgraph version has no backends line:\n%s", out)
	}
	names := strings.Fields(m[1])
	if len(names) == 0 || names[0] != "cpu" {
		t.Errorf("version lists backends %q, want cpu first", names)
	}
	for _, n := range names {
		if n == "cuda" {
			if m[2] != "" {
				t.Errorf("version lists cuda as available and gives a reason it is not: %q", m[2])
			}
			return true, ""
		}
	}
	if m[2] == "" {
		t.Fatalf("version lists no cuda backend and gives no reason:\n%s", out)
	}
	return false, m[2]
}

// gpuReasons are the causes the backend names when it cannot run.
var gpuReasons = regexp.MustCompile(`no NVIDIA driver|the NVIDIA driver is too old|reports no device|requested, the driver reports|not a device ordinal|did not start|compute capability|built without cgo`)

// runSplit runs bin and returns its stdout, stderr and exit code.
func runSplit(t *testing.T, bin string, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if s := stdout.String() + stderr.String(); strings.Contains(s, "panic:") || strings.Contains(s, "goroutine ") {
		t.Fatalf("hpgraph %v panicked:\n%s", args, s)
	}
	return stdout.String(), stderr.String(), code
}

// checkNoGPU: run --backend cuda exits 1 with one line on stderr that
// names the backend and the reason version gave.
func checkNoGPU(t *testing.T, bin, graph string) {
	t.Helper()
	available, why := gpuStatus(t, bin)
	if available {
		t.Skip("a GPU is usable here: --backend cuda runs (the GPU tests check it)")
	}
	if !gpuReasons.MatchString(why) {
		t.Errorf("version's reason %q names none of the known causes", why)
	}
	stdout, stderr, code := runSplit(t, bin, "run", "bfs", graph, "--backend", "cuda")
	if code != 1 {
		t.Fatalf("run --backend cuda without a GPU: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	msg := strings.TrimSuffix(stderr, "\n")
	if msg == "" || strings.Contains(msg, "\n") {
		t.Errorf("run --backend cuda: stderr is not one line:\n%s", stderr)
	}
	if !strings.HasPrefix(msg, "hpgraph: ") || !strings.Contains(msg, "cuda") || !strings.Contains(msg, why) {
		t.Errorf("run --backend cuda: %q does not name the backend and the reason %q", msg, why)
	}
	if strings.Contains(stdout, "result:") {
		t.Errorf("run --backend cuda printed a result without a GPU:\n%s", stdout)
	}
	t.Logf("%s", msg)
	// bench says why too.
	stdout, stderr, code = runSplit(t, bin, "bench", "grid:3x3", "--backend", "cuda", "--runs", "1")
	if code == 0 || !strings.Contains(stderr, why) {
		t.Errorf("bench --backend cuda without a GPU: exit %d, stderr %q does not give the reason %q", code, stderr, why)
	}
}

func TestBackendCudaWithoutGPU(t *testing.T) {
	g := filepath.Join(t.TempDir(), "k8.hpg")
	if out, code := hpgraph(t, "gen", "kron", "--scale", "8", "-o", g); code != 0 {
		t.Fatalf("gen: exit %d:\n%s", code, out)
	}
	t.Run("default build", func(t *testing.T) { checkNoGPU(t, binary(t), g) })
	// Built without cgo, the binary still starts and says why.
	t.Run("CGO_ENABLED=0", func(t *testing.T) {
		bin := filepath.Join(t.TempDir(), "hpgraph-nocgo")
		cmd := exec.Command("go", "build", "-o", bin, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("CGO_ENABLED=0 go build: %v\n%s", err, out)
		}
		if _, why := gpuStatus(t, bin); !strings.Contains(why, "built without cgo") {
			t.Errorf("a build without cgo gives the reason %q, want it to say so", why)
		}
		checkNoGPU(t, bin, g)
	})
}

// --backend auto runs, on the GPU where version says one is usable, else
// on the CPU, and run's and verify's output say which. Where a GPU is
// usable, one answer races the CPU against it (either may answer: the
// CPU, on so small a graph, while the GPU opens) and run says who won
// and why; where none is, nothing races, and run says why no device was
// set up.
func TestBackendAutoSaysWhichRan(t *testing.T) {
	g := filepath.Join(t.TempDir(), "k8.hpg")
	if out, code := hpgraph(t, "gen", "kron", "--scale", "8", "-o", g); code != 0 {
		t.Fatalf("gen: exit %d:\n%s", code, out)
	}
	available, why := gpuStatus(t, binary(t))
	out, code := hpgraph(t, "run", "bfs", g, "--backend", "auto")
	if code != 0 {
		t.Fatalf("run --backend auto: exit %d:\n%s", code, out)
	}
	m := regexp.MustCompile(`(?m)^bfs on .*, backend (\S+)( \((.*)\))?$`).FindStringSubmatch(out)
	switch {
	case m == nil:
		t.Fatalf("run --backend auto does not say which backend ran:\n%s", out)
	case available:
		winner := map[string]string{"cpu": "raced: the CPU answered", "cuda": "raced: cuda answered"}[m[1]]
		if winner == "" || !strings.HasPrefix(m[3], winner) {
			t.Errorf("run --backend auto with a GPU answered on %q, saying %q: want the race's winner, cpu or cuda, and why:\n%s", m[1], m[3], out)
		}
	case m[1] != "cpu" || m[2] != "" || !strings.Contains(out, "no device set-up (--backend auto: the GPU is not used: "+why):
		t.Errorf("run --backend auto without a GPU (%s): want the cpu backend, no race, and why no device was set up:\n%s", why, out)
	}
	if !strings.Contains(out, "result: ") {
		t.Errorf("run --backend auto printed no result:\n%s", out)
	}

	out, code = hpgraph(t, "verify", "--backend", "auto", "--algo", "bfs", g)
	if code != 0 {
		t.Fatalf("verify --backend auto: exit %d:\n%s", code, out)
	}
	row := regexp.MustCompile(`(?m)^\S+\s+bfs\s+(\S+)\s.*PASS\s*$`).FindStringSubmatch(out)
	if row == nil {
		t.Fatalf("verify --backend auto has no passing bfs row:\n%s", out)
	}
	want := "cpu"
	if available {
		want = "cuda"
	}
	if row[1] != want {
		t.Errorf("verify --backend auto's backend column is %q, want %q:\n%s", row[1], want, out)
	}
}
