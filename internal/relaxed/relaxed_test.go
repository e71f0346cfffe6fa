package relaxed

import (
	"sync"
	"sync/atomic"
	"testing"
)

// TestStoreInt32: stores land where they are aimed and nowhere else, and
// a reader loading atomically while another goroutine stores sees only
// values that were stored.
func TestStoreInt32(t *testing.T) {
	a := make([]int32, 8)
	for i := range a {
		StoreInt32(&a[i], int32(-i-1))
	}
	StoreInt32(&a[3], 1<<30)
	for i, x := range a {
		want := int32(-i - 1)
		if i == 3 {
			want = 1 << 30
		}
		if x != want {
			t.Fatalf("a[%d] = %d, want %d", i, x, want)
		}
	}
	var x int32
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := int32(0); i < 100000; i++ {
			StoreInt32(&x, i<<8|i&0xff)
		}
	}()
	for i := 0; i < 100000; i++ {
		if v := atomic.LoadInt32(&x); v>>8&0xff != v&0xff {
			t.Fatalf("loaded %#x: not a stored value", v)
		}
	}
	wg.Wait()
	if x != 99999<<8|99999&0xff {
		t.Fatalf("last store %#x, loaded %#x", 99999<<8|99999&0xff, x)
	}
}
