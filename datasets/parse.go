package datasets

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/hpgraph/hpgraph/internal/par"
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

// source is the input of a text reader.
type source struct {
	r    io.Reader
	name string
	size int64 // bytes r will deliver, or -1 when unknown
}

const (
	// firstBlock is the first read when the input size is unknown; blocks
	// then double, so small inputs stay cheap and large ones get big blocks.
	firstBlock = 256 << 10
	// minChunk is the smallest piece of a block worth its own goroutine.
	minChunk = 64 << 10
	// maxFound caps how much of a bad line an error message quotes.
	maxFound = 80
)

// maxBlock is the largest block: a few MiB per core, bounded so that the
// two blocks in flight stay small next to any graph worth parallelizing.
func maxBlock() int { return min(max(par.Workers()*(4<<20), 16<<20), 32<<20) }

// block is a piece of the input holding whole lines; at the end of the
// input the last line may lack its '\n'.
type block struct {
	data []byte
	err  error // set on the last block when reading failed after data
}

// blockReader reads in its own goroutine so that reading (and gunzipping)
// overlaps with parsing. Two buffers circulate: one being parsed, one being
// filled.
type blockReader struct {
	blocks chan block
	free   chan []byte
	quit   chan struct{}
	exited chan struct{}
}

func readBlocks(r io.Reader, size int64) *blockReader {
	br := &blockReader{
		blocks: make(chan block),
		free:   make(chan []byte, 2),
		quit:   make(chan struct{}),
		exited: make(chan struct{}),
	}
	go br.run(r, size)
	return br
}

func (br *blockReader) run(r io.Reader, size int64) {
	defer close(br.exited)
	defer close(br.blocks)
	limit := maxBlock()
	want := firstBlock
	if size >= 0 {
		// One byte more than the input so that the first fill sees EOF.
		want = int(min(size+1, int64(limit)))
	}
	buf, n, allocated := make([]byte, want), 0, 1
	for {
		err := fill(r, buf, &n)
		if err != nil {
			if err == io.EOF {
				br.send(block{data: buf[:n]})
			} else {
				br.send(block{data: buf[:bytes.LastIndexByte(buf[:n], '\n')+1], err: err})
			}
			return
		}
		cut := bytes.LastIndexByte(buf, '\n') + 1
		if cut == 0 {
			if len(buf) >= limit {
				br.send(block{err: fmt.Errorf("a line is longer than %d MiB", limit>>20)})
				return
			}
			bigger := make([]byte, min(2*len(buf), limit))
			copy(bigger, buf)
			buf = bigger
			continue
		}
		want = min(2*want, limit)
		carry := n - cut
		var next []byte
		if allocated < 2 {
			allocated++
		} else {
			select {
			case next = <-br.free:
			case <-br.quit:
				return
			}
		}
		if len(next) < want || len(next) <= carry {
			next = make([]byte, max(want, 2*carry))
		}
		copy(next, buf[cut:n])
		if !br.send(block{data: buf[:cut]}) {
			return
		}
		buf, n = next, carry
	}
}

// fill reads into buf[*n:] until buf is full or the reader fails or ends.
func fill(r io.Reader, buf []byte, n *int) error {
	for empty := 0; *n < len(buf); {
		m, err := r.Read(buf[*n:])
		*n += m
		if err != nil {
			return err
		}
		if m > 0 {
			empty = 0
		} else if empty++; empty > 100 {
			return io.ErrNoProgress
		}
	}
	return nil
}

func (br *blockReader) send(b block) bool {
	select {
	case br.blocks <- b:
		return true
	case <-br.quit:
		return false
	}
}

func (br *blockReader) next() (block, bool) {
	b, ok := <-br.blocks
	return b, ok
}

// release hands a block's buffer back for reuse once it has been parsed.
func (br *blockReader) release(data []byte) {
	select {
	case br.free <- data[:cap(data)]:
	default:
	}
}

// stop ends the reading goroutine and waits for it, so the reader is not
// used after the caller returns.
func (br *blockReader) stop() {
	close(br.quit)
	<-br.exited
}

