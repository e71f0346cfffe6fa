package datasets

import (
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// unsized hides the length of a reader, so the readers take the path for
// streams of unknown size (gzip, pipes).
type unsized struct{ r io.Reader }

func (u unsized) Read(p []byte) (int, error) { return u.r.Read(p) }

// oneByte delivers one byte per Read, the worst a reader may do.
type oneByte struct{ r io.Reader }

func (o oneByte) Read(p []byte) (int, error) {
	if len(p) > 1 {
		p = p[:1]
	}
	return o.r.Read(p)
}

// withProcs runs the test body with GOMAXPROCS set to p, so the parallel
// paths split work into p chunks whatever the machine has.
func withProcs(t testing.TB, p int) {
	old := runtime.GOMAXPROCS(p)
	t.Cleanup(func() { runtime.GOMAXPROCS(old) })
}

func TestParseRealMatchesStrconv(t *testing.T) {
	toks := []string{
		"0", "-0", "+0", "1", "-1", "+1.5", "0.1", ".5", "5.", "-.2788416", "1e5", "1E-5", "1e+06",
		"3.4028235e38", "3.4028236e38", "1.17549435e-38", "1e-45", "1.4e-45", "7e-46", "123456789012345678",
		"1234567890123456789", "12345678901234567890", "9007199254740993", "9007199254740992",
		"0.000000000000000000000000001", "1e22", "1e23", "1e-22", "1e-23", "4.35", "0.30000000000000004",
		"16777217", "16777216.5", "33554435", "1.000000059604644775390625", "1.0000000596046448",
		"00000000000000000000000012", "0.00000000000000000000000000000000000000000001",
		"2.5e-1000", "1e1000", "-1e1000", "1e39", "nan", "NaN", "inf", "-Inf", "infinity", "0x1p-2",
		"1_000", "", "-", "+", ".", "e5", "1e", "1e+", "1.5.5", "--1", "1x", "0x", "1e0005",
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		if r.IntN(2) == 0 {
			b.WriteByte('-')
		}
		b.WriteString(strconv.FormatUint(r.Uint64()>>r.IntN(64), 10))
		if r.IntN(2) == 0 {
			b.WriteString("." + strconv.FormatUint(r.Uint64()>>r.IntN(64), 10))
		}
		if r.IntN(3) == 0 {
			b.WriteString("e" + strconv.Itoa(r.IntN(90)-45))
		}
		toks = append(toks, b.String())
		toks = append(toks, strconv.FormatFloat(float64(math.Float32frombits(r.Uint32())), 'g', -1, 32))
	}
	for _, tok := range toks {
		checkParseReal(t, tok)
	}
}

// checkParseReal asserts that parseReal accepts exactly what strconv does
// (finite and within float32) and returns float32(strconv.ParseFloat(tok, 64)).
func checkParseReal(t *testing.T, tok string) {
	t.Helper()
	got, p := parseReal([]byte(tok))
	x, err := strconv.ParseFloat(tok, 64)
	want := float32(x)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange):
		if p != badSyntax {
			t.Errorf("parseReal(%q) = %v, %v; strconv rejects it: %v", tok, got, p, err)
		}
	case math.IsNaN(x) || (err == nil && math.IsInf(x, 0)):
		if p != badNonFinite {
			t.Errorf("parseReal(%q) = %v, %v; want badNonFinite", tok, got, p)
		}
	case math.IsInf(float64(want), 0):
		if p != badTooLarge {
			t.Errorf("parseReal(%q) = %v, %v; want badTooLarge", tok, got, p)
		}
	case p != entryOK || math.Float32bits(got) != math.Float32bits(want):
		t.Errorf("parseReal(%q) = %v (%#x), %v; want %v (%#x)", tok, got, math.Float32bits(got), p, want, math.Float32bits(want))
	}
}

