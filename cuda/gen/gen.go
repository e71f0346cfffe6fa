// Package gen makes GAP's Kronecker and uniform graphs on a GPU (issue
// 37, item 5): the entries datasets/gen makes on the host, edge for edge,
// cleaned on the device into the CSR that datasets.BuildStream builds from
// them, or any range of its rows (a part of a partitioned run), which
// stays on the device. The host draws only the shuffle of the vertex ids
// (one sequential stream of random numbers, 4 bytes a vertex); the graph
// itself never passes through the host.
//
// gen.cu holds the kernels and says how they work. The GPU is reached
// through Device (memory, copies, launches in order on one stream), which
// the CUDA backend implements on its device; model_test.go implements it
// in Go, every kernel's algorithm as the device runs it, and checks the
// CSR against the host generator's in CI.
package gen

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"sync"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/jit"
	"github.com/hpgraph/hpgraph/datasets"
	hostgen "github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/internal/phase"
)

//go:embed gen.cu
var source string

// Source is the kernels' CUDA source (gen.cu, its headers spliced in).
var Source = jit.MustExpand("gen.cu", source, nil)

// Kernels are the kernels of Source a module looks up.
var Kernels = []string{"gen_zero", "sc_reduce", "sc_top", "sc_apply", "sh_count", "sh_fill", "sh_sort", "sh_place",
	"gen_edges", "rs_hist", "rs_scatter", "u_reduce", "u_emit", "u_fill"}

// BlockSize is the threads of a block of every kernel (GEN_THREADS).
const BlockSize = 256

// tile is the values a block of a tiled kernel takes (GEN_TILE), warps
// the GAP blocks a block of gen_edges makes at once (GEN_WARPS), digitBits
// a radix sort pass's (GEN_DIGIT_BITS).
const (
	tile      = 4096
	warps     = BlockSize / 32
	digitBits = 8
	radix     = 1 << digitBits
)

// Ptr is a device address.
type Ptr uint64

// Device is what making a graph needs of a GPU: memory, copies and
// launches of Source's kernels, all in order on one stream. Driver
// failures panic (the caller's recover turns them into errors).
type Device interface {
	// Alloc allocates bytes of device memory; its error wraps
	// ErrOutOfMemory when they do not fit.
	Alloc(bytes int64) (Ptr, error)
	// Free frees p once the work before it is done.
	Free(p Ptr)
	// HtoD copies bytes from the host; the launches after it see them.
	HtoD(dst Ptr, src unsafe.Pointer, bytes int64)
	// DtoH copies bytes to the host once the launches before it are done.
	DtoH(dst unsafe.Pointer, src Ptr, bytes int64)
	// Launch runs kernel on grid blocks of BlockSize threads with the
	// arguments (arg, mode); arg is a GEN_Arg's bytes.
	Launch(kernel string, grid int64, arg []byte, mode int32)
	// FreeMemory is the device memory free now.
	FreeMemory() int64
	// SMs is the device's multiprocessors.
	SMs() int
}

// ErrOutOfMemory is wrapped by the errors of a graph that does not fit.
var ErrOutOfMemory = errors.New("gen: out of device memory")

// Spec is a graph to make: one of GAP's and the cleaning of its entries
// (datasets.BuildStream's options; Relabel must be none: renumbering is
// the caller's, after).
type Spec struct {
	hostgen.GAPGraph
	Options datasets.Options
}

// Graph is a Spec checked, with what the parts made of it share: the
// shuffle's swap targets, drawn on the host once.
type Graph struct {
	Spec
	N    int   // 2^scale vertices
	M    int64 // entries
	Name string

	once    sync.Once
	targets []int32
}

