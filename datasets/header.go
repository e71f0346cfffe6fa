package datasets

import (
	"bytes"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/hpgraph/hpgraph/internal/par"
)

// What hpgraph writes into the comments of its text files so that they
// read back as the graph they were written from: an edge list cannot
// otherwise say that it is undirected, weighted, or has vertices without
// edges, and Matrix Market rows cannot carry the input's own vertex ids.
const (
	elHeaderTag   = "#hpgraph edgelist"
	elIsolatedTag = "#hpgraph isolated"
	mmIDsTag      = "%hpgraph ids"
	mmIDBaseTag   = "%hpgraph idbase"
	idsPerLine    = 16
)

// idRange reports whether g's original ids are exactly the range
// lo..lo+N-1 (in any order), and lo.
func idRange(g *Graph) (int64, bool) {
	if g.IDs == nil {
		return g.IDBase, true
	}
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, id := range g.IDs {
		lo, hi = min(lo, id), max(hi, id)
	}
	// Original ids are distinct, so N of them spanning N values are all of them.
	return lo, g.N > 0 && uint64(hi-lo) == uint64(g.N-1)
}

// isolatedIDs returns, sorted, the original ids of the vertices that no
// arc enters or leaves.
func isolatedIDs(g *Graph) []int64 {
	words := make([]uint64, (g.N+63)/64)
	mark := func(v int32) {
		word, bit := &words[v/64], uint64(1)<<(v%64)
		if atomic.LoadUint64(word)&bit == 0 {
			atomic.OrUint64(word, bit)
		}
	}
	par.Blocks(g.N, func(_, lo, hi int) {
		for u := int32(lo); u < int32(hi); u++ {
			if g.Degree(u) > 0 {
				mark(u)
			}
			for _, v := range g.Neighbors(u) {
				mark(v)
			}
		}
	})
	var ids []int64
	for v := range g.N {
		if words[v/64]&(1<<(v%64)) == 0 {
			ids = append(ids, g.OriginalID(int32(v)))
		}
	}
	slices.Sort(ids)
	return ids
}

// upperTriangle counts the arcs u -> v with v >= u.
func upperTriangle(g *Graph) int64 {
	counts := make([]int64, par.Workers())
	par.Blocks(g.N, func(w, lo, hi int) {
		c := int64(0) // (a local: workers' slots share cache lines)
		for u := lo; u < hi; u++ {
			k, _ := slices.BinarySearch(g.Neighbors(int32(u)), int32(u))
			c += int64(g.Degree(int32(u)) - k)
		}
		counts[w] = c
	})
	var n int64
	for _, c := range counts {
		n += c
	}
	return n
}

// writeIDLines writes ids, idsPerLine a line, each line starting with tag.
func writeIDLines(b *strings.Builder, tag string, ids []int64) {
	for i := 0; i < len(ids); i += idsPerLine {
		b.WriteString(tag)
		for _, id := range ids[i:min(i+idsPerLine, len(ids))] {
			b.WriteByte(' ')
			b.WriteString(strconv.FormatInt(id, 10))
		}
		b.WriteByte('\n')
	}
}

// parseIDs parses the ids after a tag: non-negative integers up to
// 2^63-1, separated by whitespace.
func parseIDs(lr *lineReader, n int64, text []byte, ids []int64) ([]int64, error) {
	for i := 0; ; {
		for i < len(text) && spaces[text[i]] {
			i++
		}
		if i == len(text) {
			return ids, nil
		}
		x, end := parseUint(text, i)
		if end == i || x < 0 || (end < len(text) && !spaces[text[end]]) {
			k := end
			for k < len(text) && !spaces[text[k]] {
				k++
			}
			return nil, lr.errorf(n, "expected vertex ids (non-negative integers up to %d), found %s", int64(math.MaxInt64), found(text[i:max(k, i+1)]))
		}
		ids = append(ids, x)
		i = end
	}
}

// elHeader is what an hpgraph edge list's header declares.
type elHeader struct {
	line               int64 // of the "#hpgraph edgelist" line; 0 when there is none
	directed, weighted bool
	vertices, edges    int64
	listed             bool  // ids=listed: the ids on the edges and isolated
	lo, hi             int64 // ids=LO..HI
	isolated           []int64
}