func TestParseUint(t *testing.T) {
	for _, c := range []struct {
		in   string
		v    int64
		next int
	}{
		{"", 0, 0}, {"x", 0, 0}, {"0", 0, 1}, {"12 3", 12, 2}, {"007", 7, 3},
		{"9223372036854775807", math.MaxInt64, 19},
		{"9223372036854775808", -1, 19},
		{"99999999999999999999999", -1, 23},
		{"0000000000000000000000000042", 42, 28},
	} {
		v, next := parseUint([]byte(c.in), 0)
		if v != c.v || next != c.next {
			t.Errorf("parseUint(%q) = %d, %d; want %d, %d", c.in, v, next, c.v, c.next)
		}
	}
}

// TestDigits compares the 8-bytes-at-a-time digit scan with a byte loop on
// random mixes of digits and other bytes, at every position and near the
// end of the buffer.
func TestDigits(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	alphabet := []byte("0123456789 \n\t,./:-+eE\x00\xff\x2f\x3a")
	for range 20000 {
		b := make([]byte, r.IntN(24))
		for k := range b {
			if r.IntN(3) > 0 {
				b[k] = '0' + byte(r.IntN(10))
			} else {
				b[k] = alphabet[r.IntN(len(alphabet))]
			}
		}
		for i := range len(b) + 1 {
			var want uint64
			j := i
			for ; j < len(b) && b[j] >= '0' && b[j] <= '9'; j++ {
				want = want*10 + uint64(b[j]-'0')
			}
			if x, end := digits(b, i); x != want || end != j {
				t.Fatalf("digits(%q, %d) = %d, %d; want %d, %d", b, i, x, end, want, j)
			}
		}
	}
}

func TestAppendWeightRoundTrips(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ws := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 0.1, 1e-45, math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, 16777217}
	for range 100000 {
		w := math.Float32frombits(r.Uint32())
		if !math.IsNaN(float64(w)) && !math.IsInf(float64(w), 0) {
			ws = append(ws, w)
		}
	}
	for _, w := range ws {
		tok := appendWeight(nil, w)
		got, p := parseReal(tok)
		if p != entryOK || math.Float32bits(got) != math.Float32bits(w) {
			t.Fatalf("appendWeight(%v) = %q, reads back as %v, %v", w, tok, got, p)
		}
	}
}

func TestLineBounds(t *testing.T) {
	line := strings.Repeat("x", 99) + "\n"
	for _, n := range []int{0, 1, 100, minChunk, 10 * minChunk, 10*minChunk + 37} {
		b := []byte(strings.Repeat(line, n/100+1)[:n])
		for _, p := range []int{1, 2, 3, 8} {
			bounds := lineBounds(b, p)
			if bounds[0] != 0 || bounds[len(bounds)-1] != len(b) || len(bounds) > p+1 {
				t.Fatalf("lineBounds(%d bytes, %d) = %v", n, p, bounds)
			}
			for k := 1; k < len(bounds)-1; k++ {
				if bounds[k] <= bounds[k-1] || b[bounds[k]-1] != '\n' {
					t.Fatalf("lineBounds(%d bytes, %d) = %v: cut %d is not after a newline", n, p, bounds, k)
				}
			}
		}
	}
}

func TestCapacityNeverTrustsHeaderAlone(t *testing.T) {
	for _, c := range []struct {
		need, have          int
		limit, size, parsed int64
		want                int
	}{
		{need: 10, limit: 1e12, size: -1, want: 10},                                 // unknown size: what is needed
		{need: 10, have: 10, limit: 1e12, size: -1, want: 20},                       // then doubling
		{need: 10000, have: 10000, limit: 15000, size: -1, want: 15000 + 14 + 4096}, // capped by the header, with slack
		{need: 10, limit: 1e12, size: 100, parsed: 100, want: 10},                   // all read: exact
		{need: 1000, limit: 1e12, size: 100000, parsed: 10000, want: 10200},         // extrapolated
		{need: 1000, limit: 5000, size: 1e9, parsed: 10000, want: 5000 + 4 + 4096},  // capped by the header
		{need: 1000, limit: -1, size: 1e9, parsed: 4000, want: 250000001},           // capped by size/4
	} {
		if got := capacityFor(c.need, c.have, c.limit, c.size, c.parsed); got != c.want {
			t.Errorf("capacityFor(%+v) = %d, want %d", c, got, c.want)
		}
	}
}

