//go:build cgo

package run

import (
	"bytes"
	"sync"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/build"
	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/internal/par"
)

// A resident run (vertexprog.Options.Resident: bench, run with several
// sources) is parked when it closes: its buffers, textures, events and
// CUDA graphs wait on the device for the next run of the same program on
// the same matrices, which adopts them instead of allocating and
// capturing its own (~3-5 ms a kron21 BFS query), and uploads only the
// blocks of its initial state that differ from the last run's (a BFS
// from another source: two blocks of 64 KB, not 16 MB). Adopted graphs
// are warmed again (warmGraphs): without that, kron21 BFS took 0.30 ms,
// not 0.27, and a PageRank iteration 0.240, not 0.220. The written
// arrays are restored from their device copy by hb_restore, whose loads
// are evict-first: cuMemcpyDtoD left the copy in the L2 cache too, and
// grid1000's BFS, whose runs find the last run's matrix there, took ~7.0
// ms instead of ~6.85 (docs/perf/time-to-answer.md#many-queries-one-set-up).

// shape is what a run's buffers and graphs depend on besides its program
// and sizes.
func shape(r *progRun) (bins *build.Bins, tileSet *build.Tiles, pushChunks int64, args [2][]byte) {
	bins, args[0] = r.pull.Bins, r.pull.Arg
	if r.tiles {
		tileSet = r.pull.Tiles
	}
	if r.push != nil {
		pushChunks, args[1] = r.push.PushChunks, r.push.Arg
	}
	return
}

// send copies an initial array to dst: all of it, or, in a resident
// run, the blocks that differ from what seed i last held, or nothing for
// a constant array (DeviceArray.Constant) sent from the same memory last
// time. Inside Do, before the run's kernels.
func (r *progRun) send(i int, dst cu.DevicePtr, b []byte, writes, constant bool) {
	n := int64(len(b))
	if n == 0 {
		return
	}
	src := unsafe.Pointer(&b[0])
	put := r.d.HtoD
	if r.queueCopies {
		put = r.d.HtoDQueued
	}
	if !r.job.Resident {
		put(dst, src, n)
		return
	}
	for len(r.seeds) <= i {
		r.seeds = append(r.seeds, seed{})
	}
	s := &r.seeds[i]
	if constant {
		if s.constant != src || len(s.host) != len(b) {
			put(dst, src, n)
			s.constant, s.host = src, b
		}
		return
	}
	if s.constant != nil {
		// (s.host is that array's memory, not a copy)
		s.constant, s.host = nil, nil
	}
	to := dst
	if writes {
		to = s.pristine
	}
	if len(s.host) != len(b) {
		if writes {
			s.pristine = r.alloc(n)
			to = s.pristine
		}
		put(to, src, n)
		s.host = make([]byte, n)
		rt.HostCopy(unsafe.Pointer(&s.host[0]), src, int(n), r.d.CopyParts())
	} else {
		for _, rg := range differing(s.host, b) {
			lo, hi := rg[0], rg[1]
			put(to+cu.DevicePtr(lo), unsafe.Add(src, lo), int64(hi-lo))
			copy(s.host[lo:hi], b[lo:hi])
		}
	}
	if writes {
		r.d.Restore(dst, s.pristine, n)
	}
}

// differing returns the byte ranges, in whole seedBlocks, where b differs
// from old (of the same length), compared on every core.
func differing(old, b []byte) [][2]int {
	blocks := (len(b) + seedBlock - 1) / seedBlock
	diff := make([]bool, blocks)
	parts := min(par.Workers(), blocks)
	var wg sync.WaitGroup
	for p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := p * blocks / parts; k < (p+1)*blocks/parts; k++ {
				lo, hi := k*seedBlock, min((k+1)*seedBlock, len(b))
				diff[k] = !bytes.Equal(old[lo:hi], b[lo:hi])
			}
		}()
	}
	wg.Wait()
	var out [][2]int
	for k := 0; k < blocks; k++ {
		if !diff[k] {
			continue
		}
		lo := k
		for k+1 < blocks && diff[k+1] {
			k++
		}
		out = append(out, [2]int{lo * seedBlock, min((k+1)*seedBlock, len(b))})
	}
	return out
}

