//go:build cgo

package run

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"time"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/build"
	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

//go:embed afforest.cu
var afforestSource string

var afforestKernels = []string{"af_init", "af_hook", "af_link_up", "af_link_round", "af_compress", "af_sample", "af_link_rest", "af_link_pairs", "af_pack", "af_link_bits", "af_link_list"}

const (
	// afRounds is the neighbours of every vertex linked before sampling
	// (GAP's neighbor_rounds).
	afRounds = 2
	// afSamples is the labels sampled to find the largest component
	// (af_sample writes rt.BlockSize per block).
	afSamples = 1024
	afSeed    = 0x9e3779b9
)

// afforestProgram is the CUDA source of the Afforest kernels.
func afforestProgram() string {
	return "#line 1 \"hpgraph_mat.cu\"\n" + matSource + "#line 1 \"hpgraph_afforest.cu\"\n" + afforestSource
}

// ccRun is one Afforest job (driver.ComponentsRun).
type ccRun struct {
	clock  rt.Clock // DeviceTime
	d      *Device
	mod    *rt.Module
	md     *build.Matrix
	n      int
	lo, hi int // the rows the links pass over: a part's, or the graph's, up to the last with arcs
	// spans are the vertices that can be linked (every part's rows up
	// to its last with arcs, driver.Part.Arcs; the whole graph's: lo,
	// hi): the forest is made, compressed and read back over them only,
	// and every other vertex, without arcs, is its own label (Finish).
	spans     []driver.Span
	comp      cu.DevicePtr
	sample    cu.DevicePtr
	bufs      []cu.DevicePtr
	transfers time.Duration
	closed    bool
}

// Components implements driver.ComponentsBackend with Afforest
// (afforest.cu), on the matrix's cached device copy.
func (b Backend) Components(m *driver.Matrix) (driver.ComponentsRun, error) {
	d, err := b.Dev()
	if err != nil {
		return nil, err
	}
	return startCC(d, m, nil, 0)
}