// New checks s.
func New(s Spec) (*Graph, error) {
	m, err := s.Entries()
	if err != nil {
		return nil, err
	}
	o := s.Options
	switch {
	case o.Relabel != datasets.RelabelNone:
		return nil, fmt.Errorf("gen: renumbering (%v) is not made on the device with the graph; renumber after", o.Relabel)
	case o.Weights == datasets.WeightsRandom && (o.WeightMin > o.WeightMax || o.WeightMin < 0):
		return nil, fmt.Errorf("random weights: range %d-%d is empty or negative", o.WeightMin, o.WeightMax)
	case o.Weights != datasets.WeightsRandom && o.Weights != datasets.WeightsNone && o.Weights != datasets.WeightsKeep:
		return nil, fmt.Errorf("unknown weight mode %d", o.Weights)
	}
	g := &Graph{Spec: s, N: 1 << s.Scale, M: int64(m), Name: s.Name()}
	// The swap targets are drawn meanwhile: the host's one sequential
	// part (0.7 s at scale 27 on a 2-core machine), beside the device's
	// start and the kernels' compilation.
	go g.Targets()
	return g, nil
}

// weighted says whether the graph has weights (a generator's entries have
// none of their own to keep).
func (g *Graph) weighted() bool { return g.Options.Weights == datasets.WeightsRandom }

// Targets are the shuffle's swap targets (hostgen.ShuffleTargets), drawn
// on first use; nil for a uniform graph, whose ids are not shuffled.
func (g *Graph) Targets() []int32 {
	if g.Uniform {
		return nil
	}
	g.once.Do(func() { g.targets = hostgen.ShuffleTargets(g.N, g.Seed) })
	return g.targets
}

// Part is rows [Lo, Hi) of the cleaned graph on a device: RowPtr holds
// Hi-Lo+1 int64 offsets from 0, Col the NNZ int32 columns (global ids,
// each row sorted), W their float32 weights or 0. Stats are the part's:
// Entries all the graph's entries (each part reads every one), SelfLoops
// and Duplicates those of its rows, so that the parts' add up to the
// graph's.
type Part struct {
	Lo, Hi         int
	RowPtr, Col, W Ptr
	NNZ            int64
	Stats          datasets.BuildStats
	// Bufs are the device allocations the part holds (Col's has room for
	// the arcs before duplicates were merged: a few percent more).
	Bufs []Ptr
}

// Free frees the part's device memory.
func (p *Part) Free(d Device) {
	for _, b := range p.Bufs {
		d.Free(b)
	}
	p.Bufs = nil
}

// Options tune Build.
type Options struct {
	// MaxChunk caps the arcs sorted at once (0: as many as the free
	// memory holds); tests set it to build in many chunks.
	MaxChunk int64
	// IDs, where not nil, are the vertex of each drawn id (N of them,
	// a permutation) in place of GAP's shuffle (Shuffle): GAP's ids
	// renumbered, so that the rows are made in the new order (a run over
	// several processes, each making its rows by degree: the caller's
	// renumbering of Shuffle's ids). Kronecker graphs only (a uniform
	// graph's degrees are not skewed; its ids are drawn unshuffled).
	IDs []int32
	// Orig, with IDs, is the GAP vertex of each new one (the caller's
	// renumbering inverted): a renumbered graph's weights are drawn from
	// GAP's ids, as the whole graph's before it is renumbered. Without
	// it renumbered rows are made without weights.
	Orig []int32
}

// arg is gen.cu's GEN_Arg: every field 8 bytes, in its order
// (TestArgMatchesSource).
type arg struct {
	Perm, Count, Keys, Stats, Targets, Off, Lists, PermOut, Scan, Sums, KeyIn, KeyOut, Hist, RowPtr, Col, W, Zero, Orig Ptr

	N, Entries, Blocks, BlockEntries, Capacity, ScanLen, ScanTiles, NKeys, Tiles, Base, ZeroWords     int64
	FillFrom, FillTo, FillValue                                                                       int64
	WSeed, WLo, WSpan                                                                                 int64
	Seed, PerEntry, Lo, Hi, PartLo, ColBits, KeepLoops, KeepDups, Shift, RMATA, RMATAB, RMATABC, Mask int64
}

func (a *arg) bytes() []byte {
	b, err := binary.Append(nil, binary.LittleEndian, a)
	if err != nil {
		panic(err) // unreachable: every field is fixed-size
	}
	return b
}

// builder makes a graph's parts on one device.
type builder struct {
	d   Device
	g   *Graph
	sms int64
	tmp []Ptr // freed when the build ends
}

