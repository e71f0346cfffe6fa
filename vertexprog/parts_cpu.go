package vertexprog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"
	"unsafe"

	"github.com/hpgraph/hpgraph/bitmask"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// The CPU's side of a partitioned run: its parts stepped in turn on all
// cores, the messages they exchange between supersteps (in one process
// and, through the Comm, between processes), and the Sum arrays added
// up between SPMV and APPLY.

// cpuParts runs the parts of a partitioned run on the CPU, one after
// the other on all cores, exchanging by messages between supersteps:
// the path every partitioned run takes, checked against the whole-graph
// run where no device is.
type cpuParts[X, A any] struct {
	runs  []*cpuStepper[X, A]
	pt    Partition
	reads []driver.Span // driver.Part.Arcs: what a dense message sends (nil: every part's range)
	comm  Comm
	base  int       // the first local part's index
	prev  []float64 // the aggregators every part's Steps read
	xsize int
	sums  *sums // Sum arrays to add up over processes between SPMV and APPLY
	part  []PartStat
}

func (c *cpuParts[X, A]) step(it int, dir Direction) (int, int64, error) {
	if c.part == nil {
		c.part = make([]PartStat, len(c.runs))
		for i, r := range c.runs {
			c.part[i] = PartStat{Index: c.base + i, Lo: r.lo, Hi: r.hi, Arcs: r.pull.NNZ()}
		}
	}
	// Every part's SPMV before any part's APPLY, as in a whole-graph
	// superstep: a Gather may leave something for other vertices' Updates
	// (LCC credits each triangle's three vertices).
	msgs := make([]partMsg, len(c.runs))
	for i, r := range c.runs {
		t := time.Now()
		for j := range r.steps {
			r.steps[j].Iteration = it
		}
		r.spmvPhase(dir)
		c.part[i].Compute += time.Since(t)
	}
	if err := c.sums.exchange(); err != nil {
		return 0, 0, err
	}
	for i, r := range c.runs {
		t := time.Now()
		msgs[i].active, msgs[i].edges = r.applyPhase(dir)
		r.frontierToBits()
		msgs[i].aggs = foldSteps(r.steps)
		c.part[i].Compute += time.Since(t)
	}
	t := time.Now()
	all, err := exchangeMsgs(c.comm, msgs, func(i int, sparse bool) []byte {
		r := c.runs[i]
		hi := r.hi
		if c.reads != nil && !sparse {
			hi = c.reads[c.base+i].Hi // (no part reads the rest)
		}
		return packPart(r.lo, hi, r.active, valueBytes(r.x), c.xsize, sparse)
	}, driver.SparseExchange(c.runs[0].spec, c.runs[0].n, c.xsize))
	if err != nil {
		return 0, 0, err
	}
	active, edges := combineMsgs(all, c.runs[0].spec.Aggregators, c.prev)
	for i, r := range c.runs {
		for _, m := range all {
			if m.index == c.base+i {
				continue
			}
			if err := unpackPart(m.blob, r.active, valueBytes(r.x), c.xsize); err != nil {
				return 0, 0, err
			}
			if c.reads != nil && m.blob[0] == msgDense {
				// (the sender's words past what it sent: no activation
				// there is read, none is kept)
				_, hi := c.pt.Range(m.index)
				r.active.ClearRange(int(c.reads[m.index].Hi+31)/32, int(hi+31)/32)
			}
			c.part[i].ExchangeBytes += int64(len(m.blob))
		}
		// (the whole run's counts: the next superstep's direction and
		// work, as in a whole-graph run)
		r.activeCount, r.edges = active, edges
		c.part[i].Exchange += time.Since(t) / time.Duration(len(c.runs))
	}
	return active, edges, nil
}

func (c *cpuParts[X, A]) aggregates() []float64 { return c.prev }

func (c *cpuParts[X, A]) stats() []PartStat { return c.part }

// foldSteps combines a part's workers' contributions to the aggregators
// and resets them.
func foldSteps(steps []Step) []float64 {
	if len(steps) == 0 || len(steps[0].ops) == 0 {
		return nil
	}
	out := make([]float64, len(steps[0].ops))
	combineSteps(steps, out)
	return out
}

// partMsg is what a part tells every other after a superstep: what it
// activated, their frontier edges, its aggregator contributions and its
// vertices' new state (packPart's blob).
type partMsg struct {
	index  int
	active int
	edges  int64
	aggs   []float64
	blob   []byte
}

