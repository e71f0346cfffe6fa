package datasets

import (
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/hpgraph/hpgraph/internal/par"
)

// ReadEdgeList reads a SNAP-style edge list: one edge "u v" or "u v w" per
// line, fields separated by whitespace or a comma; lines starting with '#'
// or '%' are comments and blank lines are skipped. Ids are non-negative
// integers up to 2^63-1, in any order and with gaps; the weight column is
// optional but must be on every line or on none.
//
// The list is directed, as SNAP lists are (Options.Symmetrize makes it
// undirected). Vertices are the distinct ids, numbered 0..N-1 in increasing
// id order, so the result does not depend on the order of the lines;
// IDs[v] is the original id of v. When the ids are exactly the range
// lo..hi, IDs is nil and IDBase is lo (0 for the usual 0-based dense ids).
// A vertex without edges cannot appear in an edge list, unless the list
// starts with the header WriteEdgeList writes ("#hpgraph edgelist ..."
// among the first comment lines): the header says whether the list is
// directed and weighted, and which ids are vertices, isolated ones
// included, and the lines must agree with it.
//
// Errors name the file (name) and line, and say what was expected and what
// was found.
func ReadEdgeList(r io.Reader, name string) (*EdgeList, error) {
	return readEdgeList(source{r: r, name: name, size: sizeOf(r)})
}

func readEdgeList(src source) (*EdgeList, error) {
	lr := newLineReader(src)
	defer lr.close()
	f := &entryFormat{
		sep: commas, comma: true, comment: [2]byte{'#', '%'},
		minID: 0, maxID: math.MaxInt64,
		ids: fmt.Sprintf("non-negative integer ids up to %d", int64(math.MaxInt64)),
	}
	h, err := readELHeader(lr)
	if err != nil {
		return nil, err
	}
	if h.line != 0 {
		return readHeaderedEdgeList(lr, f, h, src)
	}
	first, n, err := lr.nextData(f)
	if err == io.EOF {
		msg := `expected edges "u v [w]", found only comments and blank lines`
		if lr.delivered == 0 {
			msg = `expected edges "u v [w]", found an empty file`
		}
		return nil, &ParseError{File: src.name, Line: lr.lastLine(), Msg: msg, Err: ErrEmptyGraph}
	}
	if err != nil {
		return nil, err
	}
	if f.countFields(first) >= 3 {
		f.value = realValue
		f.want = fmt.Sprintf(`"u v w": 2 non-negative integer ids and a weight, like the first edge (line %d)`, n)
	} else {
		f.want = fmt.Sprintf(`"u v": 2 non-negative integer ids and no weight, like the first edge (line %d)`, n)
	}
	e, err := parseEntries(lr, f, entryLimit{n: -1}, src.size)
	if err != nil {
		return nil, err
	}
	el := &EdgeList{Directed: true, Name: src.name}
	if f.value != noValue {
		el.W = e.w
	}
	if err := compactIDs(e, el); err != nil {
		return nil, err
	}
	return el, nil
}

// readHeaderedEdgeList reads the edges of a list with an hpgraph header
// (WriteEdgeList), which says what the lines alone cannot.
func readHeaderedEdgeList(lr *lineReader, f *entryFormat, h *elHeader, src source) (*EdgeList, error) {
	if h.weighted {
		f.value = realValue
		f.want = fmt.Sprintf(`"u v w": 2 ids and a weight, as the header on line %d declares`, h.line)
	} else {
		f.want = fmt.Sprintf(`"u v": 2 ids and no weight, as the header on line %d declares`, h.line)
	}
	if !h.listed {
		f.minID, f.maxID = h.lo, h.hi
		f.ids = fmt.Sprintf("ids in %d..%d, as the header on line %d declares", h.lo, h.hi, h.line)
	}
	limit := entryLimit{n: h.edges, want: fmt.Sprintf("the end of the file after the %d edges the header on line %d declares", h.edges, h.line)}
	e, err := parseEntries(lr, f, limit, src.size)
	if err != nil {
		return nil, err
	}
	if int64(e.n) < h.edges {
		return nil, lr.errorf(lr.lastLine(), "expected %d edges as the header on line %d declares, found the end of the file after %d", h.edges, h.line, e.n)
	}
	el := &EdgeList{Directed: h.directed, Name: src.name}
	if h.weighted {
		el.W = e.w
		if el.W == nil {
			el.W = []float32{}
		}
	}
	if !h.listed {
		el.N, el.Src, el.Dst, el.IDBase = int(h.vertices), e.src.narrow, e.dst.narrow, h.lo
		return el, nil
	}
	var isolated []int64
	if len(h.isolated) > 0 {
		isolated = sortedUnique(h.isolated)
	}
	if e.n > 0 {
		if err := compactIDs(e, el); err != nil {
			return nil, err
		}
	}
	if int64(el.N)+int64(len(isolated)) != h.vertices {
		return nil, lr.errorf(h.line, "the header declares %d vertices, found %d ids on the edges and %d isolated", h.vertices, el.N, len(isolated))
	}
	addVertices(el, isolated)
	if int64(el.N) != h.vertices {
		return nil, lr.errorf(h.line, "the header declares %d vertices, found %d: an id listed as isolated is on an edge", h.vertices, el.N)
	}
	return el, nil
}

