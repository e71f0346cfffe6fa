package measure

import (
	"bufio"
	"errors"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hpgraph/hpgraph/internal/par"
)

// CPUModel is the host's CPU model (/proc/cpuinfo's "model name"), or
// "ARCH CPU" where it cannot say.
func CPUModel() string {
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		defer f.Close()
		if m := cpuModel(f); m != "" {
			return m
		}
	}
	return runtime.GOARCH + " CPU"
}

// cpuModel is the first "model name" of a /proc/cpuinfo, or "".
func cpuModel(r io.Reader) string {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// MemTotal is the host's memory in bytes (/proc/meminfo's MemTotal).
func MemTotal() (int64, error) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, err
	}
	if n, ok := kibField(string(b), "MemTotal:"); ok {
		return n, nil
	}
	return 0, errors.New("no MemTotal in /proc/meminfo")
}

// kibField is the value of the line "KEY N kB" of a /proc file, in bytes.
func kibField(text, key string) (int64, bool) {
	for _, l := range strings.Split(text, "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == key {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// HostPeakBytes is the most resident memory this process has held (VmHWM
// from /proc/self/status; getrusage's maxrss where /proc cannot say).
func HostPeakBytes() int64 {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		if n, ok := kibField(string(b), "VmHWM:"); ok {
			return n
		}
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
		return int64(ru.Maxrss) << 10 // kilobytes on Linux
	}
	return 0
}

// CopyBandwidth copies size bytes reps times, split over every core
// (par.Blocks), and returns the best rate in bytes per second, counting
// bytes read plus bytes written (as STREAM Copy does); 0 for no bytes.
func CopyBandwidth(size, reps int) float64 {
	if size <= 0 || reps <= 0 {
		return 0
	}
	src, dst := make([]byte, size), make([]byte, size)
	// Touch both buffers first so page faults are not timed.
	par.Blocks(size, func(_, lo, hi int) {
		for i := lo; i < hi; i += 4096 {
			src[i] = byte(i >> 12)
		}
		copy(dst[lo:hi], src[lo:hi])
	})
	best := time.Duration(math.MaxInt64)
	for range reps {
		t0 := time.Now()
		par.Blocks(size, func(_, lo, hi int) { copy(dst[lo:hi], src[lo:hi]) })
		best = min(best, time.Since(t0))
	}
	return 2 * float64(size) / max(best.Seconds(), 1e-9)
}

// BuildVCS is the module version, VCS revision and whether the tree was
// modified, as the Go tool stamped them (go build does; go run and go test
// do not). Unstamped, it asks git about the working directory when that is
// a checkout of this module, and says so in from.
func BuildVCS() (ver, rev string, modified bool, from string) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown", "", false, ""
	}
	ver = bi.Main.Version
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev != "" {
		return ver, rev, modified, "build info"
	}
	if rev, modified, ok = gitWorkingTree(bi.Main.Path); ok {
		return ver, rev, modified, "git in the working directory (binary not stamped)"
	}
	return ver, "", false, ""
}

// gitWorkingTree reads HEAD and whether tracked files changed, when the
// working directory is in a git checkout of module; read-only (no index
// refresh).
func gitWorkingTree(module string) (rev string, modified, ok bool) {
	top, err := git("rev-parse", "--show-toplevel")
	if err != nil || module == "" {
		return "", false, false
	}
	mod, err := os.ReadFile(filepath.Join(top, "go.mod"))
	if err != nil || !regexp.MustCompile(`(?m)^module\s+`+regexp.QuoteMeta(module)+`\s*$`).Match(mod) {
		return "", false, false
	}
	if rev, err = git("rev-parse", "HEAD"); err != nil {
		return "", false, false
	}
	status, err := git("status", "--porcelain", "--untracked-files=no")
	return rev, err == nil && status != "", true
}

// git runs git in the working directory without taking its locks.
func git(args ...string) (string, error) {
	c := exec.Command("git", args...)
	c.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
	out, err := c.Output()
	return strings.TrimSpace(string(out)), err
}
