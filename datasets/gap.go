package datasets

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"unsafe"

	"github.com/hpgraph/hpgraph/internal/par"
)

// GAP's serialized graphs: what the GAP benchmark suite's converter
// writes with -b (a .sg) or -wb (a .wsg), and its kernels read with -f.
// Little-endian, no magic: a bool (1 byte: directed), the arcs m and the
// vertices n (int64s), the out-rows' offsets (n+1 int64s, from 0 to m)
// and their neighbours (m int32 ids, or for a .wsg m pairs of an int32 id
// and an int32 weight); a directed graph's in-rows follow in the same
// layout. An undirected graph's rows list each edge from both ends. GAP's
// vertex v keeps id v.

// gapHeader is the bytes of the header: the flag, m and n.
const gapHeader = 17

// gapChunk is the most elements read at a time where the input's size
// is not known (gzip, pipes), from 4096 on, doubling: memory grows with
// the data, never with a header's word alone.
const gapChunk = 1 << 20

// gapLayout is a GAP graph's layout: its header's counts and whether
// each neighbour carries a weight.
type gapLayout struct {
	directed, weighted bool
	n, m               int64
}

// bytes is the file size the layout takes, or -1 where it overflows.
func (l gapLayout) bytes() int64 {
	es := int64(4)
	if l.weighted {
		es = 8
	}
	if l.m > (math.MaxInt64/4-8*(l.n+1))/es {
		return -1
	}
	sec := 8*(l.n+1) + es*l.m
	if l.directed {
		sec *= 2
	}
	return gapHeader + sec
}

func (l gapLayout) String() string {
	kind := "unweighted (.sg)"
	if l.weighted {
		kind = "weighted (.wsg)"
	}
	dir := "an undirected"
	if l.directed {
		dir = "a directed"
	}
	return fmt.Sprintf("%s %s graph of %d vertices and %d arcs", dir, kind, l.n, l.m)
}

// readGAP reads a GAP serialized graph from src as entries (gapEdgeList);
// weighted says whether it is a .wsg, unknown (-1) that the file's size
// must tell.
func readGAP(src source, weighted int) (*EdgeList, error) {
	g, err := readGAPFile(src, weighted)
	if err != nil {
		return nil, err
	}
	return gapEdgeList(g)
}

// readGAPGraph reads a GAP serialized graph from src and builds it with
// opt: where its rows are already what Build would make of them (each
// sorted, no column twice, no self loop, an undirected graph's rows
// listing each edge from both ends with one weight), as they are, only
// opt's symmetrizing, weights and renumbering applied (as to a cache);
// else through Build. GAP's converter writes them so: kron21's 270 MB
// .sg then loads in a pass over it, not a build of 64M arcs.
func readGAPGraph(src source, weighted int, opt Options) (*Graph, error) {
	g, err := readGAPFile(src, weighted)
	if err != nil {
		return nil, err
	}
	if g.Validate() == nil && keepsCleaning(g, Options{}) {
		g.Stats.Entries = int64(len(g.Col)) // (the entries Build would have read)
		if !g.Directed {
			if err := checkSymmetric(g); err != nil {
				return nil, fmt.Errorf("%s: GAP serialized graph: %w", src.name, err)
			}
			g.Stats.Entries /= 2
		}
		return applyToCache(g, opt)
	}
	el, err := gapEdgeList(g)
	if err != nil {
		return nil, err
	}
	return Build(el, opt)
}