func (b *builder) alloc(bufs *[]Ptr, what string, bytes int64) (Ptr, error) {
	p, err := b.d.Alloc(max((bytes+7)&^7, 8))
	if err != nil {
		return 0, fmt.Errorf("gen: %s of %s (%d bytes): %w", what, b.g.Name, bytes, err)
	}
	*bufs = append(*bufs, p)
	return p, nil
}

func (b *builder) freeTmp() {
	for _, p := range b.tmp {
		b.d.Free(p)
	}
	b.tmp = nil
}

// launch runs kernel on grid blocks (at least one).
func (b *builder) launch(kernel string, grid int64, a *arg, mode int32) {
	b.d.Launch(kernel, max(grid, 1), a.bytes(), mode)
}

// spread is the grid of a kernel that strides over n items.
func (b *builder) spread(n int64) int64 { return min((n+BlockSize-1)/BlockSize, b.sms*32) }

// zero zeroes words 8-byte words at p.
func (b *builder) zero(p Ptr, words int64) {
	b.launch("gen_zero", b.spread(words), &arg{Zero: p, ZeroWords: words}, 0)
}

// scan turns the n int64 at p into their exclusive prefix sums, p[n] the
// total; sums holds scanSums(n) words.
func (b *builder) scan(p Ptr, n int64, sums Ptr) {
	tiles := (n + tile - 1) / tile
	a := &arg{Scan: p, ScanLen: n, Sums: sums, ScanTiles: tiles}
	if tiles > 0 {
		b.launch("sc_reduce", tiles, a, 0)
	}
	b.launch("sc_top", 1, a, 0)
	if tiles > 0 {
		b.launch("sc_apply", tiles, a, 0)
	}
}

func scanSums(n int64) int64 { return (n + tile - 1) / tile }

// word downloads the int64 at p[i].
func (b *builder) word(p Ptr, i int64) int64 {
	var v int64
	b.d.DtoH(unsafe.Pointer(&v), p+Ptr(8*i), 8)
	return v
}

// shuffle makes GAP's vertex ids on the device from the swap targets: the
// n int32 at the returned address (held in bufs).
func (b *builder) shuffle(bufs *[]Ptr, targets []int32) (Ptr, error) {
	n := int64(len(targets))
	perm, err := b.alloc(bufs, "the vertex ids", n*4)
	if err != nil {
		return 0, err
	}
	var tmp []Ptr
	defer func() {
		for _, p := range tmp {
			b.d.Free(p)
		}
	}()
	t, err := b.alloc(&tmp, "the shuffle's swaps", n*4)
	if err != nil {
		return 0, err
	}
	off, err := b.alloc(&tmp, "the shuffle's lists", (n+1)*8)
	if err != nil {
		return 0, err
	}
	lists, err := b.alloc(&tmp, "the shuffle's lists", n*4)
	if err != nil {
		return 0, err
	}
	sums, err := b.alloc(&tmp, "a scan's sums", scanSums(n)*8)
	if err != nil {
		return 0, err
	}
	b.d.HtoD(t, unsafe.Pointer(unsafe.SliceData(targets)), n*4)
	b.zero(off, n+1)
	b.zero(perm, (n+1)/2)
	a := &arg{Targets: t, Off: off, Lists: lists, PermOut: perm, N: n}
	b.launch("sh_count", b.spread(n), a, 0)
	b.scan(off, n, sums)
	b.launch("sh_fill", b.spread(n), a, 0)
	b.launch("sh_sort", b.spread(n), a, 0)
	b.launch("sh_place", b.spread(n), a, 0)
	return perm, nil
}

// edgeArg is gen_edges' argument for the graph, its ids at perm.
func (b *builder) edgeArg(perm Ptr) arg {
	g := b.g
	a := arg{Perm: perm, N: int64(g.N), Entries: g.M, BlockEntries: hostgen.BlockEntries,
		Blocks: (g.M + hostgen.BlockEntries - 1) / hostgen.BlockEntries, Seed: int64(hostgen.MTSeed(g.Seed)),
		RMATA: hostgen.RMATA, RMATAB: hostgen.RMATAB, RMATABC: hostgen.RMATABC, Mask: int64(g.N - 1), ColBits: int64(g.Scale)}
	a.PerEntry = int64(g.Scale)
	if g.Uniform {
		a.PerEntry = 2
	}
	if g.Options.KeepSelfLoops {
		a.KeepLoops = 1
	}
	return a
}