// TestBlocksAnyReader checks that block cutting, the header's serial line
// reading and the parallel parse agree on every line whatever sizes the
// reader delivers and however many chunks a block is cut into.
func TestBlocksAnyReader(t *testing.T) {
	var b strings.Builder
	b.WriteString("%%MatrixMarket matrix coordinate integer general\n% comment\n\n1000 1000 30000\n")
	for i := range 30000 {
		if i%1000 == 7 {
			b.WriteString("% a comment between entries\n\n")
		}
		b.WriteString(strconv.Itoa(i%1000+1) + " " + strconv.Itoa((i*7)%1000+1) + " " + strconv.Itoa(i) + "\n")
	}
	text := b.String()
	for _, p := range []int{1, 3, 8} {
		withProcs(t, p)
		for name, r := range map[string]func() io.Reader{
			"sized":   func() io.Reader { return strings.NewReader(text) },
			"unsized": func() io.Reader { return unsized{strings.NewReader(text)} },
			"oneByte": func() io.Reader { return oneByte{strings.NewReader(text)} },
		} {
			el, err := ReadMatrixMarket(r(), "blocks.mtx")
			if err != nil {
				t.Fatalf("procs=%d %s: %v", p, name, err)
			}
			if len(el.Src) != 30000 {
				t.Fatalf("procs=%d %s: %d entries", p, name, len(el.Src))
			}
			for i := range 30000 {
				if el.Src[i] != int32(i%1000) || el.Dst[i] != int32((i*7)%1000) || el.W[i] != float32(i) {
					t.Fatalf("procs=%d %s: entry %d is (%d, %d, %v)", p, name, i, el.Src[i], el.Dst[i], el.W[i])
				}
			}
		}
	}
	// An error far into the input names its exact line.
	bad := text + "1 2 3\n"
	for _, p := range []int{1, 2, 5} {
		withProcs(t, p)
		lines := int64(strings.Count(text, "\n"))
		_, err := ReadMatrixMarket(unsized{strings.NewReader(bad)}, "blocks.mtx")
		wantParseError(t, err, "blocks.mtx", lines+1, "expected the end of the file after the 30000 entries declared on line 4")
		bad2 := strings.Replace(text, "\n500 ", "\n500x ", 1)
		line := int64(strings.Count(text[:strings.Index(text, "\n500 ")+1], "\n")) + 1
		_, err = ReadMatrixMarket(unsized{strings.NewReader(bad2)}, "blocks.mtx")
		wantParseError(t, err, "blocks.mtx", line, `found "500x`)
	}
}

func TestLongLine(t *testing.T) {
	withProcs(t, 1)
	text := "1 " + strings.Repeat("1", maxBlock()+10) + "\n"
	_, err := ReadEdgeList(unsized{strings.NewReader(text)}, "long.txt")
	wantParseError(t, err, "long.txt", 1, "longer than")
}

// failingReader delivers data, then fails.
type failingReader struct {
	data []byte
	err  error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, f.err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

func TestReadErrorNamesLine(t *testing.T) {
	boom := errors.New("boom")
	_, err := ReadEdgeList(&failingReader{data: []byte("1 2\n3 4\n5 6"), err: boom}, "fail.txt")
	wantParseError(t, err, "fail.txt", 3, "reading failed: boom")
	if !errors.Is(err, boom) {
		t.Errorf("error %v does not wrap the read error", err)
	}
}

// wantParseError asserts that err is a *ParseError for file at line whose
// text contains sub.
func wantParseError(t *testing.T, err error, file string, line int64, sub string) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("got error %v (%T), want a *ParseError", err, err)
	}
	if pe.File != file || pe.Line != line {
		t.Errorf("error %q is at %s:%d, want %s:%d", err, pe.File, pe.Line, file, line)
	}
	if !strings.HasPrefix(err.Error(), file+":"+strconv.FormatInt(line, 10)+": ") {
		t.Errorf("error %q does not start with %s:%d: ", err, file, line)
	}
	if !strings.Contains(err.Error(), sub) {
		t.Errorf("error %q does not mention %q", err, sub)
	}
}