// park keeps a finished resident run's buffers for a later run. Inside
// Do.
func (d *Device) park(r *progRun) {
	p := &parked{mod: r.mod, pull: r.pull, push: r.push, n: r.n, recW: r.recW, tiles: r.tiles,
		xBytes: int64(len(r.job.X)), aSize: r.job.ASize, buffers: r.buffers}
	for _, a := range r.layout.arrays {
		p.sizes = append(p.sizes, a.bytes)
	}
	var args [2][]byte
	p.bins, p.tileSet, p.pushChunks, args = shape(r)
	p.matArgs = [2][]byte{bytes.Clone(args[0]), bytes.Clone(args[1])}
	r.buffers = buffers{}
	d.parked = append(d.parked, p)
	d.unpark(parkMax)
	for len(d.parked) > 0 && d.LowOnMemory() {
		d.unpark(len(d.parked) - 1)
	}
}

// unpark frees all but the newest keep parked runs. Inside Do.
func (d *Device) unpark(keep int) {
	for len(d.parked) > keep {
		p := d.parked[0]
		d.parked = d.parked[1:]
		d.freeBuffers(&p.buffers, p.recW)
	}
}

// adopt gives r the buffers of a parked run of the same program on the
// same matrices, if there is one, and reports whether it did. The CUDA
// graphs come along when the kernels' arguments are the same bytes (a
// program's scalars are in them). Inside Do.
func (d *Device) adopt(r *progRun) bool {
	for i, p := range d.parked {
		if p.mod != r.mod || p.pull != r.pull || p.push != r.push || p.n != r.n || p.recW != r.recW ||
			p.tiles != r.tiles || p.xBytes != int64(len(r.job.X)) || p.aSize != r.job.ASize || len(p.sizes) != len(r.layout.arrays) {
			continue
		}
		bins, tileSet, pushChunks, args := shape(r)
		same := bins == p.bins && tileSet == p.tileSet && pushChunks == p.pushChunks
		for k, a := range r.layout.arrays {
			same = same && p.sizes[k] == a.bytes
		}
		if !same {
			continue
		}
		d.parked = append(d.parked[:i:i], d.parked[i+1:]...)
		d.counts.adoptedRuns++
		r.buffers = p.buffers
		r.clock.Started = false
		ptrs := make([]uint64, len(r.arrays))
		for k, a := range r.arrays {
			if o := r.layout.arrays[k].orient; o != nil {
				// (the parked run's may be another Orientation)
				a = r.oriented().Orientation(o).Ptr(r.layout.arrays[k].part)
				r.arrays[k] = a
			}
			ptrs[k] = uint64(a)
		}
		state, arg := r.layout.bytes(ptrs), r.makeRunArg()
		if !bytes.Equal(state, r.state) || !bytes.Equal(arg, r.runArg) || !bytes.Equal(args[0], p.matArgs[0]) || !bytes.Equal(args[1], p.matArgs[1]) {
			for _, e := range r.graphs {
				e.Destroy()
			}
			r.graphs, r.noGraphs = map[graphKey]*rt.Graph{}, false
		}
		r.state, r.runArg = state, arg
		return true
	}
	return false
}

// freeBuffers frees a run's buffers, textures, events and graphs. Inside
// Do.
func (d *Device) freeBuffers(b *buffers, recW int) {
	for _, e := range b.graphs {
		e.Destroy()
	}
	if b.recHost != nil {
		d.Unpin(b.recHost, int64(recordRing*recW)*8)
	}
	b.clock.Destroy()
	for _, t := range b.texs {
		rt.TexDestroy(t)
	}
	rt.FreeAll(b.bufs)
	*b = buffers{}
}