// lineReader gives the serial part of a parser (headers) the input line by
// line, and the parallel part the rest block by block, keeping count of
// line numbers across both.
type lineReader struct {
	name      string
	br        *blockReader
	block     []byte // the block in use, released when the next is fetched
	rest      []byte // its unread part
	line      int64  // number of the first line in rest
	delivered int64  // bytes received from the block reader
	err       error  // read error that follows rest
	eof       bool
	undoRest  []byte
	undoLine  int64
}

func newLineReader(src source) *lineReader {
	return &lineReader{name: src.name, br: readBlocks(src.r, src.size), line: 1}
}

func (lr *lineReader) close() { lr.br.stop() }

// more makes rest non-empty, or returns io.EOF or a *ParseError for a read
// error once everything read before it has been consumed.
func (lr *lineReader) more() error {
	for len(lr.rest) == 0 {
		if lr.err != nil {
			return &ParseError{File: lr.name, Line: lr.line, Msg: "reading failed: " + lr.err.Error(), Err: lr.err}
		}
		if lr.eof {
			return io.EOF
		}
		if lr.block != nil {
			lr.br.release(lr.block)
			lr.block = nil
		}
		b, ok := lr.br.next()
		if !ok {
			lr.eof = true
			continue
		}
		lr.block, lr.rest, lr.err = b.data, b.data, b.err
		if lr.delivered == 0 {
			// Editors on Windows start text files with a byte order mark.
			lr.rest = trimBOM(lr.rest)
		}
		lr.delivered += int64(len(b.data))
	}
	return nil
}

// nextLine returns the next line without its '\n' and its number.
func (lr *lineReader) nextLine() ([]byte, int64, error) {
	if err := lr.more(); err != nil {
		return nil, lr.line, err
	}
	lr.undoRest, lr.undoLine = lr.rest, lr.line
	line := lr.rest
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line, lr.rest = line[:i], line[i+1:]
	} else {
		lr.rest = nil
	}
	lr.line++
	return line, lr.line - 1, nil
}

// unread undoes the last nextLine.
func (lr *lineReader) unread() { lr.rest, lr.line = lr.undoRest, lr.undoLine }

// nextData skips blank and comment lines and returns the next data line
// without consuming it.
func (lr *lineReader) nextData(f *entryFormat) ([]byte, int64, error) {
	for {
		line, n, err := lr.nextLine()
		if err != nil {
			return nil, n, err
		}
		if !f.skippable(line) {
			lr.unread()
			return line, n, nil
		}
	}
}

// take returns the unread rest of the current block, or else the next
// block; the caller adds the lines it held to lr.line once parsed.
func (lr *lineReader) take() ([]byte, error) {
	if err := lr.more(); err != nil {
		return nil, err
	}
	b := lr.rest
	lr.rest = nil
	return b, nil
}

// lastLine is the number of the last line read, the line where the file
// ended once everything is read.
func (lr *lineReader) lastLine() int64 { return max(lr.line-1, 1) }

func (lr *lineReader) errorf(line int64, format string, args ...any) error {
	return &ParseError{File: lr.name, Line: line, Msg: fmt.Sprintf(format, args...)}
}

var bom = []byte("\xef\xbb\xbf")

func trimBOM(b []byte) []byte { return bytes.TrimPrefix(b, bom) }

// found quotes a bad line for an error message.
func found(line []byte) string {
	s := strings.TrimSpace(string(line))
	if len(s) > maxFound {
		s = s[:maxFound] + "..."
	}
	return strconv.Quote(s)
}

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

// digits parses the decimal digits at b[i:] and returns their value (it
// wraps past 19 digits; see parseUint) and the index after them. Numbers of up
// to 7 digits (almost every id) are found and converted 8 bytes at a time.
func digits(b []byte, i int) (uint64, int) {
	if i+8 <= len(b) {
		// t holds each byte minus '0'; a byte is a digit iff its t is 0..9,
		// that is iff neither t nor t+6 reaches the high nibble. A carry
		// between bytes only starts at a non-digit, so the lowest flagged
		// byte is exact.
		t := binary.LittleEndian.Uint64(b[i:]) ^ 0x3030303030303030
		if flags := (t | (t + 0x0606060606060606)) & 0xf0f0f0f0f0f0f0f0; flags != 0 {
			n := bits.TrailingZeros64(flags) / 8
			if n == 0 {
				return 0, i
			}
			return eightDigits(t << (64 - 8*n)), i + n
		}
	}
	var x uint64
	for ; i < len(b); i++ {
		d := b[i] - '0'
		if d > 9 {
			break
		}
		x = x*10 + uint64(d)
	}
	return x, i
}