// readELHeader reads the comment lines at the start of an edge list and
// the hpgraph header among them, leaving lr at the first data line.
func readELHeader(lr *lineReader) (*elHeader, error) {
	h := &elHeader{}
	for {
		line, n, err := lr.nextLine()
		if err == io.EOF {
			return h, nil
		}
		if err != nil {
			return nil, err
		}
		t := bytes.TrimSpace(line)
		if len(t) == 0 {
			continue
		}
		if t[0] != '#' && t[0] != '%' {
			lr.unread()
			return h, nil
		}
		switch {
		case hasTag(t, elHeaderTag):
			if h.line != 0 {
				return nil, lr.errorf(n, "expected one %q header, found another (the first is on line %d)", elHeaderTag, h.line)
			}
			if err := h.parse(lr, n, t[len(elHeaderTag):]); err != nil {
				return nil, err
			}
		case hasTag(t, elIsolatedTag):
			if h.line == 0 || !h.listed {
				return nil, lr.errorf(n, "expected %q lines only after a header %q ... ids=listed", elIsolatedTag, elHeaderTag)
			}
			if h.isolated, err = parseIDs(lr, n, t[len(elIsolatedTag):], h.isolated); err != nil {
				return nil, err
			}
		case hasTag(t, "#hpgraph"):
			return nil, lr.errorf(n, "expected %q or %q after #hpgraph, found %s", elHeaderTag, elIsolatedTag, found(t))
		}
	}
}

// hasTag reports whether line starts with tag followed by a space or
// its end.
func hasTag(line []byte, tag string) bool {
	return bytes.HasPrefix(line, []byte(tag)) && (len(line) == len(tag) || spaces[line[len(tag)]])
}

func (h *elHeader) parse(lr *lineReader, n int64, text []byte) error {
	h.line = n
	want := `expected "directed=true|false weighted=true|false vertices=N edges=M ids=LO..HI|listed"`
	seen := map[string]bool{}
	for _, tok := range strings.Fields(string(text)) {
		key, val, ok := strings.Cut(tok, "=")
		if !ok || seen[key] {
			return lr.errorf(n, "%s, found %q", want, tok)
		}
		seen[key] = true
		var err error
		switch key {
		case "directed":
			h.directed, err = strconv.ParseBool(val)
		case "weighted":
			h.weighted, err = strconv.ParseBool(val)
		case "vertices":
			h.vertices, err = strconv.ParseInt(val, 10, 64)
		case "edges":
			h.edges, err = strconv.ParseInt(val, 10, 64)
		case "ids":
			if val == "listed" {
				h.listed = true
				break
			}
			a, b, ok := strings.Cut(val, "..")
			if !ok {
				return lr.errorf(n, "%s, found %q", want, tok)
			}
			if h.lo, err = strconv.ParseInt(a, 10, 64); err == nil {
				h.hi, err = strconv.ParseInt(b, 10, 64)
			}
		default:
			return lr.errorf(n, "%s, found the unknown key %q", want, key)
		}
		if err != nil || h.vertices < 0 || h.edges < 0 || h.lo < 0 || h.hi < 0 {
			return lr.errorf(n, "%s, found %q", want, tok)
		}
	}
	for _, key := range []string{"directed", "weighted", "vertices", "edges", "ids"} {
		if !seen[key] {
			return lr.errorf(n, "%s, found no %s=", want, key)
		}
	}
	switch {
	case h.vertices == 0:
		return &ParseError{File: lr.name, Line: n, Msg: "the header declares 0 vertices; expected at least one", Err: ErrEmptyGraph}
	case h.vertices > math.MaxInt32:
		return lr.errorf(n, "the header declares %d vertices; expected at most %d", h.vertices, math.MaxInt32)
	case !h.listed && (h.hi < h.lo || h.hi-h.lo != h.vertices-1):
		return lr.errorf(n, "the header declares %d vertices with ids %d..%d; expected as many ids as vertices", h.vertices, h.lo, h.hi)
	case !h.listed && h.vertices > maxRowsPerEntry*h.edges+maxExtraRows:
		// As for Matrix Market: a header far beyond its data is not trusted
		// with an allocation (listed ids are backed by the file's bytes).
		return lr.errorf(n, "the header declares %d vertices for %d edges; expected at most %d vertices per edge plus %d",
			h.vertices, h.edges, maxRowsPerEntry, maxExtraRows)
	}
	return nil
}

// addVertices makes the sorted distinct ids extra vertices of el too,
// renumbering all vertices in increasing id order (el's are so numbered).
func addVertices(el *EdgeList, extra []int64) {
	if len(extra) == 0 {
		return
	}
	all := make([]int64, 0, el.N+len(extra))
	newID := make([]int32, el.N)
	i := 0
	for v := range el.N {
		id := el.OriginalID(int32(v))
		for i < len(extra) && extra[i] < id {
			all = append(all, extra[i])
			i++
		}
		if i < len(extra) && extra[i] == id {
			i++
		}
		newID[v] = int32(len(all))
		all = append(all, id)
	}
	all = append(all, extra[i:]...)
	for _, col := range [][]int32{el.Src, el.Dst} {
		par.Blocks(len(col), func(_, lo, hi int) {
			for k := lo; k < hi; k++ {
				col[k] = newID[col[k]]
			}
		})
	}
	el.N = len(all)
	if all[len(all)-1]-all[0] == int64(len(all)-1) {
		el.IDs, el.IDBase = nil, all[0]
	} else {
		el.IDs, el.IDBase = all, 0
	}
}