// edgeGrid is gen_edges' grid: a warp a GAP block.
func edgeGrid(a *arg) int64 { return (a.Blocks + warps - 1) / warps }

// counted is the count pass over rows [lo, hi): count (hi-lo+1 words)
// holds the rows' raw arc offsets (before duplicates are merged).
type counted struct {
	count Ptr
	raw   int64 // arcs
	loops int64 // self-loop entries of the rows
}

// count runs the count pass; count is held in bufs.
func (b *builder) count(bufs *[]Ptr, perm Ptr, lo, hi int) (counted, error) {
	rows := int64(hi - lo)
	count, err := b.alloc(bufs, "the row offsets", (rows+1)*8)
	if err != nil {
		return counted{}, err
	}
	stats, err := b.alloc(&b.tmp, "the counters", 3*8)
	if err != nil {
		return counted{}, err
	}
	sums, err := b.alloc(&b.tmp, "a scan's sums", scanSums(rows)*8)
	if err != nil {
		return counted{}, err
	}
	b.zero(count, rows+1)
	b.zero(stats, 3)
	a := b.edgeArg(perm)
	a.Count, a.Stats, a.Lo, a.Hi = count, stats, int64(lo), int64(hi)
	b.launch("gen_edges", edgeGrid(&a), &a, 0)
	b.scan(count, rows, sums)
	return counted{count: count, raw: b.word(count, rows), loops: b.word(stats, 1)}, nil
}

// chunk is rows [lo, hi) of a part, arcs raw arcs.
type chunk struct {
	lo, hi int
	arcs   int64
}

// plan cuts rows [lo, hi) into chunks of at most capacity raw arcs,
// reading the offsets at count (raw arcs from row lo) a word at a time:
// each chunk as long as it can be.
func (b *builder) plan(count Ptr, lo, hi int, capacity int64) ([]chunk, error) {
	at := func(r int) int64 { return b.word(count, int64(r-lo)) }
	var chunks []chunk
	for c0, p0 := lo, int64(0); c0 < hi; {
		// The last row r in (c0, hi] with at(r) - p0 <= capacity.
		l, h := c0, hi
		for l < h {
			m := int(uint(l+h+1) >> 1)
			if at(m)-p0 <= capacity {
				l = m
			} else {
				h = m - 1
			}
		}
		if l == c0 {
			return nil, fmt.Errorf("gen: %s: row %d alone has %d arcs, more than the %d the device sorts at once: %w",
				b.g.Name, c0, at(c0+1)-p0, capacity, ErrOutOfMemory)
		}
		p1 := at(l)
		chunks = append(chunks, chunk{c0, l, p1 - p0})
		c0, p0 = l, p1
	}
	return chunks, nil
}

// bytesPerKey is the device memory a chunk takes an arc: two key arrays
// and a radix sort's histograms (8 bytes a digit a tile).
const bytesPerKey = 16 + radix*8/tile + 1

