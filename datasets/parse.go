package datasets

import (
	"bytes"
	"fmt"
	"math"
)

// Text formats (Matrix Market, edge lists) share one reader: a goroutine
// reads the input in large blocks that end at a line boundary, the block is
// split at newlines into one chunk per core, the chunks are parsed
// concurrently straight into the result arrays, and their results are then
// checked in input order. Chunks count their lines, so every error carries
// the exact line number even though no chunk knows where it starts.

// ParseError reports malformed input: the file, the line, and what was
// expected against what was found.
type ParseError struct {
	File string
	Line int64 // 1-based
	Msg  string
	Err  error // the underlying cause (a read error, ErrEmptyGraph), or nil
}

func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

func (e *ParseError) Unwrap() error { return e.Err }

// Entry lines.

type valueKind uint8

const (
	noValue valueKind = iota
	intValue
	realValue
)

// problem classifies one entry line.
type problem uint8

const (
	entryOK problem = iota
	entrySkip
	badSyntax
	badID
	badNonFinite
	badTooLarge
	// needWide is an id that does not fit the int32 column being filled:
	// the caller widens the columns and parses the block again.
	needWide
)

var (
	spaces = sepTable("")
	commas = sepTable(",")
)

func sepTable(extra string) *[256]bool {
	var t [256]bool
	for _, c := range " \t\r\v\f" + extra {
		t[c] = true
	}
	return &t
}

// entryFormat describes the entry lines of a text format: "u v [value]".
type entryFormat struct {
	sep          *[256]bool // field separators
	comma        bool       // fields may be separated by one ','
	comment      [2]byte    // bytes that start a comment line
	minID, maxID int64      // inclusive id range; minID is subtracted when storing
	value        valueKind
	want         string // what an entry line should hold, for messages
	ids          string // the valid ids, for messages
}

func (f *entryFormat) skippable(line []byte) bool {
	i := 0
	for i < len(line) && spaces[line[i]] {
		i++
	}
	return i == len(line) || line[i] == f.comment[0] || line[i] == f.comment[1]
}

// skipSep skips whitespace and, where allowed, one comma.
func (f *entryFormat) skipSep(b []byte, i int) int {
	for i < len(b) && spaces[b[i]] {
		i++
	}
	if f.comma && i < len(b) && b[i] == ',' {
		i++
		for i < len(b) && spaces[b[i]] {
			i++
		}
	}
	return i
}

// countFields counts the fields of a data line.
func (f *entryFormat) countFields(line []byte) int {
	n := 0
	for i := f.skipSep(line, 0); i < len(line); i = f.skipSep(line, i) {
		n++
		for i < len(line) && !f.sep[line[i]] {
			i++
		}
	}
	return n
}

// entry parses the line that starts at b[i] and returns the index of the
// next line. It is the hot path: one pass over the bytes, no allocation,
// strconv only for the rare value that the fast float path declines.
func (f *entryFormat) entry(b []byte, i int) (u, v int64, w float32, next int, p problem) {
	for i < len(b) && spaces[b[i]] {
		i++
	}
	if i == len(b) {
		return 0, 0, 0, i, entrySkip
	}
	if c := b[i]; c == '\n' {
		return 0, 0, 0, i + 1, entrySkip
	} else if c == f.comment[0] || c == f.comment[1] {
		if k := bytes.IndexByte(b[i:], '\n'); k >= 0 {
			return 0, 0, 0, i + k + 1, entrySkip
		}
		return 0, 0, 0, len(b), entrySkip
	}
	u, j := parseUint(b, i)
	if j == i {
		return 0, 0, 0, 0, badSyntax
	}
	if i = f.skipSep(b, j); i == j || i == len(b) || b[i] == '\n' {
		return 0, 0, 0, 0, badSyntax
	}
	v, j = parseUint(b, i)
	if j == i {
		return 0, 0, 0, 0, badSyntax
	}
	if i = f.skipSep(b, j); i < len(b) && b[i] != '\n' {
		if i == j || f.value == noValue {
			return 0, 0, 0, 0, badSyntax
		}
		k := i
		for k < len(b) && !f.sep[b[k]] && b[k] != '\n' {
			k++
		}
		tok := b[i:k]
		if i = f.skipSep(b, k); i < len(b) && b[i] != '\n' {
			return 0, 0, 0, 0, badSyntax
		}
		if w, p = parseValue(tok, f.value); p != entryOK {
			return 0, 0, 0, 0, p
		}
	} else if f.value != noValue {
		return 0, 0, 0, 0, badSyntax
	}
	if u < f.minID || u > f.maxID || v < f.minID || v > f.maxID {
		return 0, 0, 0, 0, badID
	}
	return u, v, w, min(i+1, len(b)), entryOK
}

func (f *entryFormat) message(p problem, text string) string {
	var want string
	switch p {
	case badID:
		want = f.ids
	case badNonFinite:
		want = "a finite value"
	case badTooLarge:
		want = "a value within the float32 range (magnitude at most 3.4e38)"
	default:
		want = f.want
	}
	return "expected " + want + ", found " + text
}

// Parallel parsing.

// chunkResult is what one goroutine made of a piece of a block.
type chunkResult struct {
	n            int   // entries written
	lines        int64 // lines read, the failing or stopping one included
	minID, maxID int64
	prob         problem // entryOK, or what is wrong with the last line
	text         string  // the failing (or stopping) line, quoted
}

// parseInto parses the lines of b into src, dst and w (ids minus f.minID,
// at most limit), which have room for one entry per line, stopping at the
// first bad line or after stopAfter entries. It works on locals only: the
// results of concurrent goroutines sit next to each other, and updating
// them per entry would bounce cache lines between cores.
func parseInto[T int32 | int64](f *entryFormat, b []byte, src, dst []T, w []float32, limit int64, stopAfter int) chunkResult {
	var r chunkResult
	n, lines := 0, int64(0)
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	weighted := f.value != noValue
	for i := 0; i < len(b); {
		lines++
		u, v, x, next, p := f.entry(b, i)
		if p == entrySkip {
			i = next
			continue
		}
		if p == entryOK && (u-f.minID > limit || v-f.minID > limit) {
			p = needWide
		}
		if p != entryOK {
			r.prob, r.text = p, found(lineAt(b, i))
			break
		}
		src[n], dst[n] = T(u-f.minID), T(v-f.minID)
		if weighted {
			w[n] = x
		}
		n++
		lo, hi = min(lo, u, v), max(hi, u, v)
		if n == stopAfter {
			r.text = found(lineAt(b, i))
			break
		}
		i = next
	}
	r.n, r.lines, r.minID, r.maxID = n, lines, lo, hi
	return r
}

// lineAt returns the line that starts at b[i], without its '\n'.
func lineAt(b []byte, i int) []byte {
	if k := bytes.IndexByte(b[i:], '\n'); k >= 0 {
		return b[i : i+k]
	}
	return b[i:]
}

// lineBounds cuts b at newlines into at most p pieces of at least minChunk
// bytes and returns their boundaries.
func lineBounds(b []byte, p int) []int {
	parts := max(1, min(p, len(b)/minChunk))
	bounds := make([]int, 1, parts+1)
	for k := 1; k < parts; k++ {
		at := max(len(b)*k/parts, bounds[len(bounds)-1])
		i := bytes.IndexByte(b[at:], '\n')
		if i < 0 {
			break
		}
		bounds = append(bounds, at+i+1)
	}
	return append(bounds, len(b))
}
