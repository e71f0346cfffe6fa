package datasets

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/hpgraph/hpgraph/internal/par"
)

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

// eachContent calls fn with every line that is neither blank nor a '#'
// comment, trimmed of white space, and its number, until the input ends
// or fn or a read fails (LDBC's vertex and adjacency files).
func (lr *lineReader) eachContent(fn func(t []byte, n int64) error) error {
	for {
		line, n, err := lr.nextLine()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '#' {
			if err := fn(t, n); err != nil {
				return err
			}
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
