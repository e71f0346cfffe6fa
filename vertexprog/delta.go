package vertexprog

import (
	"container/heap"
	"math"
	"slices"

	"github.com/hpgraph/hpgraph/internal/par"
)

// Delta-stepping on the CPU (Meyer and Sanders; GAP's sssp), for programs
// that declare Spec.Delta and give their Priority (Prioritizer): a vertex
// activated with a priority in a later bucket of width Delta than the one
// being run waits in that bucket instead of joining the next frontier.
// When the frontier empties, the lowest bucket that holds a vertex becomes
// the frontier: its vertices whose priority still lies in it (one whose
// value dropped since it was filed ran from a lower bucket already, at
// its lower value). Shortest paths then relax each edge about once,
// lowest distances first, where Bellman-Ford relaxes it again at every
// improvement. Each worker files into buckets of its own (GAP's local
// bins) of the ringSize buckets after the current one, and a priority
// past them waits in an overflow list, filed again once the buckets
// before it ran.

// ringSize is the number of buckets ahead of the current one that each
// worker files into directly.
const ringSize = 1 << 12

// cpuDeltaShare is the width of the CPU's buckets as a share of
// Spec.Delta, a device's: a device wants wide buckets, whose frontiers
// fill its thousands of lanes; a CPU's few cores want little redundant
// work. SSSP, weights 1-64 (Delta 520, 16 times the mean weight), one
// core: urand20 1008 ms with buckets of 520, 513 with 32; kron20 460 and
// 455; grid1000 138 and 118.
const cpuDeltaShare = 1.0 / 16

// cpuDeltaDegree: past this mean degree the CPU's buckets narrow in
// proportion (Meyer and Sanders' delta of about the heaviest weight over
// the degree): the more edges a vertex relaxes, the more of the bucket's
// later vertices its relaxations would settle again. SSSP, weights 1-64,
// the H200 host (session 32, call 10): urand21 (degree 32) with buckets
// of 4 against 32.5, 1,018 against 1,639 ms a query on one thread, 158
// against 169 on 16; kron21 (30) the same either way (1,226 / 1,223 and
// 121 / 123); grid1000 (4) 189 against 160 on one thread, so its buckets
// stay at 32.5. With this rule (call 11, against the rule before in the
// same call): kron21 1,038 / 1,508 ms on one thread, 113 / 127 on 16;
// urand21 1,207 / 1,820 and 145 / 165; grid1000 the same (168 / 172, 157
// / 159).
const cpuDeltaDegree = 4

type deltaBuckets[X any] struct {
	// perDelta is 1 / the buckets' width: a bucket is its priority times
	// it, floored (a multiply, not a divide, at every lowering and
	// filing: the same rounding everywhere, and as monotone).
	perDelta float64
	prio     Prioritizer[X]
	// cur is the bucket being run.
	cur int64
	// rings[w][b % ringSize] is worker w's bucket b; opened[w] the
	// buckets it filed into while they were empty; far[w] the vertices
	// it filed past the ring, farMin[w] their lowest bucket.
	rings  [][][]int32
	opened [][]int64
	far    [][]int32
	farMin []int64
	// slots are the workers' slots of the bucket being opened.
	slots [][]int32
	// pending holds the buckets opened (some perhaps run already).
	pending bucketHeap
}

// newDeltaBuckets is the delta-stepping state of a run, or nil where the
// run does not delta-step: no Spec.Delta or no Priority, or an iteration
// limit (a run stopped part way must be the supersteps' own state).
func newDeltaBuckets[X, A any](h *hostRun[X, A], maxIter int) *deltaBuckets[X] {
	pr, ok := h.p.(Prioritizer[X])
	if h.spec.Delta <= 0 || !ok || maxIter > 0 || h.spec.MaxIterations > 0 {
		return nil
	}
	p := par.Workers()
	share := cpuDeltaShare
	if deg := float64(h.nnz) / float64(max(h.n, 1)); deg > cpuDeltaDegree {
		share *= cpuDeltaDegree / deg
	}
	rs := h.spare.newRings(p)
	d := &deltaBuckets[X]{perDelta: 1 / (h.spec.Delta * share), prio: pr, rings: rs.rings, opened: rs.opened, far: rs.far, farMin: make([]int64, p)}
	for w := range d.farMin {
		d.farMin[w] = math.MaxInt64
	}
	return d
}

// bucket is the bucket of priority p (NaN and -Inf: the lowest).
func (d *deltaBuckets[X]) bucket(p float32) int64 {
	q := math.Floor(float64(p) * d.perDelta)
	switch {
	case !(q > math.MinInt64/2):
		return math.MinInt64
	case q > math.MaxInt64/2:
		return math.MaxInt64 / 2
	}
	return int64(q)
}

