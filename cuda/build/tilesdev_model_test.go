package build

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// tlGroupsModel runs tl_groups (tilesdev.cu) on the host as a warp runs
// it: the waiting list as places and per-residue chains, compacted only
// when its waitCap places are full; the oldest entry, then each free
// lane's residue's oldest at once; the strict stream a batch of 32
// candidates at a time (each one's fate from the state before the batch
// and the candidates before it, the waiting ones appended and chained
// together), one at a time where the group is empty or the batch could
// fill the list; the loose scan and stream one at a time. It appends
// the groups to out as tileWorker.groups does, so CI tests the device's
// batching against the host's order without a GPU (waitCap: TL_WAIT, or
// less to compact often).
func tlGroupsModel(out *tileOut, cols []int32, slotOf []uint32, st []int64, lo int64, span int32, slotBits int, dummy uint32, waitCap int) {
	const waiting = 4096 // TL_WAITING
	var lanes [32]int64
	var occ uint32
	var n int
	var base int32
	slot := func(q int64) uint32 { return slotOf[q-lo] }
	far := func(q int64) bool { return n > 0 && cols[q]-base >= span }
	put := func(q int64, l int) {
		if n == 0 {
			base = cols[q]
		}
		lanes[l] = q
		occ |= 1 << l
		n++
	}
	holds := func(sl uint32) bool {
		for l, q := range lanes {
			if occ>>l&1 != 0 && slot(q) == sl {
				return true
			}
		}
		return false
	}
	take := func(strict bool, q int64) bool {
		sl := slot(q)
		l := int(sl & 31)
		if far(q) {
			return false
		}
		if occ>>l&1 != 0 {
			if strict || holds(sl) {
				return false
			}
			l = bits.TrailingZeros32(^occ)
		}
		put(q, l)
		return true
	}

	Q, NX := make([]int64, waitCap), make([]int, waitCap)
	var wlen, first, live int
	var cur, tail [32]int
	for l := range cur {
		cur[l], tail[l] = -1, -1
	}
	link := func(i int) {
		r := slot(Q[i]) & 31
		NX[i] = -1
		if tail[r] >= 0 {
			NX[tail[r]] = i
		}
		if cur[r] < 0 {
			cur[r] = i
		}
		tail[r] = i
	}
	compact := func() {
		k := 0
		for i := range wlen {
			if Q[i] >= 0 {
				Q[k] = Q[i]
				k++
			}
		}
		wlen, first = k, 0
		for l := range cur {
			cur[l], tail[l] = -1, -1
		}
		for i := range k {
			link(i)
		}
	}
	push := func(q int64) {
		if wlen == waitCap {
			compact()
		}
		Q[wlen] = q
		wlen++
		link(wlen - 1)
		live++
	}
	stream := func(strict bool, next *int) {
		for n < 32 && *next < len(st) && live < waiting {
			m := min(32, len(st)-*next)
			batch := st[*next : *next+m]
			if !strict || n == 0 || wlen+m > waitCap {
				x := 0
				for ; x < m && n < 32 && live < waiting; x++ {
					if !take(strict, batch[x]) {
						push(batch[x])
					}
				}
				*next += x
				continue
			}
			// (the batch: who joins, who waits, where it ends)
			var acc, wait uint32
			var seen uint32 // residues taken by earlier candidates
			for x, q := range batch {
				r := slot(q) & 31
				if !far(q) && occ>>r&1 == 0 && seen>>r&1 == 0 {
					acc |= 1 << x
					seen |= 1 << r
				} else {
					wait |= 1 << x
				}
			}
			cut := m
			for x := range m {
				below := uint32(1)<<x - 1
				if n+bits.OnesCount32(acc&below) >= 32 || live+bits.OnesCount32(wait&below) >= waiting {
					cut = x
					break
				}
			}
			for x := range cut {
				if acc>>x&1 != 0 {
					put(batch[x], int(slot(batch[x])&31))
				}
			}
			for x := range cut {
				if wait>>x&1 != 0 {
					Q[wlen] = batch[x]
					wlen++
					link(wlen - 1)
					live++
				}
			}
			*next += cut
		}
	}

	next := 0
	for next < len(st) || live > 0 {
		for l := range lanes {
			lanes[l] = -1
		}
		occ, n, base = 0, 0, 0
		if live > 0 {
			for Q[first] < 0 {
				first++
			}
			q := Q[first]
			put(q, int(slot(q)&31))
			Q[first] = -1
			live--
			var took uint32
			for l := range 32 {
				if occ>>l&1 != 0 {
					continue
				}
				i := cur[l]
				for i >= 0 && Q[i] < 0 {
					i = NX[i]
				}
				cur[l] = i
				if i >= 0 && !far(Q[i]) {
					lanes[l] = Q[i]
					Q[i] = -1
					took |= 1 << l
				}
			}
			occ |= took
			n += bits.OnesCount32(took)
			live -= bits.OnesCount32(took)
		}
		stream(true, &next)
		if n < 32 {
			for i := first; i < wlen && n < 32; i++ {
				if Q[i] >= 0 && take(false, Q[i]) {
					Q[i] = -1
					live--
				}
			}
			stream(false, &next)
		}
		out.base = append(out.base, base)
		for l, q := range lanes {
			if occ>>l&1 == 0 {
				out.arcs = append(out.arcs, dummy)
				continue
			}
			out.arcs = append(out.arcs, uint32(cols[q]-base)<<slotBits|slot(q))
		}
	}
}

