//go:build cgo

package cuda

import (
	"testing"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// TestPinnedCopyBack: memory vertexprog.Pin locked takes dtoh's DMA path
// and gets the device's bytes, before and after its unpin (the staged
// path), and a second Pin of the same memory fails without harm.
func TestPinnedCopyBack(t *testing.T) {
	d := needGPU(t)
	const n = 3 << 20 // 24 MB of float64: over stageMin, several stage chunks
	want := make([]float64, n)
	for i := range want {
		want[i] = float64(i)*0.5 - 7
	}
	var dev cu.DevicePtr
	if err := d.do("uploading", func() error {
		dev = cu.MemAlloc(n * 8)
		d.htod(dev, unsafe.Pointer(&want[0]), n*8)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	defer d.do("freeing", func() error { cu.MemFree(dev); return nil })
	got := make([]float64, n)
	unpin := vertexprog.Pin("cuda", got)
	if unpin == nil {
		t.Fatal("Pin locked nothing")
	}
	if again := vertexprog.Pin("cuda", got[:10]); again != nil {
		again()
		t.Error("memory locked twice")
	}
	check := func(what string, pinnedWant bool) {
		clear(got)
		if err := d.do("copying back", func() error {
			if d.isPinned(unsafe.Pointer(&got[0]), n*8) != pinnedWant {
				t.Errorf("%s: isPinned %v", what, !pinnedWant)
			}
			d.dtoh(unsafe.Pointer(&got[0]), dev, n*8)
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