// eightDigits converts 8 digit values, the first in the lowest byte, by
// combining neighbours pairwise: 2 digits per 16 bits, 4 per 32, then 8.
func eightDigits(t uint64) uint64 {
	t = (t & 0x0f0f0f0f0f0f0f0f) * (10<<8 + 1) >> 8
	t = (t & 0x00ff00ff00ff00ff) * (100<<16 + 1) >> 16
	return (t & 0x0000ffff0000ffff) * (10000<<32 + 1) >> 32
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

// parseUint parses the decimal digits at b[i:]. It returns the index after
// them (i when there are none) and the value, or -1 when it exceeds int64.
func parseUint(b []byte, i int) (int64, int) {
	x, j := digits(b, i)
	if j-i >= 19 {
		// Only 19 or more digits can overflow (digits wraps); redo with checks.
		x = 0
		for _, c := range b[i:j] {
			if x > (math.MaxInt64-uint64(c-'0'))/10 {
				return -1, j
			}
			x = x*10 + uint64(c-'0')
		}
	}
	return int64(x), j
}

func parseValue(tok []byte, kind valueKind) (float32, problem) {
	if kind == intValue {
		i := 0
		if len(tok) > 0 && (tok[0] == '+' || tok[0] == '-') {
			i++
		}
		if i == len(tok) {
			return 0, badSyntax
		}
		for _, c := range tok[i:] {
			if c-'0' > 9 {
				return 0, badSyntax
			}
		}
	}
	return parseReal(tok)
}

// exact powers of ten in float64.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseReal parses a decimal number to float32. The result is exactly
// float32(strconv.ParseFloat(tok, 64)). Simple decimals (at most 19
// significant digits, a mantissa below 2^53 and a power of ten up to 22)
// take Clinger's fast path: mantissa and power are exact float64s, so one
// multiplication or division is correctly rounded, as strconv's result is;
// everything else goes to strconv.
func parseReal(tok []byte) (float32, problem) {
	i, neg := 0, false
	if len(tok) > 0 && (tok[0] == '+' || tok[0] == '-') {
		neg = tok[0] == '-'
		i++
	}
	var mant uint64
	nd, sig, exp := 0, 0, 0
	dot := false
	for ; i < len(tok); i++ {
		c := tok[i]
		if c-'0' <= 9 {
			nd++
			if mant != 0 || c != '0' {
				sig++
			}
			mant = mant*10 + uint64(c-'0')
			if dot {
				exp--
			}
			continue
		}
		if c == '.' && !dot {
			dot = true
			continue
		}
		break
	}
	if i < len(tok) && (tok[i] == 'e' || tok[i] == 'E') && nd > 0 {
		i++
		eneg := false
		if i < len(tok) && (tok[i] == '+' || tok[i] == '-') {
			eneg = tok[i] == '-'
			i++
		}
		e, j := parseUint(tok, i)
		if j == i || e < 0 || e > 1000 {
			return parseRealSlow(tok)
		}
		i = j
		if eneg {
			e = -e
		}
		exp += int(e)
	}
	if i != len(tok) || nd == 0 || sig > 19 {
		return parseRealSlow(tok)
	}
	if mant == 0 {
		if neg {
			return float32(math.Copysign(0, -1)), entryOK
		}
		return 0, entryOK
	}
	if mant >= 1<<53 || exp < -22 || exp > 22 {
		return parseRealSlow(tok)
	}
	x := float64(mant)
	if exp >= 0 {
		x *= pow10[exp]
	} else {
		x /= pow10[-exp]
	}
	if neg {
		x = -x
	}
	return float32(x), entryOK
}

func parseRealSlow(tok []byte) (float32, problem) {
	x, err := strconv.ParseFloat(string(tok), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, badSyntax
	}
	if math.IsNaN(x) || (err == nil && math.IsInf(x, 0)) {
		return 0, badNonFinite
	}
	w := float32(x)
	if math.IsInf(float64(w), 0) {
		return 0, badTooLarge
	}
	return w, entryOK
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

// entryLimit is the number of entries a header declares.
type entryLimit struct {
	n    int64  // -1 for none
	want string // what must follow the last entry, for the message
}

// entries accumulates the parsed entries of a file in input order. Ids are
// stored minus the format's minID.
type entries struct {
	src, dst     idColumn
	w            []float32
	n            int
	minID, maxID int64 // over the raw ids
}

// idColumn holds one endpoint of every entry: as int32 while every id
// fits, as int64 after the first that does not (rare: only edge lists with
// huge ids), so the common case needs half the memory.
type idColumn struct {
	narrow []int32
	wide   []int64 // non-nil once widened
}

func resize[T any](s []T, n, capacity int) []T {
	if n <= cap(s) {
		return s[:n]
	}
	t := make([]T, n, max(n, capacity))
	copy(t, s)
	return t
}

// at is entry i's id.
func (c *idColumn) at(i int) int64 {
	if c.wide != nil {
		return c.wide[i]
	}
	return int64(c.narrow[i])
}

func (c *idColumn) cap() int {
	if c.wide != nil {
		return cap(c.wide)
	}
	return cap(c.narrow)
}

func (c *idColumn) resize(n, capacity int) {
	if c.wide != nil {
		c.wide = resize(c.wide, n, capacity)
	} else {
		c.narrow = resize(c.narrow, n, capacity)
	}
}

func (c *idColumn) widen() {
	c.wide = make([]int64, len(c.narrow), cap(c.narrow))
	par.Blocks(len(c.narrow), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			c.wide[i] = int64(c.narrow[i])
		}
	})
	c.narrow = nil
}

