package bitmask

import (
	"math/rand/v2"
	"sync"
	"testing"
)

func TestAgainstMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 31, 32, 33, 1000} {
		b := New(n)
		ref := map[int32]bool{}
		for i := 0; i < 3*n; i++ {
			v := int32(rng.IntN(n))
			b.Set(v)
			ref[v] = true
		}
		if b.Count() != len(ref) {
			t.Fatalf("n=%d: Count %d, want %d", n, b.Count(), len(ref))
		}
		var got []int32
		b.ForEachInWords(0, b.NumWords(), func(v int32) { got = append(got, v) })
		for i, v := range got {
			if !ref[v] || (i > 0 && got[i-1] >= v) {
				t.Fatalf("n=%d: ForEach gave %v out of order or not in set", n, v)
			}
		}
		if len(got) != len(ref) {
			t.Fatalf("n=%d: ForEach visited %d, want %d", n, len(got), len(ref))
		}
		// AppendWords lists the same members, in two halves.
		half := b.NumWords() / 2
		listed := b.AppendWords(b.AppendWords([]int32{-1}, 0, half), half, b.NumWords())
		if len(listed) != len(got)+1 || listed[0] != -1 {
			t.Fatalf("n=%d: AppendWords gave %d members, want %d after the -1 kept", n, len(listed)-1, len(got))
		}
		for i, v := range got {
			if listed[i+1] != v {
				t.Fatalf("n=%d: AppendWords[%d] = %d, ForEach %d", n, i, listed[i+1], v)
			}
		}
		b.SetAll()
		if b.Count() != n {
			t.Fatalf("n=%d: SetAll count %d", n, b.Count())
		}
		b.Clear()
		if b.Count() != 0 {
			t.Fatal("Clear left members")
		}
	}
}

func TestAtomicSet(t *testing.T) {
	const n = 4096
	b := New(n)
	var wg sync.WaitGroup
	newly := make([]int, 4)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for v := int32(0); v < n; v++ {
				if b.AtomicSet(v) {
					newly[w]++
				}
			}
		}()
	}
	wg.Wait()
	if total := newly[0] + newly[1] + newly[2] + newly[3]; total != n || b.Count() != n {
		t.Fatalf("AtomicSet reported %d first sets and count %d, want %d", total, b.Count(), n)
	}
}

// TestAtomicClear: concurrent clears of bits that share words leave
// exactly the bits nobody cleared.
func TestAtomicClear(t *testing.T) {
	const n = 4096
	b := New(n)
	b.SetAll()
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for v := int32(w); v < n; v += 8 { // workers 0-3 clear v%8 in 0..3
				b.AtomicClear(v)
			}
		}()
	}
	wg.Wait()
	for v := int32(0); v < n; v++ {
		if b.Test(v) != (v%8 >= 4) {
			t.Fatalf("bit %d is %v after the clears", v, b.Test(v))
		}
	}
	if b.AtomicSet(5) || !b.AtomicSet(3) || b.AtomicSet(3) {
		t.Fatal("AtomicSet of a set bit reported it absent, or of a clear bit present")
	}
}

func TestSwap(t *testing.T) {
	a, b := New(70), New(70)
	a.Set(3)
	b.Set(69)
	a.Swap(b)
	if !a.Test(69) || a.Test(3) || !b.Test(3) {
		t.Fatal("Swap did not exchange")
	}
}
