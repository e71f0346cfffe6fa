package datasets

import (
	"bytes"
	"io"
	"math"

	"github.com/hpgraph/hpgraph/internal/par"
)

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