// move copies the n entries at from to to (which may overlap).
func (c *idColumn) move(to, from, n int) {
	if c.wide != nil {
		copy(c.wide[to:to+n], c.wide[from:from+n])
	} else {
		copy(c.narrow[to:to+n], c.narrow[from:from+n])
	}
}

// capacityFor is how many entries to make room for when need (one per
// line read) do not fit: with a known input size, an extrapolation from
// the bytes parsed so far; otherwise doubling; and hardly more than the
// header declares (a little more, because room is reserved per line and
// comment lines take room too until the block is parsed). So a header
// alone never causes an allocation that the bytes read do not back, and
// an honest one gets one exact allocation when the size is known.
func capacityFor(need, have int, limit, size, parsed int64) int {
	c := max(need, 2*have)
	if size > 0 && parsed > 0 {
		est := float64(need) * 1.02 * float64(size) / float64(parsed)
		c = int(min(est, float64(size/4+1)))
	}
	if limit >= 0 {
		slack := min(limit/1024+4096, math.MaxInt64-limit)
		c = int(min(int64(c), limit+slack))
	}
	return max(c, need)
}

// parseEntries parses every remaining line of lr as an entry of format f.
// Each block is cut into one piece per core; the lines of every piece are
// counted (a fast scan) to reserve room for one entry per line, the
// pieces are parsed straight into the result, and the gaps left by blank
// and comment lines are closed in input order.
func parseEntries(lr *lineReader, f *entryFormat, limit entryLimit, size int64) (*entries, error) {
	results := make([]chunkResult, par.Workers())
	e := &entries{minID: math.MaxInt64, maxID: math.MinInt64}
	weighted := f.value != noValue
	for {
		data, err := lr.take()
		if err == io.EOF {
			return e, nil
		}
		if err != nil {
			return nil, err
		}
		bounds := lineBounds(data, len(results))
		parts := len(bounds) - 1
		offs := make([]int, parts+1)
		offs[0] = e.n
		par.Parts(bounds, func(k, lo, hi int) {
			offs[k+1] = bytes.Count(data[lo:hi], []byte{'\n'})
			if hi > lo && data[hi-1] != '\n' {
				offs[k+1]++ // the last line of the input, unterminated
			}
		})
		for k := range parts {
			offs[k+1] += offs[k]
		}
		c := capacityFor(offs[parts], e.src.cap(), limit.n, size, lr.delivered)
		e.src.resize(offs[parts], c)
		e.dst.resize(offs[parts], c)
		if weighted {
			e.w = resize(e.w, offs[parts], c)
		}
		parse := func(k int, stopAfter int) chunkResult {
			b, at, end := data[bounds[k]:bounds[k+1]], offs[k], offs[k+1]
			var w []float32
			if weighted {
				w = e.w[at:end]
			}
			if e.src.wide != nil {
				return parseInto(f, b, e.src.wide[at:end], e.dst.wide[at:end], w, math.MaxInt64, stopAfter)
			}
			return parseInto(f, b, e.src.narrow[at:end], e.dst.narrow[at:end], w, math.MaxInt32, stopAfter)
		}
		par.Parts(bounds, func(k, _, _ int) { results[k] = parse(k, math.MaxInt) })

		// Check in input order, so the first problem in the file is the one
		// reported, and close the gaps.
		line, n, widen := lr.line, e.n, false
		for k := range parts {
			r := &results[k]
			if limit.n >= 0 && int64(n+r.n) > limit.n {
				extra := parse(k, int(limit.n)-n+1)
				return nil, lr.errorf(line+extra.lines-1, "expected %s, found %s", limit.want, extra.text)
			}
			if r.prob == needWide {
				widen = true
				break
			}
			if r.prob != entryOK {
				return nil, lr.errorf(line+r.lines-1, "%s", f.message(r.prob, r.text))
			}
			line += r.lines
			if offs[k] != n {
				e.src.move(n, offs[k], r.n)
				e.dst.move(n, offs[k], r.n)
				if weighted {
					copy(e.w[n:n+r.n], e.w[offs[k]:offs[k]+r.n])
				}
			}
			n += r.n
			e.minID, e.maxID = min(e.minID, r.minID), max(e.maxID, r.maxID)
		}
		if widen {
			// An id does not fit in int32: widen and parse the block again.
			e.src.resize(e.n, 0)
			e.dst.resize(e.n, 0)
			e.src.widen()
			e.dst.widen()
			lr.rest = data
			continue
		}
		lr.line = line
		e.n = n
		e.src.resize(n, 0)
		e.dst.resize(n, 0)
		if weighted {
			e.w = e.w[:n]
		}
	}
}