// TestTilesDevGroupsModel: tl_groups' batches (tlGroupsModel) make the
// groups tileWorker.groups makes, stream by stream: streams of a few slots
// (most entries wait), of hubs' slots among many, of all-distinct slots,
// columns close and far apart against the span (slotBits 13 and 29), and
// waiting lists compacted at 8,192 places (the device's) and at 4,136
// (often, the list near its most).
func TestTilesDevGroupsModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 7))
	for trial := range 80 {
		length := 1 + rng.IntN(3000)
		slots := []int{3, 5, 40, 700, 4000}[trial%5]
		hubs := 4 // (one entry in hubs of a hub slot)
		if trial%4 == 0 {
			// (the list fills: compacted, at its most, and what the loose
			// steps take depends on how far the stream was read)
			length, hubs = 12000+rng.IntN(6000), 1+rng.IntN(2)
		}
		slotBits := 13
		if trial%3 == 2 {
			slotBits = 29
		}
		cols := make([]int32, length)
		c := int32(0)
		for i := range cols {
			c += int32(rng.IntN(3))
			if rng.IntN(50) == 0 {
				c += int32(rng.IntN(1 << 20))
			}
			cols[i] = c
		}
		slotOf := make([]uint32, length)
		for i := range slotOf {
			s := rng.IntN(slots)
			if rng.IntN(hubs) == 0 {
				s = rng.IntN(min(slots, 3)) // (hubs)
			}
			slotOf[i] = uint32(s) % (1 << slotBits)
		}
		// (a stream: the entries one warp owns, in column order)
		var st []int64
		for q := range int64(length) {
			if rng.IntN(4) != 0 {
				st = append(st, q)
			}
		}
		span := int32(1) << (32 - slotBits)
		dummy := uint32(1<<slotBits - 1)
		sc := tileScratch{rowBits: slotBits - 1, cols: cols}
		for _, waitCap := range []int{8192, 40 + 4096} {
			var want, got tileOut
			sc.worker(length, false).groups(&want, slotOf, st, 0, span, slotBits, dummy)
			tlGroupsModel(&got, cols, slotOf, st, 0, span, slotBits, dummy, waitCap)
			if !slices.Equal(got.base, want.base) || !slices.Equal(got.arcs, want.arcs) {
				t.Fatalf("trial %d (%d entries, %d slots, slotBits %d, %d places): %s", trial, len(st), slots, slotBits, waitCap,
					fmt.Sprintf("%d groups, want %d", len(got.base), len(want.base)))
			}
		}
	}
}
