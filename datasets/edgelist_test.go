package datasets

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestReadEdgeListBadInput(t *testing.T) {
	for _, c := range []struct {
		name, in string
		line     int64
		want     string
	}{
		{"empty file", "", 1, `expected edges "u v [w]", found an empty file`},
		{"only comments", "# a\n% b\n\n", 3, `expected edges "u v [w]", found only comments and blank lines`},
		{"negative id", "1 2\n-3 4\n", 2, `expected "u v": 2 non-negative integer ids and no weight, like the first edge (line 1), found "-3 4"`},
		{"non-numeric id", "# c\n1 2\na b\n", 3, `found "a b"`},
		{"one field", "1 2\n3\n", 2, `found "3"`},
		{"weight appears", "# c\n1 2\n2 3\n3 4 1.5\n", 4, `expected "u v": 2 non-negative integer ids and no weight, like the first edge (line 2), found "3 4 1.5"`},
		{"weight disappears", "1 2 1\n2 3\n", 2, `expected "u v w": 2 non-negative integer ids and a weight, like the first edge (line 1), found "2 3"`},
		{"too many fields", "1 2 1\n2 3 4 5\n", 2, `found "2 3 4 5"`},
		{"id beyond int64", "1 2\n9223372036854775808 1\n", 2, "expected non-negative integer ids up to 9223372036854775807"},
		{"NaN weight", "1 2 1\n2 3 NaN\n", 2, `expected a finite value, found "2 3 NaN"`},
		{"Inf weight", "1 2 inf\n", 1, "expected a finite value"},
		{"weight beyond float32", "1 2 1e39\n", 1, "float32 range"},
		{"bad weight", "1 2 1.5.5\n", 1, `found "1 2 1.5.5"`},
		{"two commas", "1,,2\n", 1, `found "1,,2"`},
		{"leading comma", ",1,2\n", 1, `found ",1,2"`},
		{"no separator", "1 2\n12x 3\n", 2, `found "12x 3"`},
		{"header line", "source,target\n0,1\n", 1, `found "source,target"`},
		{"float id", "1.0 2.0\n", 1, `found "1.0 2.0"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			el, err := ReadEdgeList(strings.NewReader(c.in), "bad.txt")
			if err == nil {
				t.Fatalf("no error; read %+v", el)
			}
			wantParseError(t, err, "bad.txt", c.line, c.want)
		})
	}
}

func TestReadEdgeListEmptyIsErrEmptyGraph(t *testing.T) {
	for _, in := range []string{"", "# nothing\n"} {
		if _, err := ReadEdgeList(strings.NewReader(in), "e.txt"); !errors.Is(err, ErrEmptyGraph) {
			t.Errorf("%q: error %v does not wrap ErrEmptyGraph", in, err)
		}
	}
}

func TestReadEdgeList(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     EdgeList
	}{
		{"dense 0-based", "# c\n0 1\n1 2\n2 0\n",
			EdgeList{N: 3, Src: []int32{0, 1, 2}, Dst: []int32{1, 2, 0}}},
		{"dense 1-based", "% c\n1 2\n3 2\n",
			EdgeList{N: 3, Src: []int32{0, 2}, Dst: []int32{1, 1}, IDBase: 1}},
		{"sparse ids in increasing order", "100 7\n7 50\n50 100\n",
			EdgeList{N: 3, Src: []int32{2, 0, 1}, Dst: []int32{0, 1, 2}, IDs: []int64{7, 50, 100}}},
		{"comma, tab and CRLF", "0,1\r\n1 ,\t2\r\n2, 0,\r\n",
			EdgeList{N: 3, Src: []int32{0, 1, 2}, Dst: []int32{1, 2, 0}}},
		{"weighted", "0 1 0.5\n1 2 -2\n\n# c\n2 0 3e2\n",
			EdgeList{N: 3, Src: []int32{0, 1, 2}, Dst: []int32{1, 2, 0}, W: []float32{0.5, -2, 300}}},
		{"weighted csv", "0,1,2\n1,0,3\n",
			EdgeList{N: 2, Src: []int32{0, 1}, Dst: []int32{1, 0}, W: []float32{2, 3}}},
		{"ids beyond int32", "4294967296 1\n1 9223372036854775807\n",
			EdgeList{N: 3, Src: []int32{1, 0}, Dst: []int32{0, 2}, IDs: []int64{1, 4294967296, math.MaxInt64}}},
		{"dense range far from zero", "1000000000000 1000000000001\n1000000000002 1000000000000\n",
			EdgeList{N: 3, Src: []int32{0, 2}, Dst: []int32{1, 0}, IDBase: 1000000000000}},
		{"byte order mark", "\xef\xbb\xbf0,1\n",
			EdgeList{N: 2, Src: []int32{0}, Dst: []int32{1}}},
		{"self loop only", "5 5\n",
			EdgeList{N: 1, Src: []int32{0}, Dst: []int32{0}, IDBase: 5}},
	} {
		t.Run(c.name, func(t *testing.T) {
			el, err := ReadEdgeList(strings.NewReader(c.in), "good.txt")
			if err != nil {
				t.Fatal(err)
			}
			want := c.want
			want.Directed, want.Name = true, "good.txt"
			if !reflect.DeepEqual(*el, want) {
				t.Errorf("got  %+v\nwant %+v", *el, want)
			}
		})
	}
}

// TestReadEdgeListCompaction compares the compaction of random id sets
// (dense, sparse, beyond int32, appearing late) with a map-based reference,
// and checks the result does not depend on the order of the lines.
func TestReadEdgeListCompaction(t *testing.T) {
	for _, c := range []struct {
		name     string
		idOf     func(r *rand.Rand) int64
		hugeLate bool
	}{
		{"dense", func(r *rand.Rand) int64 { return r.Int64N(5000) }, false},
		{"gaps (bitmap)", func(r *rand.Rand) int64 { return 3 * r.Int64N(50000) }, false},
		{"sparse (sorted)", func(r *rand.Rand) int64 { return r.Int64N(1 << 40) }, false},
		{"wide (bitmap)", func(r *rand.Rand) int64 { return 1<<40 + r.Int64N(10000) }, false},
		{"huge id in a late block", func(r *rand.Rand) int64 { return r.Int64N(100000) }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			withProcs(t, 3)
			r := rand.New(rand.NewPCG(5, 6))
			var lines []string
			var src, dst []int64
			for i := range 60000 {
				u, v := c.idOf(r), c.idOf(r)
				if c.hugeLate && i == 59000 {
					u = math.MaxInt64 - 3
				}
				src, dst = append(src, u), append(dst, v)
				lines = append(lines, strconv.FormatInt(u, 10)+"\t"+strconv.FormatInt(v, 10)+"\n")
			}
			el, err := ReadEdgeList(unsized{strings.NewReader(strings.Join(lines, ""))}, "c.txt")
			if err != nil {
				t.Fatal(err)
			}
			ids := slices.Concat(src, dst)
			slices.Sort(ids)
			ids = slices.Compact(ids)
			if el.N != len(ids) {
				t.Fatalf("N = %d, want %d", el.N, len(ids))
			}
			for i := range src {
				if el.OriginalID(el.Src[i]) != src[i] || el.OriginalID(el.Dst[i]) != dst[i] {
					t.Fatalf("entry %d is (%d, %d), want (%d, %d)", i, el.OriginalID(el.Src[i]), el.OriginalID(el.Dst[i]), src[i], dst[i])
				}
			}
			for v := range el.N {
				if el.OriginalID(int32(v)) != ids[v] {
					t.Fatalf("vertex %d has id %d, want %d (ids in increasing order)", v, el.OriginalID(int32(v)), ids[v])
				}
			}
			r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
			shuffled, err := ReadEdgeList(strings.NewReader(strings.Join(lines, "")), "c.txt")
			if err != nil {
				t.Fatal(err)
			}
			if shuffled.N != el.N || !reflect.DeepEqual(shuffled.IDs, el.IDs) || shuffled.IDBase != el.IDBase {
				t.Errorf("shuffling the lines changed the numbering")
			}
		})
	}
}

func TestWriteEdgeListRoundTrip(t *testing.T) {
	for _, c := range []struct {
		name               string
		directed, weighted bool
	}{
		{"directed", true, false},
		{"directed weighted", true, true},
		{"undirected", false, false},
		{"undirected weighted", false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			withProcs(t, 2)
			// Sparse original ids, so the writer must use them.
			in := randomGraph(t, 3, 2000, 100000, c.directed, c.weighted, true)
			el := in.EdgeList()
			el.IDs = make([]int64, el.N)
			for v := range el.IDs {
				el.IDs[v] = int64(v)*1000 + 17
			}
			g, err := Build(el, Options{KeepSelfLoops: true})
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := WriteEdgeList(&buf, g); err != nil {
				t.Fatal(err)
			}
			back, err := ReadEdgeList(&buf, "rt.txt")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back.IDs, g.IDs) {
				t.Fatalf("ids differ")
			}
			gb, err := Build(back, Options{KeepSelfLoops: true, Symmetrize: !c.directed})
			if err != nil {
				t.Fatal(err)
			}
			sameGraph(t, gb, g)
		})
	}
}

// BuildStream checks every entry: one outside [0, N) is an error naming
// it, not an index out of range.
func TestBuildStreamRejectsBadEntries(t *testing.T) {
	src, dst := []int32{0, 1, 2, 3}, []int32{1, 2, 9, 0}
	es := &EdgeStream{N: 4, M: 4, Name: "bad", Blocks: func(fn func(lo int, s, d []int32)) {
		fn(0, src[:2], dst[:2])
		fn(2, src[2:], dst[2:])
	}}
	_, err := BuildStream(es, Options{})
	if err == nil || !strings.Contains(err.Error(), "bad: entry 3 has an endpoint outside [0, 4)") {
		t.Fatalf("got %v", err)
	}
	if _, err := BuildStream(&EdgeStream{N: 0, Name: "empty"}, Options{}); !errors.Is(err, ErrEmptyGraph) {
		t.Fatalf("empty stream: %v", err)
	}
}
