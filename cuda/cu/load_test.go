//go:build cgo

package cu

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// The tests run in this order on purpose: TestCallBeforeLoad must run
// before anything calls Load (where a driver is present, Load succeeds
// once for the whole process).

// requireGPU: HPGRAPH_REQUIRE_GPU set (the GPU machine's runs) turns the
// skips for a missing driver or device into failures.
func requireGPU() bool { return os.Getenv("HPGRAPH_REQUIRE_GPU") != "" }

// panicOf runs f and returns what it panicked with (nil if it returned).
func panicOf(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

// A driver call before Load must fail with ErrNotLoaded, not jump to a
// null function pointer.
func TestCallBeforeLoad(t *testing.T) {
	if Loaded() {
		t.Skip("Load already succeeded in this process (a driver is present); run -test.run TestCallBeforeLoad alone to check calls before Load")
	}
	calls := map[string]func(){
		"Init":           func() { Init(0) },
		"Version":        func() { Version() },
		"DeviceGetCount": func() { DeviceGetCount() },
		"MemAlloc":       func() { MemAlloc(16) },
		"CtxSynchronize": func() { CtxSynchronize() },
	}
	for name, call := range calls {
		v := panicOf(call)
		err, ok := v.(error)
		if !ok || !errors.Is(err, ErrNotLoaded) {
			t.Errorf("%s before Load: panicked with %v (%T), want ErrNotLoaded", name, v, v)
		}
	}
	// MemFree(0) is a no-op and must stay one.
	if v := panicOf(func() { MemFree(0) }); v != nil {
		t.Errorf("MemFree(0) before Load panicked: %v", v)
	}
	// Without the driver, codes are named from this package's table.
	if got := ERROR_OUT_OF_MEMORY.String(); got != "CUDA_ERROR_OUT_OF_MEMORY" {
		t.Errorf("ERROR_OUT_OF_MEMORY.String() = %q", got)
	}
	if got := Result(12345).String(); got != "CUresult 12345" {
		t.Errorf("Result(12345).String() = %q", got)
	}
}

// Opening a library that is not there is ErrNoDriver, naming it; this
// runs everywhere and commits nothing.
func TestOpenMissingLibrary(t *testing.T) {
	const name = "libhpgraph-no-such-driver.so.1"
	lib, err := open(name)
	if err == nil || lib != nil {
		t.Fatalf("open(%q) = %v, %v; want an error", name, lib, err)
	}
	if !errors.Is(err, ErrNoDriver) {
		t.Errorf("open(%q): %v does not wrap ErrNoDriver", name, err)
	}
	if !strings.Contains(err.Error(), name) {
		t.Errorf("open(%q): %q does not name the library", name, err)
	}
	if errors.Is(err, ErrDriverTooOld) {
		t.Errorf("open(%q): %v wraps ErrDriverTooOld too", name, err)
	}
}

// Without libcuda.so.1, Load says there is no driver, keeps saying it,
// and calls still fail cleanly afterwards.
func TestLoadWithoutDriver(t *testing.T) {
	err := Load()
	if err == nil {
		t.Skipf("a driver is present (%s loaded): nothing to check without one", Library)
	}
	if errors.Is(err, ErrDriverTooOld) {
		t.Skipf("%s is present but too old: %v", Library, err)
	}
	if requireGPU() {
		t.Fatalf("HPGRAPH_REQUIRE_GPU is set but Load failed: %v", err)
	}
	if !errors.Is(err, ErrNoDriver) {
		t.Fatalf("Load() = %v, want an error wrapping ErrNoDriver", err)
	}
	if !strings.Contains(err.Error(), Library) {
		t.Errorf("Load() = %q does not name %s", err, Library)
	}
	if Loaded() {
		t.Error("Loaded() is true after a failed Load")
	}
	if again := Load(); again != err {
		t.Errorf("second Load() = %v, want the first answer %v", again, err)
	}
	if v := panicOf(func() { Init(0) }); v == nil {
		t.Error("Init after a failed Load did not fail")
	} else if e, ok := v.(error); !ok || !errors.Is(e, ErrNotLoaded) {
		t.Errorf("Init after a failed Load panicked with %v, want ErrNotLoaded", v)
	}
}

// Where there is a driver and a GPU: a context, device memory written,
// copied and read back, pinned memory and an async copy.
func TestDriverRoundTrip(t *testing.T) {
	if err := Load(); err != nil {
		if requireGPU() {
			t.Fatalf("Load: %v", err)
		}
		t.Skipf("no usable driver here: %v", err)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if v := panicOf(func() { Init(0) }); v != nil {
		if requireGPU() {
			t.Fatalf("Init: %v", v)
		}
		t.Skipf("the driver did not start: %v", v)
	}
	if v := Version(); v < 11080 {
		t.Errorf("Version() = %d, but Load accepted the driver (needs CUDA %s)", v, MinDriver)
	}
	n := DeviceGetCount()
	if n == 0 {
		if requireGPU() {
			t.Fatal("the driver reports no device")
		}
		t.Skip("the driver reports no device")
	}
	dev := DeviceGet(0)
	major, minor := dev.ComputeCapability()
	t.Logf("driver %d, %d device(s); device 0: %s, compute %d.%d, %d SMs, %d MiB",
		Version(), n, dev.Name(), major, minor, dev.Attribute(MULTIPROCESSOR_COUNT), dev.TotalMem()>>20)
	if dev.Name() == "" || major < 1 || dev.TotalMem() <= 0 || dev.Attribute(MULTIPROCESSOR_COUNT) <= 0 {
		t.Errorf("implausible device 0: %q, compute %d.%d, %d bytes", dev.Name(), major, minor, dev.TotalMem())
	}

	ctx := CtxCreate(CTX_SCHED_AUTO, dev)
	if ctx == 0 {
		t.Fatal("CtxCreate returned a null context")
	}
	if cur := CtxGetCurrent(); cur != ctx {
		t.Errorf("CtxGetCurrent() = %#x, want the new context %#x", cur, ctx)
	}
	free, total := MemGetInfo()
	if free <= 0 || free > total {
		t.Errorf("MemGetInfo() = %d free of %d", free, total)
	}

	const words = 1<<20 + 3 // not a round size
	const bytes = words * 4
	src := make([]uint32, words)
	for i := range src {
		src[i] = uint32(i)*2654435761 + 17
	}
	a, b := MemAlloc(bytes), MemAlloc(bytes)
	defer a.Free()
	defer b.Free()
	MemcpyHtoD(a, unsafe.Pointer(&src[0]), bytes)
	MemsetD32(b, 0xdeadbeef, words)
	MemcpyDtoD(b, a, bytes-4) // the last word keeps the memset's value
	got := make([]uint32, words)
	MemcpyDtoH(unsafe.Pointer(&got[0]), b, bytes)
	for i := range got {
		want := src[i]
		if i == words-1 {
			want = 0xdeadbeef
		}
		if got[i] != want {
			t.Fatalf("word %d after HtoD, memset, DtoD, DtoH: %#x, want %#x", i, got[i], want)
		}
	}

	// Pinned memory and the async copies on the default stream.
	pinned := MemAllocHost(bytes)
	defer MemFreeHost(pinned)
	host := unsafe.Slice((*uint32)(pinned), words)
	for i := range host {
		host[i] = ^src[i]
	}
	MemcpyHtoDAsync(a, pinned, bytes, 0)
	CtxSynchronize() // (the copy reads the host memory while it runs)
	clear(host)
	MemcpyDtoHAsync(pinned, a, bytes, 0)
	CtxSynchronize()
	for i := range host {
		if host[i] != ^src[i] {
			t.Fatalf("word %d after the async round trip: %#x, want %#x", i, host[i], ^src[i])
		}
	}

	// A failed call panics with its Result (not ErrNotLoaded), named by
	// the driver: a device ordinal past the last.
	v := panicOf(func() { DeviceGet(n) })
	if r, ok := v.(Result); !ok || r != ERROR_INVALID_DEVICE {
		t.Errorf("DeviceGet(%d) of %d devices panicked with %v (%T), want ERROR_INVALID_DEVICE", n, n, v, v)
	} else if r.String() != "CUDA_ERROR_INVALID_DEVICE" {
		t.Errorf("ERROR_INVALID_DEVICE.String() with the driver loaded = %q", r.String())
	}
}