// readGAPFile reads a GAP serialized graph's out-rows, checked, as a
// Graph (not yet known to be one Build would make).
func readGAPFile(src source, weighted int) (*Graph, error) {
	fail := func(format string, a ...any) error {
		return fmt.Errorf("%s: GAP serialized graph: %s", src.name, fmt.Sprintf(format, a...))
	}
	var h [gapHeader]byte
	if _, err := io.ReadFull(src.r, h[:]); err != nil {
		return nil, fail("the file ends inside its %d-byte header (a directed flag, the arcs and the vertices as int64s): %v", gapHeader, err)
	}
	l := gapLayout{
		directed: h[0] == 1,
		m:        int64(binary.LittleEndian.Uint64(h[1:9])),
		n:        int64(binary.LittleEndian.Uint64(h[9:17])),
	}
	switch {
	case h[0] > 1:
		return nil, fail("its first byte is %d; GAP's header starts with its directed flag, 0 or 1", h[0])
	case l.n <= 0 || l.n > math.MaxInt32:
		return nil, fail("its header says %d vertices; a graph has 1 to %d (ids are int32s)", l.n, int64(math.MaxInt32))
	case l.m < 0 || l.bytes() < 0:
		return nil, fail("its header says %d arcs: no file holds them", l.m)
	}
	if weighted < 0 && src.size < 0 {
		return nil, fail("its name ends neither in .sg nor .wsg and its size is not known (compressed, or a pipe), so whether its neighbours carry weights cannot be told: name it .sg or .wsg")
	}
	if src.size >= 0 {
		plain, heavy := l, l
		plain.weighted, heavy.weighted = false, true
		switch {
		case weighted < 0 && src.size == plain.bytes():
			l = plain
		case weighted < 0 && src.size == heavy.bytes():
			l = heavy
		case weighted >= 0:
			l.weighted = weighted == 1
			if src.size != l.bytes() {
				other := plain
				if !l.weighted {
					other = heavy
				}
				if src.size == other.bytes() {
					return nil, fail("its size, %d bytes, is that of %s, not the %s its name says", src.size, other, map[bool]string{false: ".sg", true: ".wsg"}[l.weighted])
				}
				return nil, fail("its header says %s, %d bytes; the file has %d", l, l.bytes(), src.size)
			}
		default:
			return nil, fail("its header says %d vertices and %d arcs, %d bytes unweighted (.sg) or %d weighted (.wsg); the file has %d", l.n, l.m, plain.bytes(), heavy.bytes(), src.size)
		}
	} else {
		l.weighted = weighted == 1
	}
	known := src.size >= 0
	rowPtr, col, w, err := readGAPRows(src.r, l, known, "out")
	if err != nil {
		return nil, fail("%v", err)
	}
	if l.directed { // (the in-rows: read through and checked, not kept)
		if _, _, _, err := readGAPRows(src.r, l, known, "in"); err != nil {
			return nil, fail("%v", err)
		}
	}
	if !known {
		var b [1]byte
		if k, _ := io.ReadFull(src.r, b[:]); k > 0 {
			return nil, fail("the file goes on after %s", l)
		}
	}
	return &Graph{Name: src.name, N: int(l.n), RowPtr: rowPtr, Col: col, W: w, Directed: l.directed}, nil
}

// checkSymmetric says which edge of g, undirected with sorted rows and
// no column twice, its rows list from one end only or with two weights:
// g's rows must be its transpose's (Transpose, a counting pass over the
// arcs; a binary search of each arc's reverse in its head's row took
// kron20 3.5 s on 2 cores, the hubs' rows long).
func checkSymmetric(g *Graph) error {
	d := *g
	d.Directed = true
	t := d.Transpose()
	rows := make([]int, par.Workers()) // a block's first row that differs; -1: none
	for k := range rows {
		rows[k] = -1
	}
	par.Blocks(g.N, func(k, lo, hi int) {
		for v := lo; v < hi; v++ {
			a, b, ta, tb := g.RowPtr[v], g.RowPtr[v+1], t.RowPtr[v], t.RowPtr[v+1]
			if !slices.Equal(t.Col[ta:tb], g.Col[a:b]) || g.W != nil && !slices.Equal(t.W[ta:tb], g.W[a:b]) {
				rows[k] = v
				return
			}
		}
	})
	for _, v := range rows {
		if v < 0 {
			continue
		}
		out, in := g.Neighbors(int32(v)), t.Neighbors(int32(v))
		for _, u := range in {
			if _, ok := slices.BinarySearch(out, u); !ok {
				return fmt.Errorf("an undirected graph's rows list each edge from both ends, but vertex %d's lists %d and %d's does not list %d", u, v, v, u)
			}
		}
		for _, x := range out {
			if _, ok := slices.BinarySearch(in, x); !ok {
				return fmt.Errorf("an undirected graph's rows list each edge from both ends, but vertex %d's lists %d and %d's does not list %d", v, x, x, v)
			}
		}
		if g.W == nil {
			continue // (unreached: rows of sorted columns, each once, differ in a column)
		}
		for i, x := range out { // (the same columns: a weight differs)
			if w := t.W[t.RowPtr[v]+int64(i)]; w != g.W[g.RowPtr[v]+int64(i)] {
				return fmt.Errorf("an undirected graph's edge %d-%d weighs %v from %d and %v from %d", v, x, g.W[g.RowPtr[v]+int64(i)], v, w, x)
			}
		}
	}
	return nil
}

