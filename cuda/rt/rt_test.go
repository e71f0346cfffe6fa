//go:build cgo

package rt

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/internal/gputest"
)

var testDev gputest.Device[*Device]

// needGPU is device 0, opened once for the package's tests, or skips t
// without a GPU (gputest.Need).
func needGPU(t testing.TB) *Device {
	t.Helper()
	return testDev.Get(t, func() (*Device, error) { return Open(0) })
}

// TestCatchNamesBugSite: a Go runtime error recovered from a device call
// (a bug, not a driver error) says where it was raised.
func TestCatchNamesBugSite(t *testing.T) {
	var s []int
	i := 5
	err := Catch("testing", func() error { s[i]++; return nil })
	if err == nil || !strings.Contains(err.Error(), "index out of range") || !strings.Contains(err.Error(), "rt_test.go:") {
		t.Fatalf("Catch: %v; want the runtime error and its site", err)
	}
	if err := Catch("testing", func() error { panic(errors.New("plain")) }); err == nil || strings.Contains(err.Error(), " (at ") {
		t.Fatalf("Catch of a plain error: %v", err)
	}
}

// TestOpenWithoutDevice: opening a device the driver does not list (or
// any, without a driver) is ErrNoGPU, and so is counting them without a
// driver.
func TestOpenWithoutDevice(t *testing.T) {
	n, err := DeviceCount()
	if err != nil {
		if !errors.Is(err, ErrNoGPU) {
			t.Errorf("DeviceCount: %v is not ErrNoGPU", err)
		}
		n = 0
	}
	for _, o := range []int{-1, n, n + 7} {
		if _, err := Open(o); !errors.Is(err, ErrNoGPU) {
			t.Errorf("Open(%d) with %d devices: %v, want ErrNoGPU", o, n, err)
		}
	}
}

func TestDriverPanicBecomesError(t *testing.T) {
	d := needGPU(t)
	err := d.Do("allocating 4 EiB", func() error {
		cu.MemAlloc(1 << 62)
		return nil
	})
	if err == nil {
		t.Fatal("allocating 4 EiB succeeded")
	}
	t.Log(err)
	var de *Error
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "CUDA_ERROR_") {
		t.Errorf("error %q: want an *Error naming the CUDA error", err)
	}
	if strings.Contains(err.Error(), "CUDA_ERROR_OUT_OF_MEMORY") && !errors.Is(err, ErrOutOfMemory) {
		t.Errorf("error %q is not ErrOutOfMemory", err)
	}
	// The device survives.
	if err := d.Do("a plain call", func() error { cu.MemGetInfo(); return nil }); err != nil {
		t.Fatal(err)
	}
}

// TestPinnedCopyBack: memory Pin locked takes DtoH's DMA path and gets
// the device's bytes, before and after its unpin (the staged path), and a
// second Pin of the same memory fails without harm.
func TestPinnedCopyBack(t *testing.T) {
	d := needGPU(t)
	const n = 3 << 20 // 24 MB of float64: over stageMin, several stage chunks
	want := make([]float64, n)
	for i := range want {
		want[i] = float64(i)*0.5 - 7
	}
	var dev cu.DevicePtr
	if err := d.Do("uploading", func() error {
		dev = cu.MemAlloc(n * 8)
		d.HtoD(dev, unsafe.Pointer(&want[0]), n*8)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	defer d.Do("freeing", func() error { cu.MemFree(dev); return nil })
	got := make([]float64, n)
	unpin, err := d.Pin(unsafe.Pointer(&got[0]), n*8)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := d.Pin(unsafe.Pointer(&got[0]), 80); err == nil {
		again()
		t.Error("memory locked twice")
	}
	check := func(what string, pinnedWant bool) {
		clear(got)
		if err := d.Do("copying back", func() error {
			if d.isPinned(unsafe.Pointer(&got[0]), n*8) != pinnedWant {
				t.Errorf("%s: isPinned %v", what, !pinnedWant)
			}
			d.DtoH(unsafe.Pointer(&got[0]), dev, n*8)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: element %d is %v, want %v", what, i, got[i], want[i])
			}
		}
	}
	check("pinned", true)
	unpin()
	unpin() // (a second call does nothing)
	check("unpinned", false)
}

// TestTransferRates logs host<->device copy rates of 64 MiB, through the
// pinned staging buffers and plain (HPGRAPH_CUDA_TIMINGS set), and checks
// the round trip.
func TestTransferRates(t *testing.T) {
	if os.Getenv("HPGRAPH_CUDA_TIMINGS") == "" {
		t.Skip("HPGRAPH_CUDA_TIMINGS=SCALE runs it")
	}
	d := needGPU(t)
	const size = 64 << 20
	host := make([]byte, size)
	for i := range host {
		host[i] = byte(i * 7)
	}
	defer func(h Hooks) { d.Hooks = h }(d.Hooks)
	err := d.Do("timing copies", func() error {
		p := cu.MemAlloc(size)
		defer cu.MemFree(p)
		for _, st := range []bool{false, true} {
			d.Hooks.Unstaged = !st
			best := [2]time.Duration{time.Hour, time.Hour}
			for i := 0; i < 4; i++ {
				t0 := time.Now()
				d.HtoD(p, unsafe.Pointer(&host[0]), size)
				best[0] = min(best[0], time.Since(t0))
				t0 = time.Now()
				d.DtoH(unsafe.Pointer(&host[0]), p, size)
				best[1] = min(best[1], time.Since(t0))
			}
			t.Logf("staged=%v: 64 MiB host->device %v (%.1f GB/s), device->host %v (%.1f GB/s)", st,
				best[0], size/best[0].Seconds()/1e9, best[1], size/best[1].Seconds()/1e9)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range host {
		if host[i] != byte(i*7) {
			t.Fatalf("byte %d changed in the round trip", i)
		}
	}
}

// BenchmarkAlloc is what cuMemAlloc and cuMemFree of the sizes PREPROCESS
// allocates cost (a kron21 orientation's records are four of ~130 MB):
// whether a pool of freed device memory would pay.
func BenchmarkAlloc(b *testing.B) {
	d := needGPU(b)
	for _, mib := range []int64{1, 16, 128, 512} {
		b.Run(fmt.Sprintf("%dMiB", mib), func(b *testing.B) {
			for b.Loop() {
				_ = d.Do("allocating", func() error {
					cu.MemAlloc(mib << 20).Free()
					return nil
				})
			}
		})
	}
}
