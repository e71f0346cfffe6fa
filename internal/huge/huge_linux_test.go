package huge

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestMakeAdvises checks, in the kernel's own account of this process
// (/proc/self/smaps), that a large Make's whole huge pages lie in a
// mapping advised for huge pages (VmFlags "hg"), and that its elements
// are zero.
func TestMakeAdvises(t *testing.T) {
	if b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("no transparent huge pages here:", err)
	} else if strings.Contains(string(b), "[never]") {
		t.Skip("transparent huge pages are off here")
	}
	s := Make[float64](3 << 20 >> 3 * 8) // 24 MiB
	for i, x := range s {
		if x != 0 {
			t.Fatalf("s[%d] = %v, want 0", i, x)
		}
	}
	const page = 2 << 20
	p := uintptr(unsafe.Pointer(&s[0]))
	lo := (p + page - 1) &^ (page - 1)
	flags, ok := vmFlags(t, lo)
	if !ok {
		t.Fatalf("no mapping holds %#x in /proc/self/smaps", lo)
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Errorf("the mapping at %#x has VmFlags %q, want hg (MADV_HUGEPAGE)", lo, flags)
	}
	for i := range s {
		s[i] = float64(i)
	}
}

// vmFlags is the VmFlags line of the mapping that holds address a.
func vmFlags(t *testing.T, a uintptr) (string, bool) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		if r, _, ok := strings.Cut(line, " "); ok && strings.Contains(r, "-") && !strings.HasSuffix(r, ":") {
			lo, hi, _ := strings.Cut(r, "-")
			l, err1 := strconv.ParseUint(lo, 16, 64)
			h, err2 := strconv.ParseUint(hi, 16, 64)
			in = err1 == nil && err2 == nil && uint64(a) >= l && uint64(a) < h
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:")), true
		}
	}
	return "", false
}
