//go:build cgo

package run

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/build"
	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/jit"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/internal/phase"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// Multiset programs (vertexprog.MultisetProgram with device code) run
// outside kernels.cu's template, in a module of their own (multiset.cu
// after the prelude, the program's snippet and mat.cu): every superstep
// pulls every row, sorts each row's elements where they fit (a group of
// lanes, a warp's registers, a block's shared memory; hub rows in chunks
// whose lists of distinct values merge in global memory, each list's
// valid length kept per chunk so that the merges and the final count
// read only valid entries; a row or chunk of one distinct value is not
// sorted) and summarizes them, then APPLY runs the program's vp_update. vertexprog's engine drives the supersteps
// (driver.MultisetBackend's run is a driver.DeviceRun).

// multisetSource is multiset.cu and multiset_block.cu joined, their
// headers spliced in.
var (
	//go:embed multiset.cu
	multisetCU string
	//go:embed multiset_block.cu
	multisetBlockCU string

	multisetSource = jit.MustExpand("hpgraph_multiset.cu", multisetCU+jit.WithoutHeader(multisetBlockCU), headers)
)

// multisetKernels are multiset.cu's kernels (and the layout check).
var multisetKernels = []string{"ms_tiny1", "ms_tiny2", "ms_tiny4", "ms_tiny8", "ms_tiny16", "ms_tiny32",
	"ms_warp2", "ms_warp4", "ms_warp8", "ms_warp16", "ms_warp32", "ms_block", "ms_hub_chunk", "ms_hub_merge", "ms_hub_final",
	"ms_begin", "ms_apply", "ms_info", "vp_state_layout"}

// Row classes (msBins), by a row's length d: tiny rows (d <= 32) for a
// group of G = 1, 2, 4, 8, 16 or 32 lanes (the smallest G >= d), warp
// rows (d <= the slice: 1024 4-byte or 512 8-byte keys) for a warp
// holding E = 2, 4, 8, 16 or 32 keys a lane, block rows for a block whose
// shared memory holds cap = 1024, 2048, 4096 or 8192 keys (the smallest
// cap >= d, at most the chunk), and hub rows.
const (
	msTiny    = 0  // classes msTiny .. msTiny+5: G = 1 << (class-msTiny)
	msWarp    = 6  // classes msWarp .. msWarp+4: E = 2 << (class-msWarp)
	msBlock   = 11 // classes msBlock .. msBlock+3: cap = 1024 << (class-msBlock)
	msHub     = 15
	msClasses = 16
)

// msClassKernels names each class's kernel (the hub rows' are three).
var msClassKernels = [msClasses]string{"ms_tiny1", "ms_tiny2", "ms_tiny4", "ms_tiny8", "ms_tiny16", "ms_tiny32",
	"ms_warp2", "ms_warp4", "ms_warp8", "ms_warp16", "ms_warp32", "ms_block", "ms_block", "ms_block", "ms_block", "ms_hub_chunk"}

// msCap is the keys a block row of class c holds.
func msCap(c int) int { return 1024 << (c - msBlock) }

// msClass is the class of a row of d entries when a warp sorts slice of
// them (512 or 1024) and a block chunk (a power of two, 1024 to 8192).
func msClass(d int32, slice, chunk int) int {
	switch {
	case d <= 1:
		return msTiny
	case d <= 32:
		return msTiny + bits.Len32(uint32(d-1))
	case int(d) <= slice:
		return msWarp + bits.Len32(uint32(d-1)) - 6
	case int(d) <= chunk:
		return msBlock + bits.Len32(uint32(d-1)) - 10
	}
	return msHub
}

// msMergeK is the merge outputs a thread of ms_block takes at a time
// (MS_MK).
const msMergeK = 16

// msHubPart is the hub list entries a block of ms_hub_merge takes at a
// time (MS_HUB_PART): its grid is the chunks' entries over it.
const msHubPart = 1024