// Writing.

// writeRows writes the text that appendRow makes for every row of g, in
// row order. Rounds of rows are formatted in parallel, one buffer per core,
// and written in order, so memory stays at a few MiB per core.
func writeRows(w io.Writer, g *Graph, appendRow func(dst []byte, v int32) []byte) error {
	p := par.Workers()
	const arcsPerPart = 1 << 18
	bufs := make([][]byte, p)
	for v := 0; v < g.N; {
		// Rows [v, end) hold about p*arcsPerPart arcs (and at most that
		// many rows, for graphs with many empty rows).
		target := g.RowPtr[v] + int64(p*arcsPerPart)
		end, hi := v+1, min(g.N, v+p*arcsPerPart)
		for end < hi {
			mid := int(uint(end+hi) >> 1)
			if g.RowPtr[mid] < target {
				end = mid + 1
			} else {
				hi = mid
			}
		}
		weight := func(i int) int64 { return g.RowPtr[v+i] - g.RowPtr[v] + int64(i) }
		bounds := par.Split(end-v, p, weight)
		par.Parts(bounds, func(k, lo, hi int) {
			buf := bufs[k][:0]
			for r := v + lo; r < v+hi; r++ {
				buf = appendRow(buf, int32(r))
			}
			bufs[k] = buf
		})
		for k := range len(bounds) - 1 {
			if _, err := w.Write(bufs[k]); err != nil {
				return err
			}
		}
		v = end
	}
	return nil
}

// appendWeight formats w so that parseReal reads back exactly w: the
// shortest float32 form when it round-trips through our parser (it almost
// always does), else the shortest float64 form, which always does.
func appendWeight(dst []byte, w float32) []byte {
	n := len(dst)
	dst = strconv.AppendFloat(dst, float64(w), 'g', -1, 32)
	if x, p := parseReal(dst[n:]); p == entryOK && math.Float32bits(x) == math.Float32bits(w) {
		return dst
	}
	return strconv.AppendFloat(dst[:n], float64(w), 'g', -1, 64)
}

func appendInt(dst []byte, x int64, sep byte) []byte {
	return append(strconv.AppendInt(dst, x, 10), sep)
}
