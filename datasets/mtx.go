package datasets

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/hpgraph/hpgraph/internal/par"
)

// ReadMatrixMarket reads a Matrix Market coordinate file
// (https://math.nist.gov/MatrixMarket/formats.html) as an edge list: entry
// (i, j) is the arc i -> j, indices are 1-based (IDBase 1) and N is the
// declared size. The comments WriteMatrixMarket writes for vertex ids the
// format cannot hold are honoured: "%hpgraph idbase B" makes row 1 id B,
// "%hpgraph ids ID..." lines give every row's id (IDs).
//
// The banner "%%MatrixMarket matrix coordinate <field> <symmetry>" is read
// case-insensitively. Fields: pattern (no weights), integer, real, double
// (as real); complex is rejected. Symmetries: general gives a directed
// list; symmetric and hermitian give an undirected one (Build stores both
// directions). Skew-symmetric also gives an undirected list with each value
// as stored: a graph has one weight per edge, so the mirrored arc gets the
// same weight, not its negation; skew-symmetric pattern files are rejected,
// having no signs to mirror. Every other line starting with '%' (such as
// "%%GraphBLAS type bool") is a comment, and blank lines are skipped
// anywhere.
//
// A file without a banner (Gunrock's test graphs) starts with its size
// line and is read as a general matrix: pattern if its first entry has two
// fields, real if it has a value.
//
// Errors name the file (name) and line, and say what was expected and what
// was found. Declared sizes are checked against the entries actually
// present, memory grows with the data read, never with the header's
// claims, and a size line declaring more than 4 rows per entry (plus 2^20)
// is rejected, since building it would allocate for rows the file does
// not back.
func ReadMatrixMarket(r io.Reader, name string) (*EdgeList, error) {
	return readMatrixMarket(source{r: r, name: name, size: sizeOf(r)})
}

type mmHeader struct {
	banner              bool
	field               string // pattern, integer or real
	symmetry            string // general, symmetric or skew-symmetric
	rows, cols, entries int64
	sizeLine            int64
	// The vertices' own ids, from hpgraph's comments: idBase is the id of
	// row 1 (1 without the comment); ids the id of every row.
	idBase   int64
	ids      []int64
	idsLine  int64 // the first "%hpgraph ids" line
	baseLine int64
}

func readMatrixMarket(src source) (*EdgeList, error) {
	lr := newLineReader(src)
	defer lr.close()
	h, err := readMMHeader(lr)
	if err != nil {
		return nil, err
	}
	f := &entryFormat{
		sep: spaces, comment: [2]byte{'%', '%'},
		minID: 1, maxID: h.rows,
		ids: fmt.Sprintf("row and column indices in 1..%d", h.rows),
	}
	if !h.banner {
		line, n, err := lr.nextData(f)
		switch {
		case err == nil && f.countFields(line) >= 3:
			h.field = "real"
			f.want = fmt.Sprintf("2 integers and a value, like the first entry (line %d)", n)
		case err == nil || err == io.EOF:
			f.want = fmt.Sprintf("2 integers and no value, like the first entry (line %d)", n)
		default:
			return nil, err
		}
	}
	switch h.field {
	case "pattern":
		f.value = noValue
	case "integer":
		f.value = intValue
	default:
		f.value = realValue
	}
	if f.want == "" {
		f.want = map[string]string{
			"pattern": "2 integers and no value for a pattern matrix",
			"integer": "2 integers and an integer value for an integer matrix",
			"real":    "2 integers and a real value for a real matrix",
		}[h.field]
	}
	limit := entryLimit{n: h.entries, want: fmt.Sprintf("the end of the file after the %d entries declared on line %d", h.entries, h.sizeLine)}
	e, err := parseEntries(lr, f, limit, src.size)
	if err != nil {
		return nil, err
	}
	if int64(e.n) < h.entries {
		return nil, lr.errorf(lr.lastLine(), "expected %d entries as declared on line %d, found the end of the file after %d", h.entries, h.sizeLine, e.n)
	}
	el := &EdgeList{
		N: int(h.rows), Src: e.src.narrow, Dst: e.dst.narrow,
		Directed: h.symmetry == "general", IDs: h.ids, IDBase: h.idBase, Name: src.name,
	}
	if h.ids != nil {
		el.IDBase = 0
	}
	if f.value != noValue {
		el.W = e.w
		if el.W == nil {
			el.W = []float32{}
		}
	}
	return el, nil
}

