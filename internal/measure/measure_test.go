package measure

import (
	"math"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestMedianAndStats(t *testing.T) {
	for _, c := range []struct {
		xs          []float64
		med, lo, hi float64
	}{
		{nil, 0, 0, 0},
		{[]float64{7}, 7, 7, 7},
		{[]float64{3, 1}, 2, 1, 3},
		{[]float64{10, 1, 2}, 2, 1, 10},
		{[]float64{3, 1, 2, 10}, 2.5, 1, 10},
	} {
		in := slices.Clone(c.xs)
		med, lo, hi := Stats(c.xs)
		if med != c.med || lo != c.lo || hi != c.hi {
			t.Errorf("Stats(%v) = %g, %g, %g; want %g, %g, %g", c.xs, med, lo, hi, c.med, c.lo, c.hi)
		}
		if !slices.Equal(in, c.xs) {
			t.Errorf("Stats changed its input: %v -> %v", in, c.xs)
		}
	}
	// 1..n in reverse: the median is (n+1)/2, the min 1, the max n.
	for n := 1; n <= 50; n++ {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(n - i)
		}
		if med, lo, hi := Stats(xs); med != float64(n+1)/2 || lo != 1 || hi != float64(n) {
			t.Errorf("1..%d: %g, %g, %g", n, med, lo, hi)
		}
	}
	if got := MS(1500 * time.Microsecond); got != 1.5 {
		t.Errorf("MS(1.5ms) = %g", got)
	}
}

func TestProcParsers(t *testing.T) {
	cpuinfo := "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Platinum 8480+\nflags\t: fpu\n\nprocessor\t: 1\nmodel name\t: other\n"
	if got := cpuModel(strings.NewReader(cpuinfo)); got != "Intel(R) Xeon(R) Platinum 8480+" {
		t.Errorf("cpuModel: %q", got)
	}
	if got := cpuModel(strings.NewReader("processor\t: 0\n")); got != "" {
		t.Errorf("cpuModel with no model: %q", got)
	}
	status := "Name:\thpgraph\nVmPeak:\t  200 kB\nVmHWM:\t    1536 kB\n"
	if n, ok := kibField(status, "VmHWM:"); !ok || n != 1536<<10 {
		t.Errorf("VmHWM: %d, %v", n, ok)
	}
	if _, ok := kibField(status, "MemTotal:"); ok {
		t.Error("a missing key found")
	}
	if _, ok := kibField("MemTotal: lots kB\n", "MemTotal:"); ok {
		t.Error("a value that is no number read")
	}
}

func TestHostFacts(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc and sysinfo are Linux's")
	}
	// MemTotal against the kernel's sysinfo (the same count, in its own
	// unit: /proc rounds it to kB).
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		t.Fatal(err)
	}
	mem, err := MemTotal()
	want := int64(si.Totalram) * int64(si.Unit)
	if err != nil || mem > want || want-mem >= 1024 {
		t.Errorf("MemTotal = %d, %v; sysinfo says %d", mem, err, want)
	}
	// The peak covers 64 MiB just touched.
	b := make([]byte, 64<<20)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	if peak := HostPeakBytes(); peak < int64(len(b)) {
		t.Errorf("HostPeakBytes = %d after touching %d", peak, len(b))
	}
	runtime.KeepAlive(b)
	if got := CopyBandwidth(0, 5); got != 0 {
		t.Errorf("CopyBandwidth of nothing: %g", got)
	}
	if bw := CopyBandwidth(1<<20, 3); !(bw > 0) || math.IsInf(bw, 0) {
		t.Errorf("CopyBandwidth: %g", bw)
	}
	if CPUModel() == "" {
		t.Error("no CPU model")
	}
}

func TestGitWorkingTree(t *testing.T) {
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skip("not in a git checkout:", err)
	}
	rev, _, ok := gitWorkingTree("github.com/hpgraph/hpgraph")
	if !ok || rev != strings.TrimSpace(string(head)) {
		t.Errorf("gitWorkingTree: %q, %v; git says %s", rev, ok, head)
	}
	if _, _, ok := gitWorkingTree("example.com/another"); ok {
		t.Error("another module's checkout taken for this one")
	}
	// (go test's binaries are not stamped: the working tree answers)
	if _, rev, _, from := BuildVCS(); rev != strings.TrimSpace(string(head)) || from == "" {
		t.Errorf("BuildVCS: %q from %q", rev, from)
	}
}
