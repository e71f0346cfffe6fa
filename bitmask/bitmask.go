// Package bitmask holds the fixed-size bitsets of the engine (x_bitmask,
// active_bitmask): one bit per vertex in 32-bit words, the layout the GPU
// reads through a texture of unsigned 32-bit texels.
package bitmask

import (
	"math/bits"
	"sync/atomic"
)

// Bitmask is a set of vertices [0, Len()).
type Bitmask struct {
	words []uint32
	n     int
}

// New returns an empty set over n vertices.
func New(n int) *Bitmask { return &Bitmask{words: make([]uint32, (n+31)/32), n: n} }

// Len is the number of vertices the set ranges over.
func (b *Bitmask) Len() int { return b.n }

// Words exposes the backing words (bit i of word w is vertex 32w+i), for
// copying to a device. Bits at or beyond Len() are always zero.
func (b *Bitmask) Words() []uint32 { return b.words }

// Test reports whether v is in the set.
func (b *Bitmask) Test(v int32) bool { return b.words[v>>5]&(1<<(uint32(v)&31)) != 0 }

// Set adds v. Not safe against concurrent writers of the same word.
func (b *Bitmask) Set(v int32) { b.words[v>>5] |= 1 << (uint32(v) & 31) }

// AtomicSet adds v and reports whether it was absent, safely against
// concurrent writers. A bit already set costs a load, not a locked
// read-modify-write: a push sets a row's bit once and finds it set on
// every later edge into the row.
func (b *Bitmask) AtomicSet(v int32) bool {
	bit := uint32(1) << (uint32(v) & 31)
	w := &b.words[v>>5]
	if atomic.LoadUint32(w)&bit != 0 {
		return false
	}
	return atomic.OrUint32(w, bit)&bit == 0
}

// AtomicClear removes v, safely against concurrent writers.
func (b *Bitmask) AtomicClear(v int32) {
	atomic.AndUint32(&b.words[v>>5], ^(uint32(1) << (uint32(v) & 31)))
}

// Clear removes every vertex.
func (b *Bitmask) Clear() { clear(b.words) }

// ClearRange removes the vertices of words [lo, hi): a worker's share of a
// parallel clear.
func (b *Bitmask) ClearRange(lo, hi int) { clear(b.words[lo:hi]) }

// SetWords adds every vertex of words [lo, hi) (those below Len).
func (b *Bitmask) SetWords(lo, hi int) {
	for i := lo; i < hi; i++ {
		b.words[i] = ^uint32(0)
	}
	if r := b.n & 31; r != 0 && hi == len(b.words) && hi > lo {
		b.words[hi-1] = 1<<r - 1
	}
}

// SetAll adds every vertex.
func (b *Bitmask) SetAll() {
	for i := range b.words {
		b.words[i] = ^uint32(0)
	}
	if r := b.n & 31; r != 0 {
		b.words[len(b.words)-1] = 1<<r - 1
	}
}

// Count is the number of vertices in the set.
func (b *Bitmask) Count() int {
	c := 0
	for _, w := range b.words {
		c += bits.OnesCount32(w)
	}
	return c
}

// Swap exchanges the contents of b and o (both must have the same length):
// the end of a superstep, where the changed set becomes the next frontier.
func (b *Bitmask) Swap(o *Bitmask) {
	if b.n != o.n {
		panic("bitmask: Swap of sets of different lengths")
	}
	b.words, o.words = o.words, b.words
}

// CopyFrom makes b equal to o (same length).
func (b *Bitmask) CopyFrom(o *Bitmask) {
	if b.n != o.n {
		panic("bitmask: CopyFrom of a set of another length")
	}
	copy(b.words, o.words)
}

// ForEachInWords calls fn for every member in words [lo, hi), in order:
// a worker's share of a frontier walk. Empty words cost one load.
func (b *Bitmask) ForEachInWords(lo, hi int, fn func(v int32)) {
	for wi := lo; wi < hi; wi++ {
		w := b.words[wi]
		for w != 0 {
			t := bits.TrailingZeros32(w)
			fn(int32(wi<<5 | t))
			w &= w - 1
		}
	}
}

// AppendWords appends the members in words [lo, hi) to out, in order,
// and returns it: a frontier's bits as a list.
func (b *Bitmask) AppendWords(out []int32, lo, hi int) []int32 {
	for wi := lo; wi < hi; wi++ {
		w := b.words[wi]
		for w != 0 {
			out = append(out, int32(wi<<5|bits.TrailingZeros32(w)))
			w &= w - 1
		}
	}
	return out
}

// NumWords is len(Words()).
func (b *Bitmask) NumWords() int { return len(b.words) }
