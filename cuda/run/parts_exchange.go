//go:build cgo

package run

import (
	"encoding/binary"
	"errors"
	"math"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// The exchange's steps that a partitioned run's parts take on their
// devices (parts.go, nccl.go): each part at once, a part's changes packed
// and another's unpacked, and the whole run's counts written into a
// part's record.

// sentHi is where the vertices of part q (whose range ends at hi) that
// a dense exchange sends end, p being any part of the run: at its last
// that any part reads (driver.Part.Arcs: no part's pull or push reads
// the others' values or frontier bits), or hi where that is not known.
func sentHi(p *driver.Part, q int, hi int32) int64 {
	if p.Arcs != nil {
		return int64(p.Arcs[q].Hi)
	}
	return int64(hi)
}

// packBytes is the size of a packed list of k vertices of xsize bytes.
func packBytes(k int64, xsize int) int64 { return max(16, (k*4+15)&^15+k*int64(xsize)) }

// each runs f on every part at once: on the crew, or one goroutine a
// part (parts on one device take turns at its lock).
func (g *parts) each(f func(i int, r partRun) error) error {
	return fanOut(g.crew, g.runs, f)
}

// eachProg is each for the paths only program runs take (a sparse
// exchange, Sum arrays).
func (g *parts) eachProg(f func(i int, r *progRun) error) error {
	if len(g.progs) != len(g.runs) {
		return errors.New("cuda: a multiset program's parts exchange densely and have no Sum arrays")
	}
	return fanOut(g.crew, g.progs, f)
}

// clearOthers zeroes the words of superstep s's x_bitmask outside the
// part's rows, which its APPLY passes over no more (kernels_pull.cu):
// that mask takes the next superstep's active bits, into which a sparse
// exchange ORs the other parts' changes. Inside Do.
func (r *progRun) clearOthers(s int) {
	p := r.job.Part
	words := (int64(r.n) + 31) / 32
	lo, hi := int64(p.Lo)/32, min(words, (int64(p.Hi)+31)/32)
	m := r.mask[(s+1)&1^1]
	r.d.Fill32(m, 0, lo)
	if hi < words {
		r.d.Fill32(m+cu.DevicePtr(4*hi), 0, words-hi)
	}
}

// next is the mask that holds a part's next frontier (after the
// superstep it ran last).
func (r *progRun) next() int { return r.step & 1 }

// pack writes each part's record (record), then lists its activated
// vertices (counts[i] of them) and their values in its send buffer.
func (g *parts) pack(counts []int, record func(partRun)) error {
	return g.eachProg(func(i int, r *progRun) error {
		return r.d.Do("packing a part's changes", func() error {
			record(r)
			p := r.job.Part
			r.d.Fill32(g.count[i], 0, 2)
			if counts[i] > 0 {
				a := packArg(g.send[i], g.count[i], p.Lo, p.Hi, counts[i], r.next())
				words := (int64(p.Hi)+31)/32 - int64(p.Lo)/32
				r.mod.Launch2("vp_pack", min(rt.Blocks(words, rt.BlockSize), int64(32*max(1, r.d.SMs))), r.d.Stream(), r.runArg, a)
			}
			r.d.Record(g.packed[i]) // (exchangeSparse's copies wait for it)
			return nil
		})
	})
}

// unpack launches vp_unpack of the k vertices packed at buf, which also
// queues them for the next push where setRecord kept the part's own
// queues (queueIn). Inside Do.
func (r *progRun) unpack(buf cu.DevicePtr, k int) {
	a := packArg(buf, 0, 0, 0, k, r.next())
	if r.queueIn {
		binary.LittleEndian.PutUint64(a[32:], uint64(r.lastRecord()))
	}
	r.mod.Launch2("vp_unpack", min(rt.Blocks(int64(k), rt.BlockSize), int64(32*max(1, r.d.SMs))), r.d.Stream(), r.runArg, a)
}

// lastRecord is the device address of the record of the part's last
// superstep, which the next superstep reads.
func (r *progRun) lastRecord() cu.DevicePtr { return r.record(r.step - 1) }

// record is the device address of superstep s's record.
func (r *progRun) record(s int) cu.DevicePtr {
	return r.rec + cu.DevicePtr((s%recordRing)*r.recW*8)
}

// packArg is a VP_Pack (kernels_parts.cu), with no queue record.
func packArg(buf, count cu.DevicePtr, lo, hi int32, k, next int) []byte {
	b := make([]byte, 40)
	le := binary.LittleEndian
	le.PutUint64(b, uint64(buf))
	le.PutUint64(b[8:], uint64(count))
	le.PutUint32(b[16:], uint32(lo))
	le.PutUint32(b[20:], uint32(hi))
	le.PutUint32(b[24:], uint32(k))
	le.PutUint32(b[28:], uint32(next))
	return b
}

// setRecord writes the whole run's counts and aggregators into the
// record of the part's last superstep, which the next superstep reads.
// With queue (a sparse exchange follows, whose unpacks queue the other
// parts' vertices) it keeps the queues the part's own push made, if its
// last superstep pushed; otherwise their counts are zeroed and the next
// push queues the frontier anew (vp_compact). The copy is queued in the
// part's stream, not waited for (the kernels after it read it). Inside
// Do.
func (r *progRun) setRecord(active int, edges int64, aggs []float64, queue bool) {
	rec := make([]uint64, r.recW)
	copy(rec, r.last)
	rec[recActive], rec[recEdges], rec[recRan] = uint64(active), uint64(edges), 1
	r.queueIn = queue && r.queued && r.push != nil
	if !r.queueIn {
		rec[recSmall], rec[recMedium], rec[recChunks] = 0, 0, 0
	}
	for k, a := range aggs {
		rec[recordHead+k] = math.Float64bits(a)
	}
	r.d.HtoDQueued(r.lastRecord(), unsafe.Pointer(&rec[0]), int64(r.recW)*8)
	copy(r.last, rec)
	r.queued = r.queueIn
}