// exchangeMsgs sends the local parts' messages to every process and
// returns every part's, in part order: counts first (one all-gather),
// then, with the mode the global count picks, the parts' states (pack,
// by local part; a second all-gather).
func exchangeMsgs(comm Comm, local []partMsg, pack func(i int, sparse bool) []byte, sparse func(int) bool) ([]partMsg, error) {
	all := local
	if comm != nil && comm.Size() > 1 {
		got, err := comm.AllGather(encodeCounts(local))
		if err != nil {
			return nil, err
		}
		all = nil
		for r, b := range got {
			ms, err := decodeCounts(b)
			if err != nil {
				return nil, fmt.Errorf("vertexprog: process %d's counts: %w", r, err)
			}
			all = append(all, ms...)
		}
	}
	total := 0
	for _, m := range all {
		total += m.active
	}
	mode := sparse(total)
	for i := range local {
		local[i].blob = pack(i, mode)
	}
	if comm == nil || comm.Size() <= 1 {
		for i := range all {
			all[i].index = i
		}
		return all, nil
	}
	var buf []byte
	for _, m := range local {
		buf = binary.LittleEndian.AppendUint64(buf, uint64(len(m.blob)))
		buf = append(buf, m.blob...)
	}
	got, err := comm.AllGather(buf)
	if err != nil {
		return nil, err
	}
	k := 0
	for r, b := range got {
		for len(b) > 0 {
			if len(b) < 8 || uint64(len(b)-8) < binary.LittleEndian.Uint64(b) || k >= len(all) {
				return nil, fmt.Errorf("vertexprog: process %d sent a malformed exchange", r)
			}
			l := binary.LittleEndian.Uint64(b)
			all[k].blob, b = b[8:8+l], b[8+l:]
			all[k].index = k
			k++
		}
	}
	if k != len(all) {
		return nil, fmt.Errorf("vertexprog: the exchange had %d parts' states for %d parts", k, len(all))
	}
	return all, nil
}

// combineMsgs adds up the parts' counts and combines their aggregator
// contributions, in part order, into prev.
func combineMsgs(all []partMsg, ops []Aggregator, prev []float64) (int, int64) {
	active, edges := 0, int64(0)
	for j, op := range ops {
		prev[j] = op.Identity()
	}
	for _, m := range all {
		active += m.active
		edges += m.edges
		for j, op := range ops {
			prev[j] = op.Combine(prev[j], m.aggs[j])
		}
	}
	return active, edges
}

// encodeCounts is local's counts and aggregators as bytes.
func encodeCounts(local []partMsg) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(local)))
	for _, m := range local {
		b = binary.LittleEndian.AppendUint64(b, uint64(m.active))
		b = binary.LittleEndian.AppendUint64(b, uint64(m.edges))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(m.aggs)))
		for _, a := range m.aggs {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(a))
		}
	}
	return b
}

func decodeCounts(b []byte) ([]partMsg, error) {
	bad := errors.New("malformed counts")
	if len(b) < 4 {
		return nil, bad
	}
	k := int(binary.LittleEndian.Uint32(b))
	b = b[4:]
	var ms []partMsg
	for range k {
		if len(b) < 20 {
			return nil, bad
		}
		m := partMsg{active: int(binary.LittleEndian.Uint64(b)), edges: int64(binary.LittleEndian.Uint64(b[8:]))}
		na := int(binary.LittleEndian.Uint32(b[16:]))
		b = b[20:]
		if na < 0 || len(b) < 8*na {
			return nil, bad
		}
		for j := range na {
			m.aggs = append(m.aggs, math.Float64frombits(binary.LittleEndian.Uint64(b[8*j:])))
		}
		b = b[8*na:]
		ms = append(ms, m)
	}
	if len(b) != 0 {
		return nil, bad
	}
	return ms, nil
}

// A part's state message (packPart): a kind byte, the range, then
//
//	dense:  the values of [lo, hi) and the frontier words of the range
//	sparse: the count, the activated vertices, their values
const (
	msgDense  = 1
	msgSparse = 2
)

// packPart is part [lo, hi)'s state after a superstep: its vertices'
// values (x, xsize bytes each) and frontier bits (active), all of them
// (dense) or those of its activated vertices (sparse).
func packPart(lo, hi int32, active *bitmask.Bitmask, x []byte, xsize int, sparse bool) []byte {
	b := make([]byte, 9, 64)
	binary.LittleEndian.PutUint32(b[1:], uint32(lo))
	binary.LittleEndian.PutUint32(b[5:], uint32(hi))
	wlo, whi := wordRange(lo, hi)
	words := active.Words()[wlo:whi]
	if !sparse {
		b[0] = msgDense
		b = append(b, x[int(lo)*xsize:int(hi)*xsize]...)
		for _, w := range words {
			b = binary.LittleEndian.AppendUint32(b, w)
		}
		return b
	}
	b[0] = msgSparse
	var vs []int32
	active.ForEachInWords(wlo, whi, func(v int32) { vs = append(vs, v) })
	b = binary.LittleEndian.AppendUint32(b, uint32(len(vs)))
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	for _, v := range vs {
		b = append(b, x[int(v)*xsize:int(v+1)*xsize]...)
	}
	return b
}

// wordRange is the frontier words of vertices [lo, hi) (none for an
// empty range, wherever it lies).
func wordRange(lo, hi int32) (int, int) {
	if hi <= lo {
		return 0, 0
	}
	return int(lo) / 32, (int(hi) + 31) / 32
}