// wait files v, active with value x, into a later bucket when its
// priority lies past the current one, and reports whether it did. A nil
// d (no delta-stepping) files nothing.
func (d *deltaBuckets[X]) wait(w int, v int32, x X) bool {
	if d == nil {
		return false
	}
	b := d.bucket(d.prio.Priority(v, x))
	if b <= d.cur {
		return false
	}
	d.file(w, v, b)
	return true
}

// file files v into worker w's bucket b, a later one than the current.
func (d *deltaBuckets[X]) file(w int, v int32, b int64) {
	if b-d.cur >= ringSize {
		d.far[w] = append(d.far[w], v)
		d.farMin[w] = min(d.farMin[w], b)
		return
	}
	if d.rings[w] == nil {
		d.rings[w] = make([][]int32, ringSize)
	}
	slot := &d.rings[w][b&(ringSize-1)]
	if len(*slot) == 0 {
		d.opened[w] = append(d.opened[w], b)
	}
	*slot = append(*slot, v)
}

// empty empties every bucket, for another run: the slots of the
// buckets still opened or pending only (a slot holds vertices only
// while its bucket is listed in one or the other; nextBucket empties
// it when it runs), not all ringSize of every worker's ring, 1.5 MB
// of slice headers on 16 workers.
func (d *deltaBuckets[X]) empty() {
	clearSlot := func(b int64) {
		for _, ring := range d.rings {
			if ring != nil {
				ring[b&(ringSize-1)] = ring[b&(ringSize-1)][:0]
			}
		}
	}
	for _, b := range d.pending {
		clearSlot(b)
	}
	for w, o := range d.opened {
		for _, b := range o {
			clearSlot(b)
		}
		d.opened[w], d.far[w] = o[:0], d.far[w][:0]
	}
	d.pending = d.pending[:0]
}

// startDelta makes the lowest bucket of the initial frontier the first
// frontier; the other vertices wait.
func (c *cpuStepper[X, A]) startDelta() {
	d := c.delta
	us := c.frontierList()
	if len(us) == 0 {
		return
	}
	d.cur = math.MaxInt64
	for _, v := range us {
		d.cur = min(d.cur, d.bucket(d.prio.Priority(v, c.x[v])))
	}
	c.fileOrRun([][]int32{us}, func(b int64) bool { return false })
	c.activeCount, c.edges = c.tally()
	c.initEdges = c.edges
}

// nextBucket makes the lowest bucket that holds a vertex the frontier and
// returns its size and push-matrix edges; 0 when every bucket is empty.
func (c *cpuStepper[X, A]) nextBucket() (int, int64) {
	d := c.delta
	for {
		for w, o := range d.opened {
			for _, b := range o {
				heap.Push(&d.pending, b)
			}
			d.opened[w] = o[:0]
		}
		// The vertices past the ring are filed again before the ring
		// runs their buckets (or, the ring empty, to its next).
		if fm := slices.Min(d.farMin); fm != math.MaxInt64 && (d.pending.Len() == 0 || d.pending[0] >= fm) {
			c.refileFar()
			continue
		}
		if d.pending.Len() == 0 {
			return 0, 0
		}
		b := heap.Pop(&d.pending).(int64)
		if b <= d.cur {
			continue // (run already)
		}
		d.slots = d.slots[:0]
		for _, ring := range d.rings {
			if ring != nil && len(ring[b&(ringSize-1)]) > 0 {
				d.slots = append(d.slots, ring[b&(ringSize-1)])
			}
		}
		if len(d.slots) == 0 {
			continue
		}
		d.cur = b
		// Dropped: a lower bucket ran the vertex at its lower value.
		c.fileOrRun(d.slots, func(bb int64) bool { return bb < b })
		// (filing files nothing into bucket b's slots: it is the
		// current one, and a later one lies less than a ring ahead or
		// past the ring)
		for _, ring := range d.rings {
			if ring != nil {
				ring[b&(ringSize-1)] = ring[b&(ringSize-1)][:0]
			}
		}
		if a, e := c.tally(); a > 0 {
			return a, e
		}
	}
}

// refileFar files again the vertices that waited past the ring: those
// whose bucket the ring now reaches go to it, the others wait past it
// again. Where the ring is empty, the current bucket moves up to the
// one before the lowest of theirs.
func (c *cpuStepper[X, A]) refileFar() {
	d := c.delta
	entries := c.flat[:0]
	for w, f := range d.far {
		entries = append(entries, f...)
		d.far[w], d.farMin[w] = f[:0], math.MaxInt64
	}
	c.flat = entries
	if d.pending.Len() == 0 {
		low := int64(math.MaxInt64)
		for _, v := range entries {
			// (one at or below the current bucket ran at its lower value)
			if b := d.bucket(d.prio.Priority(v, c.x[v])); b > d.cur {
				low = min(low, b)
			}
		}
		if low != math.MaxInt64 {
			d.cur = max(d.cur, low-1)
		}
	}
	for _, v := range entries {
		d.wait(0, v, c.x[v])
	}
}