// msBins are a matrix's rows by class.
type msBins struct {
	// rows lists the rows class by class (each class in increasing row
	// order); class c's are rows[first[c]:first[c+1]].
	rows  []int32
	first [msClasses + 1]int
	slice int
	// The hub rows (rows[first[msHub]:]) are cut in chunks of chunk
	// entries: hub row h's are chunks hubFirst[h] .. hubFirst[h+1]-1, and
	// chunkHub[c] is chunk c's hub row.
	chunk    int
	hubFirst []int64
	chunkHub []int32
	// levels is the merge levels of the hub rows' chunk lists: enough for
	// the row of the most chunks.
	levels int
}

// makeMsBins bins rows [from, to) of the given lengths for slices and
// chunks of the given lengths.
func makeMsBins(deg []int32, from, to, slice, chunk int) *msBins {
	b := &msBins{slice: slice, chunk: chunk}
	n := to - from
	p := par.Workers()
	counts := make([][msClasses]int, p)
	par.Blocks(n, func(w, lo, hi int) {
		for v := from + lo; v < from+hi; v++ {
			counts[w][msClass(deg[v], slice, chunk)]++
		}
	})
	// Worker w's rows of class c start at at[w][c] (rows by class, then
	// by worker: each class in increasing order, since workers take
	// increasing ranges).
	at := make([][msClasses]int, p)
	pos := 0
	for c := 0; c < msClasses; c++ {
		b.first[c] = pos
		for w := 0; w < p; w++ {
			at[w][c] = pos
			pos += counts[w][c]
		}
	}
	b.first[msClasses] = pos
	b.rows = make([]int32, n)
	par.Blocks(n, func(w, lo, hi int) {
		next := at[w]
		for v := from + lo; v < from+hi; v++ {
			c := msClass(deg[v], slice, chunk)
			b.rows[next[c]] = int32(v)
			next[c]++
		}
	})
	hubs := b.rows[b.first[msHub]:]
	b.hubFirst = make([]int64, len(hubs)+1)
	most := int64(0)
	for h, v := range hubs {
		k := (int64(deg[v]) + int64(chunk) - 1) / int64(chunk)
		b.hubFirst[h+1] = b.hubFirst[h] + k
		most = max(most, k)
	}
	b.chunkHub = make([]int32, b.hubFirst[len(hubs)])
	for h := range hubs {
		for c := b.hubFirst[h]; c < b.hubFirst[h+1]; c++ {
			b.chunkHub[c] = int32(h)
		}
	}
	for int64(1)<<b.levels < most {
		b.levels++
	}
	return b
}

// count is the rows of class c.
func (b *msBins) count(c int) int { return b.first[c+1] - b.first[c] }

// chunks is the hub rows' chunk count.
func (b *msBins) chunks() int64 { return b.hubFirst[len(b.hubFirst)-1] }

// msChunkBytes is one of a block's two shared key buffers
// (multiset.cu's MS_CHUNK_BYTES) on a device that allows a block
// sharedOptin bytes of shared memory: a chunk of 8192 4-byte or 4096
// 8-byte keys with 96 or 80 KB of shared memory a block, a quarter of
// that where a block may have no more than 48 KB.
func msChunkBytes(sharedOptin int) int {
	if sharedOptin >= 2*32768+4*8192+4096 {
		return 32768
	}
	return 8192
}

// msShared is ms_block's and ms_hub_chunk's dynamic shared memory for
// cap keys of keyLen bytes: two key buffers, cap ints.
func msShared(keyLen, cap int) int { return (2*keyLen + 4) * cap }

// multisetFeatures are what a multiset job's source is compiled with.
func multisetFeatures(job *driver.DeviceJob) features {
	return features{XSize: job.XSize, ASize: job.ASize, Aggs: aggOps(job.Spec.Aggregators)}
}

// multisetProgram is the CUDA source of a multiset program's kernels.
func multisetProgram(code *driver.DeviceCode, l *stateLayout, f features, chunkBytes int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#define VP_XSIZE %d\n#define VP_ASIZE %d\n#define VP_NAGG %d\n#define VP_AGG_OPS %s\n#define MS_CHUNK_BYTES %d\n",
		f.XSize, f.ASize, strings.Count(f.Aggs, ","), f.Aggs, chunkBytes)
	writeProgram(&b, code, l, f)
	b.WriteString("#line 1 \"hpgraph_multiset.cu\"\n")
	b.WriteString(multisetSource)
	return b.String()
}