// compactIDs numbers the distinct ids of e 0..n-1 in increasing order and
// sets el's N, Src, Dst, IDs and IDBase. Ids that span a range not much
// larger than the list are ranked with a bitmap over the range (linear
// time); others are sorted.
func compactIDs(e *entries, el *EdgeList) error {
	span := uint64(e.maxID-e.minID) + 1
	var n int
	if span <= 64*uint64(e.n)+1<<16 {
		n = compactRange(e, el, span)
	} else {
		n = compactSorted(e, el)
	}
	if n > math.MaxInt32 {
		return fmt.Errorf("%s: %d distinct vertex ids, at most %d are supported", el.Name, n, math.MaxInt32)
	}
	el.N = n
	return nil
}

// compactRange ranks ids with a bitmap of the range [minID, maxID].
func compactRange(e *entries, el *EdgeList, span uint64) int {
	lo := e.minID
	words := make([]uint64, (span+63)/64)
	forColumns(e, func(c *idColumn) {
		if c.wide != nil {
			markIDs(c.wide, lo, words)
		} else {
			markIDs(c.narrow, lo, words)
		}
	})
	rank := make([]int64, len(words))
	var n int64
	for k, w := range words {
		rank[k] = n
		n += int64(bits.OnesCount64(w))
	}
	if n > math.MaxInt32 {
		return int(n)
	}
	if uint64(n) == span {
		// Every id in the range is used: vertex v is id v + lo.
		el.IDBase = lo
		rank = nil
	} else {
		el.IDs = make([]int64, 0, n)
		for k, w := range words {
			for ; w != 0; w &= w - 1 {
				el.IDs = append(el.IDs, lo+int64(k*64+bits.TrailingZeros64(w)))
			}
		}
	}
	el.Src, el.Dst = rankColumn(&e.src, lo, words, rank), rankColumn(&e.dst, lo, words, rank)
	return int(n)
}

func forColumns(e *entries, fn func(c *idColumn)) {
	fn(&e.src)
	fn(&e.dst)
}

// markIDs sets the bit of every id (minus lo) in words.
func markIDs[T int32 | int64](ids []T, lo int64, words []uint64) {
	par.Blocks(len(ids), func(_, a, b int) {
		for _, x := range ids[a:b] {
			k := uint64(int64(x) - lo)
			word, bit := &words[k/64], uint64(1)<<(k%64)
			// Most ids repeat; reading first avoids a locked write.
			if atomic.LoadUint64(word)&bit == 0 {
				atomic.OrUint64(word, bit)
			}
		}
	})
}

// rankColumn replaces every id by its rank among the marked ids (by id - lo
// when rank is nil: the dense case), in place for an int32 column.
func rankColumn(c *idColumn, lo int64, words []uint64, rank []int64) []int32 {
	if c.wide == nil {
		if rank == nil && lo == 0 {
			return c.narrow
		}
		return rankIDs(c.narrow, c.narrow, lo, words, rank)
	}
	out := rankIDs(c.wide, make([]int32, len(c.wide)), lo, words, rank)
	c.wide = nil
	return out
}

func rankIDs[T int32 | int64](ids []T, out []int32, lo int64, words []uint64, rank []int64) []int32 {
	par.Blocks(len(ids), func(_, a, b int) {
		for i := a; i < b; i++ {
			k := uint64(int64(ids[i]) - lo)
			if rank == nil {
				out[i] = int32(k)
				continue
			}
			out[i] = int32(rank[k/64] + int64(bits.OnesCount64(words[k/64]&(1<<(k%64)-1))))
		}
	})
	return out
}

