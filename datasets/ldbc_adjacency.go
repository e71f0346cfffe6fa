package datasets

import (
	"bytes"
	"cmp"
	"io"
	"math"
	"slices"
)

// ReadLDBCAdjacency reads an LDBC adjacency list: one line per vertex,
// its id and then the ids of its out-neighbours ("v n1 n2 ..."; every
// vertex has a line, isolated ones too). An undirected list names each
// edge from both ends, and each must: an edge listed from one end only is
// an error. Vertices are numbered in increasing id order; IDs maps them
// back (nil, with IDBase, when the ids are a range).
func ReadLDBCAdjacency(r io.Reader, name string, directed bool) (*EdgeList, error) {
	return readLDBCAdjacency(source{r: r, name: name, size: sizeOf(r)}, directed)
}

func readLDBCAdjacency(src source, directed bool) (*EdgeList, error) {
	lr := newLineReader(src)
	defer lr.close()
	var heads, headLine []int64
	var from []int32 // the line (index into heads) of every neighbour
	var to []int64
	err := lr.eachContent(func(t []byte, n int64) error {
		if len(heads) == math.MaxInt32 {
			return lr.errorf(n, "expected at most %d vertices", math.MaxInt32)
		}
		for k, tok := range bytes.Fields(t) {
			x, end := parseUint(tok, 0)
			if end != len(tok) || x < 0 {
				return lr.errorf(n, `expected "v n1 n2 ...": non-negative integer ids up to %d, found %s`, int64(math.MaxInt64), found(tok))
			}
			if k == 0 {
				heads, headLine = append(heads, x), append(headLine, n)
			} else {
				from, to = append(from, int32(len(heads)-1)), append(to, x)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(heads) == 0 {
		return nil, &ParseError{File: src.name, Line: lr.lastLine(), Msg: `expected lines "v n1 n2 ...", found none`, Err: ErrEmptyGraph}
	}
	// order[i] is the line of the i-th smallest vertex; rank its inverse.
	order := make([]int32, len(heads))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(heads[a], heads[b]) })
	ids := make([]int64, len(heads))
	rank := make([]int32, len(heads))
	for i, l := range order {
		ids[i], rank[l] = heads[l], int32(i)
		if i > 0 && ids[i] == ids[i-1] {
			a, b := min(headLine[order[i-1]], headLine[l]), max(headLine[order[i-1]], headLine[l])
			return nil, lr.errorf(b, "expected one line per vertex, found vertex %d again (first on line %d)", ids[i], a)
		}
	}
	el := &EdgeList{N: len(ids), Directed: directed, Name: src.name, Src: make([]int32, 0, len(to)), Dst: make([]int32, 0, len(to))}
	for k, x := range to {
		i, ok := slices.BinarySearch(ids, x)
		if !ok {
			return nil, lr.errorf(headLine[from[k]], "expected neighbours that have a line of their own, found %d, which has none", x)
		}
		el.Src, el.Dst = append(el.Src, rank[from[k]]), append(el.Dst, int32(i))
	}
	if ids[len(ids)-1]-ids[0] == int64(len(ids)-1) {
		el.IDBase = ids[0]
	} else {
		el.IDs = ids
	}
	if !directed {
		if err := halveSymmetric(el, func(v int32) int64 { return headLine[order[v]] }, lr); err != nil {
			return nil, err
		}
	}
	return el, nil
}

// halveSymmetric keeps each edge of an undirected adjacency list once
// (u <= v), after checking that every edge u-v with u != v is listed from
// both ends as often.
func halveSymmetric(el *EdgeList, lineOf func(v int32) int64, lr *lineReader) error {
	var down, up []uint64 // u < v listed by u; listed by v
	for i := range el.Src {
		u, v := uint64(el.Src[i]), uint64(el.Dst[i])
		switch {
		case u < v:
			down = append(down, u<<32|v)
		case u > v:
			up = append(up, v<<32|u)
		}
	}
	slices.Sort(down)
	slices.Sort(up)
	for i := 0; i < max(len(down), len(up)); i++ {
		if i < len(down) && i < len(up) && down[i] == up[i] {
			continue
		}
		// The smaller key at the first difference is the one-sided edge.
		key, lister := uint64(0), true
		switch {
		case i >= len(up) || (i < len(down) && down[i] < up[i]):
			key = down[i]
		default:
			key, lister = up[i], false
		}
		a, b := int32(key>>32), int32(key&math.MaxUint32)
		if !lister {
			a, b = b, a
		}
		return lr.errorf(lineOf(a), "an undirected list names each edge from both ends: vertex %d lists %d, but the line of %d (line %d) does not list %d as often",
			el.OriginalID(a), el.OriginalID(b), el.OriginalID(b), lineOf(b), el.OriginalID(a))
	}
	k := 0
	for i := range el.Src {
		if el.Src[i] <= el.Dst[i] {
			el.Src[k], el.Dst[k] = el.Src[i], el.Dst[i]
			k++
		}
	}
	el.Src, el.Dst = el.Src[:k], el.Dst[:k]
	return nil
}