// readMMHeader reads the banner (if any), comments and the size line.
func readMMHeader(lr *lineReader) (*mmHeader, error) {
	h := &mmHeader{field: "pattern", symmetry: "general", idBase: 1}
	first := true
	for {
		line, n, err := lr.nextLine()
		if err == io.EOF {
			if lr.delivered == 0 {
				return nil, lr.errorf(1, `expected a %%%%MatrixMarket banner or a size line "rows cols entries", found an empty file`)
			}
			return nil, lr.errorf(lr.lastLine(), `expected a size line "rows cols entries", found the end of the file`)
		}
		if err != nil {
			return nil, err
		}
		t := bytes.TrimSpace(line)
		if len(t) == 0 {
			continue
		}
		if first && bytes.HasPrefix(t, []byte("%%")) {
			// A first line starting with %% must be a valid banner: a
			// mistyped one must not silently turn a symmetric matrix into a
			// banner-less general one.
			first = false
			if err := h.parseBanner(lr, string(t), n); err != nil {
				return nil, err
			}
			continue
		}
		first = false
		if t[0] == '%' {
			if err := h.parseIDComment(lr, t, n); err != nil {
				return nil, err
			}
			continue
		}
		if err := h.parseSize(lr, t, n); err != nil {
			return nil, err
		}
		return h, h.checkIDs(lr)
	}
}

func (h *mmHeader) parseBanner(lr *lineReader, t string, n int64) error {
	tok := strings.Fields(t)
	if len(tok) != 5 || !strings.EqualFold(tok[0], "%%MatrixMarket") {
		return lr.errorf(n, `expected a banner "%%%%MatrixMarket matrix coordinate <field> <symmetry>", found %s`, found([]byte(t)))
	}
	object, format, field, symmetry := strings.ToLower(tok[1]), strings.ToLower(tok[2]), strings.ToLower(tok[3]), strings.ToLower(tok[4])
	h.banner = true
	if object != "matrix" {
		return lr.errorf(n, "expected object \"matrix\" in the banner, found %q", tok[1])
	}
	switch format {
	case "coordinate":
	case "array":
		return lr.errorf(n, "expected format \"coordinate\" in the banner, found %q: dense array files are not supported", tok[2])
	default:
		return lr.errorf(n, "expected format \"coordinate\" in the banner, found %q", tok[2])
	}
	switch field {
	case "pattern", "integer", "real":
		h.field = field
	case "double":
		h.field = "real"
	case "complex":
		return lr.errorf(n, "expected field pattern, integer or real in the banner, found %q: complex matrices are not supported", tok[3])
	default:
		return lr.errorf(n, "expected field pattern, integer, real or double in the banner, found %q", tok[3])
	}
	switch symmetry {
	case "general", "symmetric":
		h.symmetry = symmetry
	case "hermitian":
		// Hermitian means symmetric for anything that is not complex.
		h.symmetry = "symmetric"
	case "skew-symmetric":
		if h.field == "pattern" {
			return lr.errorf(n, "expected field integer or real for a skew-symmetric matrix, found %q: a pattern has no signs to mirror", tok[3])
		}
		h.symmetry = symmetry
	default:
		return lr.errorf(n, "expected symmetry general, symmetric, skew-symmetric or hermitian in the banner, found %q", tok[4])
	}
	return nil
}

func (h *mmHeader) parseSize(lr *lineReader, t []byte, n int64) error {
	tok := bytes.Fields(t)
	ok := len(tok) == 3
	var v [3]int64
	for k := 0; ok && k < 3; k++ {
		var end int
		v[k], end = parseUint(tok[k], 0)
		ok = end == len(tok[k]) && v[k] >= 0
	}
	if !ok {
		return lr.errorf(n, `expected a size line "rows cols entries" (3 non-negative integers), found %s`, found(t))
	}
	h.rows, h.cols, h.entries, h.sizeLine = v[0], v[1], v[2], n
	switch {
	case h.rows != h.cols:
		return lr.errorf(n, "matrix is %d x %d; a graph needs a square matrix", h.rows, h.cols)
	case h.rows == 0:
		return &ParseError{File: lr.name, Line: n, Msg: "matrix is 0 x 0; expected at least one vertex", Err: ErrEmptyGraph}
	case h.rows > math.MaxInt32:
		return lr.errorf(n, "matrix is %d x %d; expected at most %d vertices", h.rows, h.cols, math.MaxInt32)
	case h.rows > maxRowsPerEntry*h.entries+maxExtraRows:
		return lr.errorf(n, "matrix is %d x %d with %d entries; expected at most %d rows per entry plus %d",
			h.rows, h.cols, h.entries, maxRowsPerEntry, maxExtraRows)
	}
	return nil
}