// unpackPart writes another part's message into this part's values and
// frontier.
func unpackPart(b []byte, active *bitmask.Bitmask, x []byte, xsize int) error {
	bad := func(what string) error { return fmt.Errorf("vertexprog: a part's message is malformed: %s", what) }
	if len(b) < 9 {
		return bad("short header")
	}
	kind := b[0]
	lo, hi := int32(binary.LittleEndian.Uint32(b[1:])), int32(binary.LittleEndian.Uint32(b[5:]))
	if lo < 0 || hi < lo || int(hi) > active.Len() || lo%partAlign != 0 && lo != hi {
		return bad(fmt.Sprintf("range [%d, %d)", lo, hi))
	}
	wlo, whi := wordRange(lo, hi)
	b = b[9:]
	switch kind {
	case msgDense:
		nx := int(hi-lo) * xsize
		if len(b) != nx+4*(whi-wlo) {
			return bad("dense length")
		}
		copy(x[int(lo)*xsize:], b[:nx])
		words := active.Words()
		for i := wlo; i < whi; i++ {
			words[i] = binary.LittleEndian.Uint32(b[nx+4*(i-wlo):])
		}
	case msgSparse:
		if len(b) < 4 {
			return bad("sparse count")
		}
		k := int(binary.LittleEndian.Uint32(b))
		b = b[4:]
		if k < 0 || k > int(hi-lo) || len(b) != k*(4+xsize) {
			return bad("sparse length")
		}
		vals := b[4*k:]
		active.ClearRange(wlo, whi)
		for i := range k {
			v := int32(binary.LittleEndian.Uint32(b[4*i:]))
			if v < lo || v >= hi {
				return bad(fmt.Sprintf("vertex %d outside [%d, %d)", v, lo, hi))
			}
			active.Set(v)
			copy(x[int(v)*xsize:int(v+1)*xsize], vals[i*xsize:])
		}
	default:
		return bad(fmt.Sprintf("kind %d", kind))
	}
	return nil
}

// sums keeps a run's Sum arrays (DeviceArray.Sum) added up over the
// processes of a run over several: each process sends what its parts
// added since the last exchange, and every process adds all of it to
// what they held then.
type sums struct {
	comm   Comm
	arrays []sumArray
}

// sumArray is one Sum array: its data and its sums at the last exchange.
type sumArray interface {
	delta() []byte        // what was added since the last exchange
	add(all [][]byte) int // adds every process's delta to the last sums; bytes read
}

type sumOf[T int32 | int64 | uint32 | uint64 | float32 | float64] struct {
	cur, snap []T
}

func (s *sumOf[T]) delta() []byte {
	d := make([]T, len(s.cur))
	for i := range d {
		d[i] = s.cur[i] - s.snap[i]
	}
	return valueBytes(d)
}

func (s *sumOf[T]) add(all [][]byte) int {
	size := int(unsafe.Sizeof(*new(T)))
	copy(s.cur, s.snap)
	for _, b := range all {
		d := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/size)
		for i := range s.cur {
			s.cur[i] += d[i]
		}
	}
	copy(s.snap, s.cur)
	return len(s.cur) * size
}

func newSumOf[T int32 | int64 | uint32 | uint64 | float32 | float64](cur []T) sumArray {
	return &sumOf[T]{cur: cur, snap: append([]T(nil), cur...)}
}

// newSums finds p's Sum arrays; nil where it has none or the run is one
// process's (whose parts share the program's arrays).
func newSums[X, A any](p Program[X, A], comm Comm) (*sums, error) {
	dp, ok := p.(DeviceProgram)
	if !ok || comm == nil || comm.Size() <= 1 {
		return nil, nil
	}
	s := &sums{comm: comm}
	for _, a := range dp.Device().Arrays {
		if !a.Sum {
			continue
		}
		var sa sumArray
		switch d := a.Data.(type) {
		case []int32:
			sa = newSumOf(d)
		case []int64:
			sa = newSumOf(d)
		case []uint32:
			sa = newSumOf(d)
		case []uint64:
			sa = newSumOf(d)
		case []float32:
			sa = newSumOf(d)
		case []float64:
			sa = newSumOf(d)
		default:
			return nil, fmt.Errorf("vertexprog: Sum array %s is a %T; want a slice of int32, int64, uint32, uint64, float32 or float64", a.Name, a.Data)
		}
		s.arrays = append(s.arrays, sa)
	}
	if len(s.arrays) == 0 {
		return nil, nil
	}
	return s, nil
}

// exchange adds up the Sum arrays over the processes.
func (s *sums) exchange() error {
	if s == nil {
		return nil
	}
	var msg []byte
	for _, a := range s.arrays {
		msg = append(msg, a.delta()...)
	}
	all, err := s.comm.AllGather(msg)
	if err != nil {
		return err
	}
	off := 0
	for _, a := range s.arrays {
		parts := make([][]byte, len(all))
		for r, m := range all {
			if len(m) != len(msg) {
				return fmt.Errorf("vertexprog: process %d sent %d bytes of sums, this one %d", r, len(m), len(msg))
			}
			parts[r] = m[off:]
		}
		off += a.add(parts)
	}
	return nil
}