// fileOrRun makes the frontier of those vertices of the slots (laid end
// to end) whose priority lies in the current bucket, each once; those in
// later buckets wait (again), and those whose bucket stale says is past
// are dropped. It counts the frontier in the tallies. The slots are read
// where they are, in chunks on every worker (the workers' slots of a
// bucket, joined first into one list on one core, took 3-9 ms of
// urand21's largest buckets on the H200 host while the other cores
// waited: the list grown to each new size on memory new to the
// process), and a stale vertex costs a read of its value (a bucket
// opened late holds mostly vertices lowered since to earlier ones:
// urand21's last buckets, 100-200K filed, a few hundred left). Where
// many are left, the frontier is read back from their touched bits, in
// vertex order whatever the order they were filed in (the pushes'
// order): the push that follows then reads their values, degrees and
// rows in order (kron21, one thread, a bucket of 620K vertices: its
// filing 58 -> 20 ms, the push of its 3.8M edges 110 -> 51 ms).
func (c *cpuStepper[X, A]) fileOrRun(slots [][]int32, stale func(b int64) bool) {
	d, total := c.delta, 0
	for _, sl := range slots {
		total += len(sl)
	}
	deg, ptr := c.frontDeg, []int64(nil)
	if c.push != nil && c.push.Matrix.K == 0 {
		// (a row's edges from the row pointers its push reads next, not
		// from the degrees, a line read for the tally alone: 6% of
		// grid1000's profile on one core)
		deg, ptr = nil, c.push.Matrix.CooPtr
	}
	chunk, tw := applyChunk, c.touched.Words()
	serial := total < serialRows || par.Workers() == 1
	if c.relax && serial && par.Workers() > 1 && total >= relaxShareRows {
		// (a Relaxer's bucket is shared from a few hundred rows, as its
		// push is: filed on one core, the others waited for it)
		serial, chunk = false, total/par.Workers()+1
	}
	if serial {
		chunk = total
	}
	par.Chunks(total, chunk, func(w, lo, hi int) {
		t, out := tally{}, c.lists[w]
		for _, sl := range slots {
			for _, v := range sl[min(lo, len(sl)):min(hi, len(sl))] {
				b := d.bucket(d.prio.Priority(v, c.x[v]))
				if stale(b) {
					continue
				}
				if b > d.cur {
					d.file(w, v, b)
					continue
				}
				if !touchOnce(c.touched, tw, v, serial) {
					continue
				}
				out = append(out, v)
				t.count++
				switch {
				case ptr != nil:
					t.edges += ptr[v+1] - ptr[v]
				case deg != nil:
					t.edges += int64(deg[v])
				}
			}
			if hi <= len(sl) {
				break
			}
			lo, hi = max(lo-len(sl), 0), hi-len(sl)
		}
		c.lists[w] = out
		c.tallies[w].add(t)
	})
	rows := 0
	for _, l := range c.lists {
		rows += len(l)
	}
	if rows*denseApply > c.n {
		// (their bits are set: read back in vertex order)
		for w := range c.lists {
			c.lists[w], c.tallies[w] = c.lists[w][:0], tally{}
		}
		c.fileTouched()
		return
	}
	c.queue = c.join(c.queue[:0])
	c.listed, c.inBits = true, false
	for _, v := range c.queue {
		tw[v>>5] &^= 1 << (uint32(v) & 31) // (on this goroutine alone)
	}
}

// fileTouched makes the frontier of the vertices whose touched bits are
// set, in vertex order (in a few runs, one a worker), and clears the
// bits: those whose priority lies in a later bucket wait (with
// delta-stepping). It counts the frontier in the tallies.
func (c *cpuStepper[X, A]) fileTouched() {
	d, deg, tw := c.delta, c.frontDeg, c.touched.Words()
	par.DynamicW(c.parts, func(w, lo, hi int) {
		rows := c.touched.AppendWords(c.rows[w][:0], lo, hi)
		clear(tw[lo:hi])
		t, out := tally{}, c.lists[w]
		for _, v := range rows {
			if d.wait(w, v, c.x[v]) {
				continue
			}
			out = append(out, v)
			t.count++
			if deg != nil {
				t.edges += int64(deg[v])
			}
		}
		c.rows[w], c.lists[w] = rows, out
		c.tallies[w].add(t)
	})
	c.queue = c.join(c.queue[:0])
	c.listed, c.inBits = true, false
}

// bucketHeap is a min-heap of bucket numbers.
type bucketHeap []int64

func (h bucketHeap) Len() int           { return len(h) }
func (h bucketHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h bucketHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *bucketHeap) Push(x any)        { *h = append(*h, x.(int64)) }
func (h *bucketHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