// readGAPRows reads one section: offsets and neighbours, checked.
func readGAPRows(r io.Reader, l gapLayout, known bool, which string) (rowPtr []int64, col []int32, w []float32, err error) {
	if rowPtr, err = readLE[int64](r, l.n+1, known); err != nil {
		return nil, nil, nil, fmt.Errorf("the %s-rows' offsets (%d int64s) end early: %w", which, l.n+1, err)
	}
	if rowPtr[0] != 0 || rowPtr[l.n] != l.m {
		return nil, nil, nil, fmt.Errorf("the %s-rows' offsets run from %d to %d; the header's %d arcs want 0 to %d", which, rowPtr[0], rowPtr[l.n], l.m, l.m)
	}
	for v := range l.n {
		if rowPtr[v+1] < rowPtr[v] {
			return nil, nil, nil, fmt.Errorf("the %s-row of vertex %d ends at %d, before it starts (%d)", which, v, rowPtr[v+1], rowPtr[v])
		}
	}
	count := l.m
	if l.weighted {
		count *= 2
	}
	words, err := readLE[int32](r, count, known)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("the %s-rows' neighbours (%d arcs) end early: %w", which, l.m, err)
	}
	col = words
	if l.weighted {
		col, w = make([]int32, l.m), make([]float32, l.m)
		par.Blocks(int(l.m), func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				col[i], w[i] = words[2*i], float32(words[2*i+1])
			}
		})
	}
	bad := make([]int64, par.Workers())
	for k := range bad {
		bad[k] = -1
	}
	par.Blocks(int(l.m), func(k, lo, hi int) {
		for i := lo; i < hi; i++ {
			if c := col[i]; c < 0 || int64(c) >= l.n {
				bad[k] = int64(i)
				return
			}
		}
	})
	for _, i := range bad {
		if i >= 0 {
			v, _ := slices.BinarySearch(rowPtr, i+1)
			return nil, nil, nil, fmt.Errorf("the %s-row of vertex %d lists vertex %d (arc %d); the graph has %d vertices", which, v-1, col[i], i, l.n)
		}
	}
	return rowPtr, col, w, nil
}

// readLE reads count little-endian T from r: into one slice where the
// input's size was checked against the count (known), else gapChunk at a
// time.
func readLE[T int32 | int64](r io.Reader, count int64, known bool) ([]T, error) {
	var out []T
	size := int(unsafe.Sizeof(T(0)))
	for chunk := int64(4096); int64(len(out)) < count; chunk = min(2*chunk, gapChunk) {
		k := int(min(count-int64(len(out)), chunk))
		if known {
			k = int(count - int64(len(out)))
		}
		at := len(out)
		out = slices.Grow(out, k)[:at+k]
		b := unsafe.Slice((*byte)(unsafe.Pointer(&out[at])), k*size)
		if _, err := io.ReadFull(r, b); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if !littleEndian {
			for i := range k {
				if size == 8 {
					out[at+i] = T(binary.LittleEndian.Uint64(b[8*i:]))
				} else {
					out[at+i] = T(binary.LittleEndian.Uint32(b[4*i:]))
				}
			}
		}
	}
	if out == nil {
		out = []T{}
	}
	return out, nil
}