// Build makes rows [lo, hi) of g on d (0 ≤ lo ≤ hi ≤ g.N; all of them
// for the whole graph).
func (g *Graph) Build(d Device, lo, hi int, o Options) (part *Part, err error) {
	if lo < 0 || hi < lo || hi > g.N {
		return nil, fmt.Errorf("gen: rows [%d, %d) of %s, which has %d", lo, hi, g.Name, g.N)
	}
	b := &builder{d: d, g: g, sms: int64(max(d.SMs(), 1))}
	p := &Part{Lo: lo, Hi: hi}
	pt := phase.New("gen", fmt.Sprintf("%s rows [%d, %d)", g.Name, lo, hi))
	defer func() {
		b.freeTmp()
		if err != nil {
			p.Free(d)
		}
		pt.Print()
	}()
	var perm Ptr
	switch {
	case o.IDs != nil:
		if len(o.IDs) != g.N || o.Orig != nil && len(o.Orig) != g.N || g.Uniform {
			return nil, fmt.Errorf("gen: %s renumbered by %d ids (%d original) for %d vertices (uniform %v: renumbered rows are a Kronecker graph's)",
				g.Name, len(o.IDs), len(o.Orig), g.N, g.Uniform)
		}
		if perm, err = b.alloc(&b.tmp, "the vertex ids", int64(g.N)*4); err != nil {
			return nil, err
		}
		b.d.HtoD(perm, unsafe.Pointer(unsafe.SliceData(o.IDs)), int64(g.N)*4)
	case !g.Uniform:
		targets := g.Targets()
		pt.Mark("swap targets (host)")
		if perm, err = b.shuffle(&b.tmp, targets); err != nil {
			return nil, err
		}
	}
	c, err := b.count(&p.Bufs, perm, lo, hi)
	if err != nil {
		return nil, err
	}
	pt.Mark("ids and count pass")
	p.RowPtr = c.count
	if p.Col, err = b.alloc(&p.Bufs, "the columns", c.raw*4); err != nil {
		return nil, err
	}
	var orig Ptr
	if g.weighted() && o.IDs != nil && o.Orig != nil {
		if orig, err = b.alloc(&b.tmp, "the original ids", int64(g.N)*4); err != nil {
			return nil, err
		}
		b.d.HtoD(orig, unsafe.Pointer(unsafe.SliceData(o.Orig)), int64(g.N)*4)
	}
	if g.weighted() && (o.IDs == nil || orig != 0) {
		if p.W, err = b.alloc(&p.Bufs, "the weights", c.raw*4); err != nil {
			return nil, err
		}
	}

	// The chunks: as many arcs as the free memory sorts at once, less a
	// margin for what the driver allocates meanwhile.
	free := d.FreeMemory()
	capacity := min(max(c.raw, 1), (free-max(256<<20, free/50))/bytesPerKey)
	if o.MaxChunk > 0 {
		capacity = min(capacity, o.MaxChunk)
	}
	if capacity < 1 {
		return nil, fmt.Errorf("gen: %s: %d bytes free on the device after its CSR, too few to sort its arcs: %w", g.Name, free, ErrOutOfMemory)
	}
	chunks, err := b.plan(c.count, lo, hi, capacity)
	if err != nil {
		return nil, err
	}
	tiles := (capacity + tile - 1) / tile
	var keys [2]Ptr
	for i := range keys {
		if keys[i], err = b.alloc(&b.tmp, "the arcs being sorted", capacity*8); err != nil {
			return nil, err
		}
	}
	hist, err := b.alloc(&b.tmp, "the sort's histograms", (tiles*radix+1)*8)
	if err != nil {
		return nil, err
	}
	sums, err := b.alloc(&b.tmp, "a scan's sums", scanSums(tiles*radix)*8)
	if err != nil {
		return nil, err
	}
	stats, err := b.alloc(&b.tmp, "the counters", 3*8)
	if err != nil {
		return nil, err
	}
	kept, err := b.alloc(&b.tmp, "the arcs kept", (tiles+1)*8)
	if err != nil {
		return nil, err
	}

	pt.Mark(fmt.Sprintf("plan (%d chunks of at most %d arcs)", len(chunks), capacity))
	var base int64 // the part's arcs so far
	for _, ch := range chunks {
		n, err := b.fill(perm, ch, keys[0], capacity, stats)
		if err != nil {
			return nil, err
		}
		pt.Mark("fill")
		sorted := b.sort(keys, n, ch, hist, sums)
		base += b.emit(p, sorted, n, ch, kept, sums, base, orig)
		pt.Mark(fmt.Sprintf("sort (%d passes) and rows", b.sortPasses(ch)))
	}
	if len(chunks) == 0 { // (no rows)
		b.launch("u_fill", 1, &arg{RowPtr: p.RowPtr, FillFrom: int64(lo), FillTo: int64(lo), PartLo: int64(lo)}, 0)
	}
	p.NNZ = base
	p.Stats = datasets.BuildStats{Entries: g.M, SelfLoops: c.loops, Duplicates: c.raw - base}
	if g.Options.KeepSelfLoops {
		p.Stats.SelfLoops = 0
	}
	// (a last copy, so that the part is complete when Build returns)
	if got := b.word(p.RowPtr, int64(hi-lo)); got != base {
		return nil, fmt.Errorf("gen: %s: rows [%d, %d) end at arc %d, %d were written", g.Name, lo, hi, got, base)
	}
	return p, nil
}

