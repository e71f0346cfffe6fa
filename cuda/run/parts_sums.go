//go:build cgo

package run

import (
	"encoding/binary"
	"errors"
	"time"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/nccl"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// A partitioned run's Sum arrays (DeviceArray.Sum: gathers add to any
// vertex's elements, and Update reads the sums; LCC credits each triangle
// to its three vertices). Each part's device holds a whole copy of each,
// into which its own gathers add; before any part's APPLY every part must
// hold the whole run's sums. So such a superstep runs in two halves
// (stepSums): every part's gathers, then what each added since the last
// exchange (its copy less the exchange's snapshot, vp_sum op 0) goes to
// every other part, which adds it to its copy (op 1); then every part's
// APPLY. Each part's copy is then the snapshot again. Over several
// processes (NCCL) the parts all-reduce their additions instead, and
// each part's copy becomes its snapshot plus the sum. Integer sums are
// exact whatever the order; a float array's parts may differ in the last
// bits (each adds its own additions first; an all-reduce in NCCL's
// order).

// sumType is NCCL's element type for VP_Sum's kind.
func sumType(kind int) nccl.DataType {
	return [...]nccl.DataType{nccl.Int32, nccl.Int64, nccl.Float32, nccl.Float64}[kind]
}

// sumKind is VP_Sum's kind for an array's elements.
func sumKind(e elemType) int {
	switch e.goTyp {
	case "float32":
		return 2
	case "float64":
		return 3
	}
	if e.size == 8 {
		return 1
	}
	return 0
}

// allocateSums makes every part's buffers for the run's Sum arrays, the
// snapshots holding each array's first contents, and the events the
// exchange waits on. Nothing where the program has none.
func (g *parts) allocateSums() error {
	if g.progs == nil {
		return nil // (a multiset program states no Sum arrays: vertexprog)
	}
	var arrays []int
	for k, a := range g.progs[0].layout.arrays {
		if a.sum && a.bytes > 0 {
			arrays = append(arrays, k)
		}
	}
	if len(arrays) == 0 {
		return nil
	}
	g.sums = make([][]sumBuf, len(g.runs))
	g.gathered = make([]rt.Event, len(g.runs))
	return g.eachProg(func(i int, r *progRun) error {
		return r.d.Do("allocating a part's sums", func() error {
			for _, k := range arrays {
				a := r.layout.arrays[k]
				b := sumBuf{array: k, n: a.bytes / int64(a.elem.size), kind: sumKind(a.elem)}
				b.snap, b.send, b.recv = rt.Alloc(&g.bufs[i], a.bytes), rt.Alloc(&g.bufs[i], a.bytes), rt.Alloc(&g.bufs[i], a.bytes)
				r.d.CopyFrom(b.snap, r.d.RT(), r.arrays[k], a.bytes)
				g.sums[i] = append(g.sums[i], b)
			}
			g.gathered[i] = rt.NewOrderEvent()
			r.d.Sync()
			return nil
		})
	})
}

// sumArg is a VP_Sum (kernels_parts.cu).
func sumArg(out, a, b cu.DevicePtr, n int64, op, kind int) []byte {
	v := make([]byte, 40)
	le := binary.LittleEndian
	le.PutUint64(v, uint64(out))
	le.PutUint64(v[8:], uint64(a))
	le.PutUint64(v[16:], uint64(b))
	le.PutUint64(v[24:], uint64(n))
	le.PutUint32(v[32:], uint32(op))
	le.PutUint32(v[36:], uint32(kind))
	return v
}

// sumOp launches vp_sum over n elements. Inside Do.
func (r *progRun) sumOp(out, a, b cu.DevicePtr, n int64, op, kind int) {
	r.mod.Launch2("vp_sum", min(rt.Blocks(n, rt.BlockSize), int64(32*max(1, r.d.SMs))), r.d.Stream(), r.runArg, sumArg(out, a, b, n, op, kind))
}

// stepSums is the parts' superstep it of a program with Sum arrays:
// every part's gathers and what it added, then the exchange of the
// additions and every part's APPLY (see above).
func (g *parts) stepSums(it int, dir driver.Direction, reps []driver.StepReport) error {
	if dir != driver.Pull {
		return errors.New("cuda: a program with Sum arrays runs pull supersteps in parts")
	}
	start := make([]time.Time, len(g.runs))
	if err := g.eachProg(func(i int, r *progRun) error {
		start[i] = time.Now()
		return r.d.Do("gathering a part's superstep", func() error {
			r.pullHalf(it)
			for _, b := range g.sums[i] {
				r.sumOp(b.send, r.arrays[b.array], b.snap, b.n, 0, b.kind)
			}
			r.d.Record(g.gathered[i])
			return nil
		})
	}); err != nil {
		return err
	}
	if g.net != nil {
		return g.netSums(start, reps)
	}
	return g.eachProg(func(q int, r *progRun) error {
		err := r.d.Do("adding up the parts' sums and applying", func() error {
			for p, o := range g.progs {
				if p == q {
					continue
				}
				r.d.WaitEvent(g.gathered[p])
				for k, b := range g.sums[q] {
					bytes := b.n * int64(r.layout.arrays[b.array].elem.size)
					r.d.CopyFrom(b.recv, o.d.RT(), g.sums[p][k].send, bytes)
					r.sumOp(r.arrays[b.array], b.recv, 0, b.n, 1, b.kind)
					g.stats[q].ExchangeBytes += bytes
				}
			}
			for _, b := range g.sums[q] {
				r.d.CopyFrom(b.snap, r.d.RT(), r.arrays[b.array], b.n*int64(r.layout.arrays[b.array].elem.size))
			}
			reps[q] = r.applyHalf() // (and partTail)
			return nil
		})
		g.stats[q].Compute += time.Since(start[q])
		return err
	})
}

// netSums is stepSums' second half over several processes: every part
// all-reduces its additions (NCCL: the run's parts are its ranks), sets
// its copy to its snapshot plus their sum, and runs its APPLY.
func (g *parts) netSums(start []time.Time, reps []driver.StepReport) error {
	return g.eachProg(func(q int, r *progRun) error {
		err := r.d.Do("all-reducing the parts' sums (NCCL) and applying", func() error {
			st := uintptr(r.d.Stream().Handle())
			if err := nccl.GroupStart(); err != nil {
				return err
			}
			for _, b := range g.sums[q] {
				if err := g.net.nc[q].AllReduce(uint64(b.send), uint64(b.recv), int(b.n), sumType(b.kind), nccl.Sum, st); err != nil {
					return errors.Join(err, nccl.GroupEnd())
				}
			}
			if err := nccl.GroupEnd(); err != nil {
				return err
			}
			for _, b := range g.sums[q] {
				bytes := b.n * int64(r.layout.arrays[b.array].elem.size)
				r.d.CopyFrom(r.arrays[b.array], r.d.RT(), b.snap, bytes)
				r.sumOp(r.arrays[b.array], b.recv, 0, b.n, 1, b.kind)
				r.d.CopyFrom(b.snap, r.d.RT(), r.arrays[b.array], bytes)
				g.stats[q].ExchangeBytes += 2 * bytes * int64(g.total-1) / int64(g.total) // (a ring's reduce-scatter and all-gather)
			}
			reps[q] = r.applyHalf() // (and partTail)
			return g.net.nc[q].AsyncError()
		})
		g.stats[q].Compute += time.Since(start[q])
		return err
	})
}