// parseIDComment reads hpgraph's id comments; other comments are skipped.
func (h *mmHeader) parseIDComment(lr *lineReader, t []byte, n int64) error {
	switch {
	case hasTag(t, mmIDsTag):
		if h.baseLine != 0 {
			return lr.errorf(n, "expected either %q (line %d) or %q lines, found both", mmIDBaseTag, h.baseLine, mmIDsTag)
		}
		if h.idsLine == 0 {
			h.idsLine = n
			h.ids = []int64{}
		}
		var err error
		h.ids, err = parseIDs(lr, n, t[len(mmIDsTag):], h.ids)
		return err
	case hasTag(t, mmIDBaseTag):
		tok := bytes.Fields(t[len(mmIDBaseTag):])
		var end int
		if len(tok) == 1 {
			h.idBase, end = parseUint(tok[0], 0)
		}
		if len(tok) != 1 || end != len(tok[0]) || h.idBase < 0 {
			return lr.errorf(n, "expected %q and the id of row 1 (a non-negative integer), found %s", mmIDBaseTag, found(t))
		}
		if h.baseLine != 0 || h.idsLine != 0 {
			return lr.errorf(n, "expected one %q line and no %q lines, found another", mmIDBaseTag, mmIDsTag)
		}
		h.baseLine = n
	}
	return nil
}

// checkIDs checks the ids of hpgraph's comments against the size line:
// one distinct id per row.
func (h *mmHeader) checkIDs(lr *lineReader) error {
	if h.ids != nil {
		if int64(len(h.ids)) != h.rows {
			return lr.errorf(h.idsLine, "expected %d ids on the %q lines, one per row (line %d), found %d", h.rows, mmIDsTag, h.sizeLine, len(h.ids))
		}
		sorted := slices.Clone(h.ids)
		slices.Sort(sorted)
		for i := 1; i < len(sorted); i++ {
			if sorted[i] == sorted[i-1] {
				return lr.errorf(h.idsLine, "expected distinct ids on the %q lines, found %d twice", mmIDsTag, sorted[i])
			}
		}
	}
	if h.idBase > math.MaxInt64-h.rows {
		return lr.errorf(h.baseLine, "expected ids up to %d, found row 1 at id %d for %d rows", int64(math.MaxInt64), h.idBase, h.rows)
	}
	return nil
}

// A graph may have isolated vertices, but a size line declaring far more
// rows than its entries can touch is a header far beyond its data, and
// Build would allocate for every row (8 GB for a 23-byte file declaring
// 10^9). Every real graph is well inside this bound; Kronecker graphs,
// with their many isolated vertices, have about one row per 16 entries.
const (
	maxRowsPerEntry = 4
	maxExtraRows    = 1 << 20
)

// WriteMatrixMarket writes g as a Matrix Market coordinate file: general
// for a directed graph (every arc), symmetric for an undirected one (the
// lower triangle: arcs u -> v with v <= u); real when g has weights,
// pattern otherwise. Row/column i is vertex i-1; ids other than i, which
// the format cannot hold, go into comments that ReadMatrixMarket honours
// ("%hpgraph idbase B" or "%hpgraph ids ID..."). Weights are written so
// that ReadMatrixMarket reads back exactly the same float32.
func WriteMatrixMarket(w io.Writer, g *Graph) error {
	field, symmetry, entries := "pattern", "general", g.NNZ()
	if g.W != nil {
		field = "real"
	}
	if !g.Directed {
		symmetry, entries = "symmetric", lowerTriangle(g)
	}
	var hdr strings.Builder
	fmt.Fprintf(&hdr, "%%%%MatrixMarket matrix coordinate %s %s\n", field, symmetry)
	fmt.Fprintf(&hdr, "%% %s, written by hpgraph\n", oneLine(g.Name))
	switch {
	case g.IDs != nil:
		hdr.WriteString("% the vertices' own ids, row by row (row i is vertex i-1):\n")
		writeIDLines(&hdr, mmIDsTag, g.IDs)
	case g.IDBase != 1:
		fmt.Fprintf(&hdr, "%s %d\n", mmIDBaseTag, g.IDBase)
	}
	fmt.Fprintf(&hdr, "%d %d %d\n", g.N, g.N, entries)
	if _, err := io.WriteString(w, hdr.String()); err != nil {
		return err
	}
	return writeRows(w, g, func(dst []byte, u int32) []byte {
		for i := g.RowPtr[u]; i < g.RowPtr[u+1]; i++ {
			v := g.Col[i]
			if !g.Directed && v > u {
				break
			}
			dst = appendInt(dst, int64(u)+1, ' ')
			if g.W == nil {
				dst = appendInt(dst, int64(v)+1, '\n')
				continue
			}
			dst = appendInt(dst, int64(v)+1, ' ')
			dst = append(appendWeight(dst, g.W[i]), '\n')
		}
		return dst
	})
}

// lowerTriangle counts the arcs u -> v with v <= u.
func lowerTriangle(g *Graph) int64 {
	counts := make([]int64, par.Workers())
	par.Blocks(g.N, func(w, lo, hi int) {
		c := int64(0) // (a local: workers' slots share cache lines)
		for u := lo; u < hi; u++ {
			k, _ := slices.BinarySearch(g.Neighbors(int32(u)), int32(u)+1)
			c += int64(k)
		}
		counts[w] = c
	})
	var n int64
	for _, c := range counts {
		n += c
	}
	return n
}

func oneLine(s string) string { return strings.NewReplacer("\n", " ", "\r", " ").Replace(s) }