// gapEdgeList is a GAP graph's rows as entries: every arc of a directed
// graph; each edge of an undirected one once, from its smaller end (the
// file lists it from both: as many arcs must go up, u < v, as down).
func gapEdgeList(g *Graph) (*EdgeList, error) {
	n, name, rowPtr, col, w := g.N, g.Name, g.RowPtr, g.Col, g.W
	el := &EdgeList{N: n, Directed: g.Directed, Name: name}
	keep := func(u, v int32) bool { return g.Directed || u <= v }
	p := par.Workers()
	kept, up, down := make([]int64, p+1), make([]int64, p), make([]int64, p)
	bounds := par.Split(n, p, func(i int) int64 { return rowPtr[i] + int64(i) })
	par.Parts(bounds, func(k, lo, hi int) {
		for u := lo; u < hi; u++ {
			for _, v := range col[rowPtr[u]:rowPtr[u+1]] {
				switch {
				case keep(int32(u), v):
					kept[k+1]++
					if int32(u) < v {
						up[k]++
					}
				default:
					down[k]++
				}
			}
		}
	})
	var ups, downs int64
	for k := range p {
		kept[k+1] += kept[k]
		ups, downs = ups+up[k], downs+down[k]
	}
	if !g.Directed && ups != downs {
		return nil, fmt.Errorf("%s: GAP serialized graph: an undirected graph's rows list each edge from both ends, but %d arcs go up (u < v) and %d down", name, ups, downs)
	}
	el.Src, el.Dst = make([]int32, kept[p]), make([]int32, kept[p])
	if w != nil {
		el.W = make([]float32, kept[p])
	}
	par.Parts(bounds, func(k, lo, hi int) {
		at := kept[k]
		for u := lo; u < hi; u++ {
			for i := rowPtr[u]; i < rowPtr[u+1]; i++ {
				if v := col[i]; keep(int32(u), v) {
					el.Src[at], el.Dst[at] = int32(u), v
					if w != nil {
						el.W[at] = w[i]
					}
					at++
				}
			}
		}
	})
	return el, nil
}

// WriteGAP writes g as GAP reads a serialized graph: a .wsg where g is
// weighted (each weight an int32: a weight that is not a whole number in
// int32's range is an error), else a .sg; a directed graph's in-rows
// follow its out-rows. GAP's vertex v is g's row v: ids of the input
// other than 0..N-1 are not kept (the format holds none).
func WriteGAP(w io.Writer, g *Graph) error {
	if g.W != nil {
		for i, x := range g.W {
			if x != float32(int32(x)) || x < math.MinInt32 || x >= math.MaxInt32 {
				u, _ := slices.BinarySearch(g.RowPtr, int64(i)+1)
				return fmt.Errorf("GAP's weights are int32s: the arc %d -> %d weighs %v", g.OriginalID(int32(u-1)), g.OriginalID(g.Col[i]), x)
			}
		}
	}
	var h [gapHeader]byte
	if g.Directed {
		h[0] = 1
	}
	binary.LittleEndian.PutUint64(h[1:9], uint64(len(g.Col)))
	binary.LittleEndian.PutUint64(h[9:17], uint64(g.N))
	if _, err := w.Write(h[:]); err != nil {
		return err
	}
	if err := writeGAPRows(w, g); err != nil || !g.Directed {
		return err
	}
	return writeGAPRows(w, g.Transpose())
}

// writeGAPRows writes g's rows: offsets, then neighbours (with
// weights, as pairs), gapChunk at a time.
func writeGAPRows(w io.Writer, g *Graph) error {
	if err := writeLE(w, g.RowPtr); err != nil {
		return err
	}
	if g.W == nil {
		return writeLE(w, g.Col)
	}
	buf := make([]int32, 0, 2*min(len(g.Col), gapChunk))
	for i, c := range g.Col {
		buf = append(buf, c, int32(g.W[i]))
		if len(buf) == cap(buf) || i == len(g.Col)-1 {
			if err := writeLE(w, buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	return nil
}

// writeLE writes xs little-endian, gapChunk at a time.
func writeLE[T int32 | int64](w io.Writer, xs []T) error {
	for len(xs) > 0 {
		k := min(len(xs), gapChunk)
		if err := binary.Write(w, binary.LittleEndian, xs[:k]); err != nil {
			return err
		}
		xs = xs[k:]
	}
	return nil
}