// msRun is a multiset program on the device (a driver.DeviceRun).
type msRun struct {
	clock  rt.Clock // DeviceTime
	d      *Device
	job    *driver.DeviceJob
	mod    *rt.Module
	md     *build.Matrix
	n      int
	lo, hi int // the rows it updates: all, or its part's
	words  int
	layout *stateLayout
	bins   *msBins
	keyLen int // bytes of a sort key (K_t's)
	shared int // ms_block's dynamic shared memory
	recW   int // words of a record

	bufs      []cu.DevicePtr
	x, y, rec cu.DevicePtr
	mask      [2]cu.DevicePtr
	rows      cu.DevicePtr
	arrays    []cu.DevicePtr
	state     []byte
	runArg    []byte
	recHost   unsafe.Pointer // pinned: a record read back

	step      int // supersteps run
	active    int // the frontier's vertices
	transfers time.Duration
	closed    bool
	probe     *msProbe // HPGRAPH_CUDA_MSPROBE=1
}

// StartMultiset implements driver.MultisetBackend.
func (b Backend) StartMultiset(job *driver.DeviceJob) (driver.DeviceRun, error) {
	d, err := b.Dev()
	if err != nil {
		return nil, err
	}
	return startMultiset(d, job)
}

func startMultiset(d *Device, job *driver.DeviceJob) (*msRun, error) {
	if job.Pull == nil {
		return nil, errors.New("cuda: the multiset job has no pull matrix")
	}
	n := job.Pull.N
	if job.XSize < 0 || job.ASize <= 0 || len(job.X) != n*job.XSize || len(job.Pull.Degree) != n {
		return nil, fmt.Errorf("cuda: inconsistent multiset job: %d vertices, %d bytes of X at %d each, accumulator of %d bytes, %d degrees",
			n, len(job.X), job.XSize, job.ASize, len(job.Pull.Degree))
	}
	if job.Active == nil || job.Active.Len() != n {
		return nil, errors.New("cuda: the multiset job's initial frontier does not match the graph")
	}
	if len(job.Aggregates) != len(job.Spec.Aggregators) {
		return nil, fmt.Errorf("cuda: %d aggregator values for %d aggregators", len(job.Aggregates), len(job.Spec.Aggregators))
	}
	layout, err := layoutState(&job.Code)
	if err != nil {
		return nil, err
	}
	pt := phase.New("cuda", "multiset start")
	defer pt.Print()
	chunkBytes := msChunkBytes(d.SharedOptin)
	image, key, err := d.Image(multisetProgram(&job.Code, layout, multisetFeatures(job), chunkBytes))
	pt.Mark("source and compile")
	if err != nil {
		return nil, err
	}
	r := &msRun{d: d, job: job, n: n, lo: 0, hi: n, words: (n + 31) / 32, layout: layout, recW: 1 + len(job.Spec.Aggregators)}
	if p := job.Part; p != nil {
		// (APPLY writes whole frontier words: a part that has rows starts
		// at a multiple of 32)
		if p.Lo < 0 || p.Hi < p.Lo || int(p.Hi) > n || p.Lo%32 != 0 && p.Lo < p.Hi {
			return nil, fmt.Errorf("cuda: a multiset part of rows [%d, %d) of %d: want a range whose first row, if any, is a multiple of 32", p.Lo, p.Hi, n)
		}
		r.lo, r.hi = int(p.Lo), int(p.Hi)
	}
	if msProbeOn {
		r.probe = &msProbe{}
	}
	for _, w := range job.Active.Words() {
		r.active += bits.OnesCount32(w)
	}
	err = d.Do("copying the multiset run to the device", func() error {
		var err error
		if r.mod, err = d.Load(key, image, multisetKernels); err != nil {
			return err
		}
		if !d.layoutOK[r.mod] {
			if err := layout.layoutErr(stateOffsets(r.mod, len(layout.offsets))); err != nil {
				return err
			}
			d.layoutOK[r.mod] = true
		}
		info := r.info()
		if info[3] != uint64(job.XSize) && !(job.XSize == 0 && info[3] <= 1) || info[4] != uint64(job.ASize) {
			return fmt.Errorf("cuda: the multiset kernels have X_t of %d and A_t of %d bytes; the job %d and %d", info[3], info[4], job.XSize, job.ASize)
		}
		r.keyLen, r.shared = int(info[0]), msShared(int(info[0]), int(info[1]))
		if r.shared > d.SharedOptin {
			return fmt.Errorf("cuda: multiset programs need %d bytes of shared memory a block; %s allows %d", r.shared, d.Name, d.SharedOptin)
		}
		pt.Mark("module")
		r.bins = makeMsBins(job.Pull.Degree, r.lo, r.hi, int(info[5]), int(info[1]))
		pt.Mark("bins")
		if err := d.reserve(d.Cache.Need(job.Pull.Matrix, false, false, build.BinLimits{}, build.TileSpec{}, pullRows(job)) + r.deviceBytes()); err != nil {
			return err
		}
		t0 := time.Now()
		r.md = d.Cache.Get(job.Pull.Matrix, false, false, build.BinLimits{}, build.TileSpec{}, pullRows(job))
		d.notePartPull(job.Part, r.md)
		d.DropCSRs(true, false)
		pt.Mark("matrix")
		r.allocate()
		r.transfers += time.Since(t0)
		pt.Mark("buffers and state")
		d.NotePeak()
		r.clock.Create()
		return nil
	})
	if err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// info runs ms_info: sizeof(K_t), MS_CHUNK, VP_SUMMARY_FOLD, sizeof(X_t),
// sizeof(A_t), MS_SLICE. Inside Do.
func (r *msRun) info() [6]uint64 {
	var out [6]uint64
	buf := cu.MemAlloc(int64(8 * len(out)))
	defer cu.MemFree(buf)
	a := make([]byte, 8)
	binary.LittleEndian.PutUint64(a, uint64(buf))
	r.mod.Launch2("ms_info", 1, r.d.Stream(), a, make([]byte, 4))
	r.d.Sync()
	cu.MemcpyDtoH(unsafe.Pointer(&out[0]), buf, int64(8*len(out)))
	return out
}

// deviceBytes is the device memory the run needs besides its matrix.
func (r *msRun) deviceBytes() int64 {
	n := int64(r.n)
	need := n*int64(r.job.XSize) + max(8, n*int64(r.job.ASize)) + 2*int64(r.words)*4 + int64(2*r.recW)*8
	need += 4*n + 8*int64(len(r.bins.hubFirst)) + 4*int64(len(r.bins.chunkHub))
	need += 2 * r.bins.chunks() * (int64(r.bins.chunk)*int64(r.keyLen+4) + 4)
	for _, a := range r.layout.arrays {
		need += a.bytes
	}
	return need
}

func (r *msRun) alloc(bytes int64) cu.DevicePtr { return rt.Alloc(&r.bufs, bytes) }

// put allocates and fills a device copy of s.
func msPut[T any](r *msRun, s []T) cu.DevicePtr {
	bytes := int64(len(s)) * int64(unsafe.Sizeof(*new(T)))
	p := r.alloc(bytes)
	if bytes > 0 {
		r.d.HtoD(p, unsafe.Pointer(&s[0]), bytes)
	}
	return p
}

// allocate makes the run's buffers and copies its initial state in.
// Inside Do.
func (r *msRun) allocate() {
	job, n := r.job, int64(r.n)
	r.x = r.alloc(n * int64(job.XSize))
	if len(job.X) > 0 {
		r.d.HtoD(r.x, unsafe.Pointer(&job.X[0]), int64(len(job.X)))
	}
	r.y = r.alloc(max(8, n*int64(job.ASize)))
	for i := range r.mask {
		r.mask[i] = r.alloc(int64(r.words) * 4)
	}
	if r.words > 0 {
		r.d.HtoD(r.mask[0], unsafe.Pointer(&job.Active.Words()[0]), int64(r.words)*4)
	}
	// Record 1 is superstep 0's previous one: the aggregators after Init.
	rec := make([]uint64, 2*r.recW)
	for i, v := range job.Aggregates {
		rec[r.recW+1+i] = math.Float64bits(v)
	}
	r.rec = r.alloc(int64(len(rec)) * 8)
	r.d.HtoD(r.rec, unsafe.Pointer(&rec[0]), int64(len(rec))*8)
	r.recHost = r.d.Pinned(int64(r.recW) * 8)

	r.rows = msPut(r, r.bins.rows)
	hubFirst := msPut(r, r.bins.hubFirst)
	chunkHub := msPut(r, r.bins.chunkHub)
	var hubKeys, hubCnt, hubLen [2]cu.DevicePtr
	entries := r.bins.chunks() * int64(r.bins.chunk)
	for i := range hubKeys {
		hubKeys[i] = r.alloc(entries * int64(r.keyLen))
		hubCnt[i] = r.alloc(entries * 4)
		hubLen[i] = r.alloc(r.bins.chunks() * 4)
	}

	ptrs := make([]uint64, len(r.layout.arrays))
	for i, a := range r.layout.arrays {
		p := r.alloc(a.bytes)
		if a.bytes > 0 {
			r.d.HtoD(p, a.ptr, a.bytes)
		}
		r.arrays = append(r.arrays, p)
		ptrs[i] = uint64(p)
	}
	r.state = r.layout.bytes(ptrs)

	// MS_Run (multiset.cu).
	b := make([]byte, 144)
	le := binary.LittleEndian
	for i, p := range []cu.DevicePtr{r.x, r.y, r.mask[0], r.mask[1], r.rec, r.rows, hubFirst, chunkHub,
		hubKeys[0], hubKeys[1], hubCnt[0], hubCnt[1], hubLen[0], hubLen[1]} {
		le.PutUint64(b[8*i:], uint64(p))
	}
	for i, v := range []int{r.n, r.recW, r.bins.count(msHub), int(r.bins.chunks()), r.lo, r.hi} {
		le.PutUint32(b[112+4*i:], uint32(int32(v)))
	}
	r.runArg = b
	cu.CtxSynchronize() // (the copies above ran on the legacy stream)
}

// msArg is the MS_Arg argument (multiset.cu).
func msArg(first, count, cur int, useMask bool, iteration, level, cap int) []byte {
	b := make([]byte, 32)
	le := binary.LittleEndian
	mask := 0
	if useMask {
		mask = 1
	}
	for i, v := range []int{first, count, cur, mask, iteration, level, cap} {
		le.PutUint32(b[4*i:], uint32(int32(v)))
	}
	return b
}

func (r *msRun) launch(name string, grid int64, shared int, arg []byte) {
	r.mod.LaunchShared(name, grid, rt.BlockSize, shared, r.d.Stream(), r.md.Arg, r.runArg, r.state, arg)
	if shared > 0 && name == "ms_block" {
		name += strconv.Itoa(int(binary.LittleEndian.Uint32(arg[24:])))
	}
	r.probe.mark(r.d, name)
}

// gridCap bounds the grid-stride kernels' blocks.
func (r *msRun) gridCap(blocksWanted int64) int64 {
	return max(1, min(blocksWanted, int64(max(1, r.d.SMs))*32))
}

// Step implements driver.DeviceRun: superstep it, a pull. The pull
// gathers from the frontier's vertices only unless the program gathers
// from all (Spec.GatherAll) or, idempotent, has a dense frontier (the
// CPU engine's rule).
func (r *msRun) Step(it int, dir driver.Direction) (int, int64, []float64, error) {
	if r.closed {
		return 0, 0, nil, errors.New("cuda: Step on a closed multiset run")
	}
	if dir == driver.Push {
		return 0, 0, nil, errors.New("cuda: a multiset program cannot push")
	}
	spec := r.job.Spec
	useMask := !spec.GatherAll && !(spec.Idempotent && r.active*4 >= r.n)
	cur := r.step & 1
	rec := make([]uint64, r.recW)
	err := r.d.Do("running a multiset superstep", func() error {
		r.clock.Begin(r.d.RT())
		a := msArg(0, 0, cur, useMask, it, 0, 0)
		r.probe.begin(r.d)
		r.launch("ms_begin", 1, 0, a)
		b := r.bins
		for c := msTiny; c < msHub; c++ {
			k := b.count(c)
			if k == 0 {
				continue
			}
			switch {
			case c < msWarp:
				perBlock := int64(rt.BlockSize/32) * int64(32>>(c-msTiny)) // rows a block takes at a time
				r.launch(msClassKernels[c], r.gridCap(rt.Blocks(int64(k), perBlock)), 0, msArg(b.first[c], k, cur, useMask, it, 0, 0))
			case c < msBlock:
				r.launch(msClassKernels[c], r.gridCap(rt.Blocks(int64(k), rt.BlockSize/32)), 0, msArg(b.first[c], k, cur, useMask, it, 0, 0))
			default:
				cp := msCap(c)
				r.launch(msClassKernels[c], int64(k), msShared(r.keyLen, cp), msArg(b.first[c], k, cur, useMask, it, 0, cp))
			}
		}
		if hubs := b.count(msHub); hubs > 0 {
			r.launch("ms_hub_chunk", b.chunks(), r.shared, msArg(b.first[msHub], hubs, cur, useMask, it, 0, 0))
			parts := b.chunks() * int64(b.chunk/msHubPart)
			for l := 0; l < b.levels; l++ {
				r.launch("ms_hub_merge", r.gridCap(parts), 0, msArg(b.first[msHub], hubs, cur, useMask, it, l, 0))
			}
			r.launch("ms_hub_final", int64(hubs), 0, msArg(b.first[msHub], hubs, cur, useMask, it, 0, 0))
		}
		r.launch("ms_apply", r.gridCap(rt.Blocks(int64(r.hi-r.lo), rt.BlockSize)), 0, a)
		st := r.d.Stream().Handle()
		cu.MemcpyDtoHAsync(r.recHost, r.rec+cu.DevicePtr(cur*r.recW*8), int64(r.recW)*8, st)
		r.clock.End(r.d.RT())
		r.d.Sync()
		r.probe.end()
		copy(rec, unsafe.Slice((*uint64)(r.recHost), r.recW))
		return nil
	})
	if err != nil {
		return 0, 0, nil, fmt.Errorf("superstep %d (multiset pull): %w", it, err)
	}
	r.step++
	r.active = int(rec[0])
	aggs := make([]float64, r.recW-1)
	for i := range aggs {
		aggs[i] = math.Float64frombits(rec[1+i])
	}
	return r.active, 0, aggs, nil
}

// An msRun as a part of a partitioned run (partRun, parts.go): its bins
// and APPLY cover its rows [lo, hi) only, and the dense exchange copies
// the other parts' values and frontier words in after each superstep.
// (A multiset program is not Sparse: the exchange is never sparse.)

func (r *msRun) dev() *Device           { return r.d }
func (r *msRun) part() *driver.Part     { return r.job.Part }
func (r *msRun) values() cu.DevicePtr   { return r.x }
func (r *msRun) frontier() cu.DevicePtr { return r.mask[r.step&1] }

func (r *msRun) stepPart(it int, dir driver.Direction) (driver.StepReport, error) {
	active, edges, aggs, err := r.Step(it, dir)
	return driver.StepReport{Active: active, FrontierEdges: edges, Aggregates: aggs}, err
}

// setRecord writes the whole run's activated vertices and aggregators
// into the record of the last superstep (which the next one's APPLY
// reads as Step.prev); the next superstep's choice of a masked gather
// counts the whole run's frontier. The copy is queued in the stream.
// Inside Do.
func (r *msRun) setRecord(active int, _ int64, aggs []float64, _ bool) {
	rec := make([]uint64, r.recW)
	rec[0] = uint64(active)
	for k, a := range aggs {
		rec[1+k] = math.Float64bits(a)
	}
	r.d.HtoDQueued(r.rec+cu.DevicePtr(((r.step-1)&1)*r.recW*8), unsafe.Pointer(&rec[0]), int64(r.recW)*8)
	r.active = active
}

func (r *msRun) finishPart(x []byte) error {
	if r.closed {
		return errors.New("cuda: Finish on a closed multiset run")
	}
	return copyPart(r.d, x, r.x, r.job.XSize, r.layout, r.arrays, r.n, int32(r.lo), int32(r.hi), &r.transfers)
}

// DeviceTime implements driver.DeviceTimer.
func (r *msRun) DeviceTime() time.Duration { return r.clock.DeviceTime(r.d.RT()) }

// Transfers implements driver.TransferReporter.
func (r *msRun) Transfers() time.Duration { return r.transfers }

// Finish implements driver.DeviceRun: X into x, the writable state
// arrays into their Go slices.
func (r *msRun) Finish(x []byte) error {
	if r.closed {
		return errors.New("cuda: Finish on a closed multiset run")
	}
	return copyBack(r.d, x, r.x, r.n*r.job.XSize, r.layout, r.arrays, &r.transfers)
}

// FinishSummary implements driver.SummaryFinisher.
func (r *msRun) FinishSummary() error {
	if r.closed {
		return errors.New("cuda: FinishSummary on a closed multiset run")
	}
	return r.d.Do("finishing the run", func() error {
		r.d.Sync()
		return nil
	})
}

// Close implements driver.DeviceRun.
func (r *msRun) Close() {
	if r.closed {
		return
	}
	r.closed = true
	_ = r.d.Do("freeing device memory", func() error {
		_ = rt.Catch("waiting for the GPU", func() error { r.d.Sync(); return nil })
		rt.FreeAll(r.bufs)
		r.bufs = nil
		if r.recHost != nil {
			r.d.Unpin(r.recHost, int64(r.recW)*8)
			r.recHost = nil
		}
		r.clock.Destroy()
		r.probe.report(r.step)
		if r.md != nil {
			r.d.Cache.Release(r.md)
		}
		return nil
	})
}

// msProbeOn (HPGRAPH_CUDA_MSPROBE=1, a diagnostic) times every kernel of
// a multiset run's supersteps with CUDA events and prints, when the run
// closes, each kernel's total and share.
var msProbeOn = os.Getenv("HPGRAPH_CUDA_MSPROBE") == "1"

// msProbe is a run's kernel times: an event before the first launch of a
// superstep and after each launch. Its methods run inside Do; a
// nil probe does nothing.
type msProbe struct {
	ev    []rt.Mark
	names []string
	used  int
	total map[string]float64 // ms
	order []string
}

func (p *msProbe) event(d *Device) {
	if p.used == len(p.ev) {
		p.ev = append(p.ev, rt.NewMark())
		p.names = append(p.names, "")
	}
	d.RecordMark(p.ev[p.used])
	p.used++
}

func (p *msProbe) begin(d *Device) {
	if p == nil {
		return
	}
	p.used = 0
	p.event(d)
}

func (p *msProbe) mark(d *Device, name string) {
	if p == nil {
		return
	}
	p.event(d)
	p.names[p.used-1] = name
}

// end adds the superstep's times (after the stream was waited for).
func (p *msProbe) end() {
	if p == nil {
		return
	}
	if p.total == nil {
		p.total = map[string]float64{}
	}
	for i := 1; i < p.used; i++ {
		ms, err := rt.Elapsed(p.ev[i-1], p.ev[i])
		if err != nil {
			panic(err)
		}
		if _, ok := p.total[p.names[i]]; !ok {
			p.order = append(p.order, p.names[i])
		}
		p.total[p.names[i]] += ms
	}
}

func (p *msProbe) report(steps int) {
	if p == nil {
		return
	}
	for _, e := range p.ev {
		e.Destroy()
	}
	all := 0.0
	for _, t := range p.total {
		all += t
	}
	sort.SliceStable(p.order, func(i, j int) bool { return p.total[p.order[i]] > p.total[p.order[j]] })
	fmt.Fprintf(os.Stderr, "multiset probe: %d supersteps, %.3f ms in kernels\n", steps, all)
	for _, k := range p.order {
		fmt.Fprintf(os.Stderr, "  %-16s %9.3f ms %5.1f%%\n", k, p.total[k], 100*p.total[k]/max(all, 1e-9))
	}
}