// compactSorted ranks ids by sorting the distinct ids and searching them.
func compactSorted(e *entries, el *EdgeList) int {
	all := make([]int64, 0, 2*e.n)
	forColumns(e, func(c *idColumn) {
		if c.wide != nil {
			all = append(all, c.wide...)
		} else {
			for _, x := range c.narrow {
				all = append(all, int64(x))
			}
		}
	})
	el.IDs = sortedUnique(all)
	if len(el.IDs) > math.MaxInt32 {
		return len(el.IDs)
	}
	search := func(c *idColumn) []int32 {
		out := make([]int32, e.n)
		par.Blocks(e.n, func(_, a, b int) {
			for i := a; i < b; i++ {
				x := c.at(i)
				k, _ := slices.BinarySearch(el.IDs, x)
				out[i] = int32(k)
			}
		})
		return out
	}
	el.Src = search(&e.src)
	e.src = idColumn{}
	el.Dst = search(&e.dst)
	return len(el.IDs)
}

// sortedUnique sorts a (in place) and returns its distinct values: each
// core sorts and deduplicates a part, then parts are merged pairwise.
func sortedUnique(a []int64) []int64 {
	p := par.Workers()
	bounds := make([]int, p+1)
	for k := range bounds {
		bounds[k] = len(a) * k / p
	}
	runs := make([][]int64, p)
	par.Parts(bounds, func(w, lo, hi int) {
		s := a[lo:hi]
		slices.Sort(s)
		runs[w] = slices.Compact(s)
	})
	for len(runs) > 1 {
		next := make([][]int64, (len(runs)+1)/2)
		pairs := make([]int, len(next)+1)
		for k := range pairs {
			pairs[k] = k
		}
		par.Parts(pairs, func(k, _, _ int) {
			if 2*k+1 == len(runs) {
				next[k] = runs[2*k]
				return
			}
			next[k] = mergeUnique(runs[2*k], runs[2*k+1])
		})
		runs = next
	}
	return slices.Clip(runs[0])
}

func mergeUnique(a, b []int64) []int64 {
	out := make([]int64, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case a[i] > b[j]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// WriteEdgeList writes g as an edge list "u v [w]" with the vertices'
// original ids (g.OriginalID): every arc of a directed graph, each edge of
// an undirected graph once (u <= v). Two '#' comment lines come first: one
// describing the graph for people, and the header that ReadEdgeList
// honours, so that the list reads back as the same graph:
//
//	#hpgraph edgelist directed=false weighted=true vertices=N edges=M ids=LO..HI
//
// ids=LO..HI says that the vertices are exactly the ids LO..HI (isolated
// ones included); ids=listed that they are the ids on the edges and those
// on the "#hpgraph isolated ID..." lines that follow. Weights are written
// so that ReadEdgeList reads back exactly the same float32.
func WriteEdgeList(w io.Writer, g *Graph) error {
	kind := "directed"
	if !g.Directed {
		kind = "undirected (each edge once)"
	}
	lines := g.NNZ()
	if !g.Directed {
		lines = upperTriangle(g)
	}
	var hdr strings.Builder
	fmt.Fprintf(&hdr, "# %s: %s graph, %d vertices, %d edges, written by hpgraph\n", oneLine(g.Name), kind, g.N, g.Edges())
	fmt.Fprintf(&hdr, "%s directed=%v weighted=%v vertices=%d edges=%d ", elHeaderTag, g.Directed, g.W != nil, g.N, lines)
	if lo, ok := idRange(g); ok {
		fmt.Fprintf(&hdr, "ids=%d..%d\n", lo, lo+int64(g.N)-1)
	} else {
		hdr.WriteString("ids=listed\n")
		writeIDLines(&hdr, elIsolatedTag, isolatedIDs(g))
	}
	if _, err := io.WriteString(w, hdr.String()); err != nil {
		return err
	}
	return writeEdgeRows(w, g)
}

// writeEdgeRows writes g's arcs as "src dst [weight]" lines in original
// ids: every arc of a directed graph, each edge of an undirected graph
// once (from its smaller index).
func writeEdgeRows(w io.Writer, g *Graph) error {
	return writeRows(w, g, func(dst []byte, u int32) []byte {
		lo := g.RowPtr[u]
		if !g.Directed {
			k, _ := slices.BinarySearch(g.Neighbors(u), u)
			lo += int64(k)
		}
		for i := lo; i < g.RowPtr[u+1]; i++ {
			dst = appendInt(dst, g.OriginalID(u), ' ')
			if g.W == nil {
				dst = appendInt(dst, g.OriginalID(g.Col[i]), '\n')
				continue
			}
			dst = appendInt(dst, g.OriginalID(g.Col[i]), ' ')
			dst = append(appendWeight(dst, g.W[i]), '\n')
		}
		return dst
	})
}