// startCC makes an Afforest job on d for the matrix m (part: a part's
// pull, whose device copy holds its rows only: build.Window), with room
// for extra bytes more (a part's exchange buffers).
func startCC(d *Device, m *driver.Matrix, part *driver.Part, extra int64) (*ccRun, error) {
	ptx, key, err := d.Image(afforestProgram())
	if err != nil {
		return nil, err
	}
	r := &ccRun{d: d, n: m.N}
	err = d.Do("copying the graph to the device", func() error {
		rows := build.Window{}
		if part != nil {
			rows = build.Window{Lo: int(part.Lo), Hi: int(part.Hi)}
		}
		need := d.Cache.Need(m.Matrix, false, false, build.BinLimits{}, build.TileSpec{}, rows) + int64(m.N)*4 + afSamples*4 + extra
		if err := d.reserve(need); err != nil {
			return err
		}
		var err error
		if r.mod, err = d.Load(key, ptx, afforestKernels); err != nil {
			return err
		}
		t0 := time.Now()
		r.md = d.Cache.Get(m.Matrix, false, false, build.BinLimits{}, build.TileSpec{}, rows)
		d.notePartPull(part, r.md)
		d.DropCSRs(true, false)
		r.hi = r.md.RowsEnd(0, m.N) // (a graph in an order by degree: its vertices without arcs last)
		r.spans = []driver.Span{{Lo: 0, Hi: int32(r.hi)}}
		r.comp = cu.MemAlloc(int64(max(1, m.N)) * 4)
		r.sample = cu.MemAlloc(afSamples * 4)
		r.bufs = []cu.DevicePtr{r.comp, r.sample}
		cu.CtxSynchronize()
		r.transfers += time.Since(t0)
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

// arg is the AF_Arg argument (afforest.cu).
func (r *ccRun) arg(round, giant int) []byte { return r.argWith(r.sample, round, giant) }

// argWith is arg with sample pointing elsewhere.
func (r *ccRun) argWith(sample cu.DevicePtr, round, giant int) []byte {
	return r.argRows(sample, round, giant, r.lo, r.hi)
}

// argRows is argWith over the rows [lo, hi) (af_link_pairs' span, sample
// its other forest).
func (r *ccRun) argRows(sample cu.DevicePtr, round, giant, lo, hi int) []byte {
	b := make([]byte, 40)
	le := binary.LittleEndian
	le.PutUint64(b, uint64(r.comp))
	le.PutUint64(b[8:], uint64(sample))
	for i, v := range []uint32{uint32(r.n), uint32(round), uint32(giant), afSeed, uint32(lo), uint32(hi)} {
		le.PutUint32(b[16+4*i:], v)
	}
	return b
}

func (r *ccRun) launch(name string, grid int64, a []byte) {
	r.mod.Launch2(name, grid, r.d.Stream(), r.md.Arg, a)
}

// Run implements driver.ComponentsRun: link two neighbours of every
// vertex, compress, sample the labels for the largest component, link
// every other vertex's remaining neighbours, compress. Three passes.
func (r *ccRun) Run() (int, error) {
	if r.closed {
		return 0, errors.New("cuda: Run on a closed components run")
	}
	if r.n == 0 {
		return 0, nil
	}
	err := r.d.Do("labelling components", func() error {
		r.clock.Begin(r.d.RT())
		r.link(true)
		r.clock.End(r.d.RT())
		r.d.Sync()
		return nil
	})
	return afRounds + 1, err
}

// link launches Afforest's passes on the device's stream (its thread):
// with skip, the vertices of the largest component sampled (giant, or
// -1) skip their edges after the first afRounds, which a symmetric
// matrix allows (a part's rows: afforest_parts.go).
func (r *ccRun) link(skip bool) (giant int32) {
	r.linkFirst()
	return r.linkRest(skip)
}

// overSpans launches kernel over each of the spans of vertices that
// can be linked, outside the rows [lo, hi) (none: lo == hi).
func (r *ccRun) overSpans(kernel string, lo, hi int32) {
	for _, s := range r.spans {
		for _, o := range []driver.Span{{Lo: s.Lo, Hi: min(s.Hi, max(s.Lo, lo))}, {Lo: max(s.Lo, hi), Hi: s.Hi}} {
			if o.Hi > o.Lo {
				r.launch(kernel, rt.Blocks(int64(o.Hi-o.Lo), rt.BlockSize), r.argRows(r.sample, 0, 0, int(o.Lo), int(o.Hi)))
			}
		}
	}
}

// linkFirst launches Afforest's first pass: every vertex its own tree,
// then each row linked with its first neighbour (hooked under it where
// it is smaller, by af_hook's plain stores, which make the rows' trees),
// and the rows compressed.
func (r *ccRun) linkFirst() {
	r.overSpans("af_init", int32(r.lo), int32(r.hi))
	if own := int64(r.hi - r.lo); own > 0 {
		r.launch("af_hook", rt.Blocks(own, rt.BlockSize), r.arg(0, 0))
		r.launch("af_link_up", rt.Blocks(own, rt.BlockSize), r.arg(0, 0))
		r.compressRows()
	}
}

// compressRows launches af_compress over the run's own rows, which is
// all that the passes before the last read compressed (af_sample's and
// af_link_rest's tests of a row's label): in a part, the other parts'
// spans wait for the last compression (af_pack reads them), and a
// compression of them after each pass cost more than the part's links
// (kron26 in 2 parts on one H200: 2.52 ms of compressions against the
// whole graph's 0.53; ncu, session 40). The whole graph's rows are its
// span.
func (r *ccRun) compressRows() {
	if r.hi > r.lo {
		r.launch("af_compress", rt.Blocks(int64(r.hi-r.lo), rt.BlockSize), r.arg(0, 0))
	}
}

// linkRest launches the passes after linkFirst (see link).
func (r *ccRun) linkRest(skip bool) (giant int32) {
	own := int64(r.hi - r.lo) // (the rows the links read: a part's own)
	a := r.arg(0, 0)
	giant = -1 // (no vertex's label)
	if own == 0 {
		return giant
	}
	for i := 1; i < afRounds; i++ {
		r.launch("af_link_round", rt.Blocks(own, rt.BlockSize), r.arg(i, 0))
		r.compressRows()
	}
	if skip {
		r.launch("af_sample", afSamples/rt.BlockSize, a)
		labels := make([]int32, afSamples)
		cu.MemcpyDtoHAsync(unsafe.Pointer(&labels[0]), r.sample, afSamples*4, r.d.Stream().Handle())
		r.d.Sync()
		giant = mostFrequent(labels)
	}
	r.launch("af_link_rest", rt.Blocks(own, rt.BlockSize), r.arg(afRounds, int(giant)))
	r.overSpans("af_compress", 0, 0)
	return giant
}

// mostFrequent returns the value that occurs most often in s (the
// smallest of those that tie).
func mostFrequent(s []int32) int32 {
	count := map[int32]int{}
	best, bestN := int32(0), 0
	for _, v := range s {
		count[v]++
		if c := count[v]; c > bestN || c == bestN && v < best {
			best, bestN = v, c
		}
	}
	return best
}

// Finish implements driver.ComponentsRun.
func (r *ccRun) Finish(labels []int32) error {
	if r.closed {
		return errors.New("cuda: Finish on a closed components run")
	}
	if len(labels) != r.n {
		return errors.New("cuda: Finish: the labels' length is not the graph's order")
	}
	if r.n == 0 {
		return nil
	}
	t0 := time.Now()
	defer func() { r.transfers += time.Since(t0) }()
	own := func(lo, hi int32) { // (vertices outside the spans: their own labels)
		par.Blocks(int(hi-lo), func(_, a, b int) {
			for v := lo + int32(a); v < lo+int32(b); v++ {
				labels[v] = v
			}
		})
	}
	v := int32(0)
	for _, s := range r.spans {
		own(v, max(v, s.Lo))
		v = max(v, s.Hi)
	}
	own(v, int32(r.n))
	return r.d.Do("copying labels back", func() error {
		for _, s := range r.spans {
			if s.Hi > s.Lo {
				r.d.DtoH(unsafe.Pointer(&labels[s.Lo]), r.comp+cu.DevicePtr(4*int64(s.Lo)), 4*int64(s.Hi-s.Lo))
			}
		}
		return nil
	})
}

// Transfers implements driver.TransferReporter.
func (r *ccRun) Transfers() time.Duration { return r.transfers }

// DeviceTime implements driver.DeviceTimer.
func (r *ccRun) DeviceTime() time.Duration { return r.clock.DeviceTime(r.d.RT()) }

// Close implements driver.ComponentsRun.
func (r *ccRun) Close() {
	if r.closed {
		return
	}
	r.closed = true
	_ = r.d.Do("freeing device memory", func() error {
		_ = rt.Catch("waiting for the GPU", func() error { r.d.Sync(); return nil })
		rt.FreeAll(r.bufs)
		r.clock.Destroy()
		if r.md != nil {
			r.d.Cache.Release(r.md)
		}
		return nil
	})
}