// fill appends the arcs of ch's rows to keys and returns their number,
// checked against the count pass's.
func (b *builder) fill(perm Ptr, ch chunk, keys Ptr, capacity int64, stats Ptr) (int64, error) {
	b.zero(stats, 3)
	a := b.edgeArg(perm)
	a.Keys, a.Stats, a.Capacity, a.Lo, a.Hi = keys, stats, capacity, int64(ch.lo), int64(ch.hi)
	b.launch("gen_edges", edgeGrid(&a), &a, 1)
	var s [3]int64
	b.d.DtoH(unsafe.Pointer(&s[0]), stats, 24)
	if s[0] != ch.arcs || s[2] != 0 {
		return 0, fmt.Errorf("gen: %s: rows [%d, %d) gave %d arcs (overflow %d), the count pass %d", b.g.Name, ch.lo, ch.hi, s[0], s[2], ch.arcs)
	}
	return ch.arcs, nil
}

// sortPasses is the radix sort's passes over the keys of ch: its rows'
// bits above the column's.
func (b *builder) sortPasses(ch chunk) int {
	keyBits := b.g.Scale + bits.Len(uint(ch.hi-ch.lo-1))
	return (keyBits + digitBits - 1) / digitBits
}

// sort sorts the n keys at keys[0] (keys[1] its scratch) and returns
// where they are.
func (b *builder) sort(keys [2]Ptr, n int64, ch chunk, hist, sums Ptr) Ptr {
	tiles := (n + tile - 1) / tile
	in, out := keys[0], keys[1]
	if n == 0 {
		return in
	}
	for p := range b.sortPasses(ch) {
		a := &arg{KeyIn: in, KeyOut: out, Hist: hist, NKeys: n, Tiles: tiles, Shift: int64(p * digitBits)}
		b.launch("rs_hist", tiles, a, 0)
		b.scan(hist, tiles*radix, sums)
		b.launch("rs_scatter", tiles, a, 0)
		in, out = out, in
	}
	return in
}

// emit writes the n sorted keys of ch as the part's rows, from arc base,
// and returns the arcs it kept; orig, where not 0, is the original id of
// each vertex, which the weights are drawn from.
func (b *builder) emit(p *Part, keys Ptr, n int64, ch chunk, kept, sums Ptr, base int64, orig Ptr) int64 {
	o := b.g.Options
	tiles := (n + tile - 1) / tile
	a := &arg{KeyIn: keys, NKeys: n, Tiles: tiles, Scan: kept, RowPtr: p.RowPtr, Col: p.Col, W: p.W, Base: base,
		Lo: int64(ch.lo), PartLo: int64(p.Lo), ColBits: int64(b.g.Scale)}
	if o.KeepDuplicates {
		a.KeepDups = 1
	}
	if p.W != 0 {
		a.WSeed, a.WLo, a.WSpan, a.Orig = int64(o.Seed), int64(o.WeightMin), int64(o.WeightMax-o.WeightMin+1), orig
	}
	if n == 0 {
		b.launch("u_fill", b.spread(int64(ch.hi-ch.lo+1)), &arg{RowPtr: p.RowPtr, FillFrom: int64(ch.lo), FillTo: int64(ch.hi),
			FillValue: base, PartLo: int64(p.Lo)}, 0)
		return 0
	}
	b.launch("u_reduce", tiles, a, 0)
	b.scan(kept, tiles, sums)
	b.launch("u_emit", tiles, a, 0)
	total := b.word(kept, tiles)
	last := int64(ch.lo) + int64(uint64(b.word(keys, n-1))>>b.g.Scale)
	b.launch("u_fill", b.spread(int64(ch.hi)-last), &arg{RowPtr: p.RowPtr, FillFrom: last + 1, FillTo: int64(ch.hi),
		FillValue: base + total, PartLo: int64(p.Lo)}, 0)
	return total
}
