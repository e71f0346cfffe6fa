package datasets

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestGAPFiles: GAP's serialized graphs, as GAP's converter wrote them,
// load as the same graphs as GAP's own text edge list of them (weights
// too), and a directed one as the arcs it was made from.
func TestGAPFiles(t *testing.T) {
	dir := filepath.Join("testdata", "gap")
	text, err := Load(filepath.Join(dir, "kron6.wel"), Options{Symmetrize: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file     string
		weighted bool
	}{{"kron6.sg", false}, {"kron6.wsg", true}} {
		g, err := Load(filepath.Join(dir, c.file), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if g.Directed || (g.W != nil) != c.weighted || g.N != 64 || g.Stats != (BuildStats{Entries: 390}) {
			t.Fatalf("%s: directed %v, weighted %v, %d vertices, %+v; want an undirected graph of 64, weighted %v, read from 390 edges and nothing dropped", c.file, g.Directed, g.W != nil, g.N, g.Stats, c.weighted)
		}
		// (the text list names only the vertices with edges: compare by id)
		if got, want := arcsByID(g, c.weighted), arcsByID(text, c.weighted); !slices.Equal(got, want) {
			t.Errorf("%s: %d arcs differ from GAP's text edge list's %d", c.file, len(got), len(want))
		}
	}
	for _, c := range []struct {
		file string
		want []string
	}{
		{"d.sg", []string{"0 1", "1 2", "2 0", "2 3", "5 0", "5 4"}},
		{"d.wsg", []string{"0 1 5", "1 2 7", "2 0 1", "2 3 2", "5 0 9", "5 4 3"}},
	} {
		g, err := Load(filepath.Join(dir, c.file), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !g.Directed || g.N != 6 {
			t.Fatalf("%s: directed %v, %d vertices; want a directed graph of 6", c.file, g.Directed, g.N)
		}
		if got := arcsByID(g, g.W != nil); !slices.Equal(got, c.want) {
			t.Errorf("%s: arcs %v, want %v", c.file, got, c.want)
		}
	}
}

// arcsByID lists g's arcs as "u v [w]" in the input's ids, sorted.
func arcsByID(g *Graph, weighted bool) []string {
	var out []string
	for u := range g.N {
		for i := g.RowPtr[u]; i < g.RowPtr[u+1]; i++ {
			s := strings.TrimSpace(strings.Join([]string{itoa(g.OriginalID(int32(u))), itoa(g.OriginalID(g.Col[i]))}, " "))
			if weighted {
				s += " " + itoa(int64(g.W[i]))
			}
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// gapBytes writes a GAP serialized graph: the header, then each section
// (offsets and neighbours, with weights where ws is not nil).
func gapBytes(directed bool, n int64, rowPtr []int64, col []int32, ws []int32) []byte {
	var b bytes.Buffer
	flag := byte(0)
	if directed {
		flag = 1
	}
	b.WriteByte(flag)
	binary.Write(&b, binary.LittleEndian, int64(len(col)))
	binary.Write(&b, binary.LittleEndian, n)
	sections := 1
	if directed {
		sections = 2
	}
	for range sections {
		binary.Write(&b, binary.LittleEndian, rowPtr)
		for i, c := range col {
			binary.Write(&b, binary.LittleEndian, c)
			if ws != nil {
				binary.Write(&b, binary.LittleEndian, ws[i])
			}
		}
	}
	return b.Bytes()
}

// TestGAPErrors: a damaged or misnamed GAP file is an error that says
// what is wrong, never a graph or a panic; a gzipped one reads as the
// plain one.
func TestGAPErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// a triangle 0-1-2, undirected (each edge from both ends)
	tri := gapBytes(false, 3, []int64{0, 2, 4, 6}, []int32{1, 2, 0, 2, 0, 1}, nil)
	g, err := Load(write("tri.sg", tri), Options{})
	if err != nil || g.N != 3 || g.Edges() != 3 {
		t.Fatalf("triangle: %v, %+v", err, g)
	}
	gz := func(data []byte) []byte {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(data)
		zw.Close()
		return z.Bytes()
	}
	if zg, err := Load(write("tri.sg.gz", gz(tri)), Options{}); err != nil || !slices.Equal(zg.Col, g.Col) {
		t.Fatalf("gzipped triangle: %v", err)
	}
	for _, c := range []struct {
		name string
		data []byte
		opt  Options
		want string
	}{
		{"short.sg", tri[:10], Options{}, "ends inside its 17-byte header"},
		{"flag.sg", append([]byte{7}, tri[1:]...), Options{}, "first byte is 7"},
		{"cut.sg", tri[:len(tri)-4], Options{}, "73 bytes; the file has 69"},
		{"named.wsg", tri, Options{}, "is that of an undirected unweighted (.sg)"},
		{"offsets.sg", gapBytes(false, 3, []int64{0, 4, 2, 6}, []int32{1, 2, 0, 2, 0, 1}, nil), Options{}, "out-row of vertex 1 ends at 2, before it starts (4)"},
		{"range.sg", gapBytes(false, 3, []int64{0, 2, 4, 6}, []int32{1, 2, 0, 9, 0, 1}, nil), Options{}, "out-row of vertex 1 lists vertex 9"},
		{"oneway.sg", gapBytes(false, 3, []int64{0, 2, 3, 3}, []int32{1, 2, 2}, nil), Options{}, "vertex 0's lists 1 and 1's does not list 0"},
		{"counts.sg", gapBytes(false, 3, []int64{0, 1, 2, 4}, []int32{1, 2, 0, 1}, nil), Options{}, "vertex 2's lists 0 and 0's does not list 2"},
		{"weights.wsg", gapBytes(false, 3, []int64{0, 2, 4, 6}, []int32{1, 2, 0, 2, 0, 1}, []int32{1, 2, 1, 3, 2, 4}), Options{}, "edge 1-2 weighs 3 from 1 and 4 from 2"},
		{"unsorted-oneway.sg", gapBytes(false, 3, []int64{0, 2, 3, 3}, []int32{2, 1, 2}, nil), Options{}, "3 arcs go up (u < v) and 0 down"},
		{"empty.sg", gapBytes(false, 0, []int64{0}, nil, nil), Options{}, "0 vertices"},
		{"huge.sg", append(append([]byte{0}, binary.LittleEndian.AppendUint64(nil, 1<<62)...), tri[9:]...), Options{}, "4611686018427387904 arcs: no file holds them"},
		{"long.sg.gz", gz(append(slices.Clone(tri), 7)), Options{}, "goes on after"},
		{"tri.bin.gz", gz(tri), Options{Input: Input{Format: FormatGAP}}, "name it .sg or .wsg"},
	} {
		_, err := Load(write(c.name, c.data), c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%s: error %v, want one naming the file and saying %q", c.name, err, c.want)
		}
	}
	// (rows out of order, or with a self loop, go through Build: the same
	// graph)
	for name, data := range map[string][]byte{
		"unsorted.sg": gapBytes(false, 3, []int64{0, 2, 4, 6}, []int32{2, 1, 2, 0, 1, 0}, nil),
		"loop.sg":     gapBytes(false, 3, []int64{0, 3, 5, 7}, []int32{0, 1, 2, 0, 2, 0, 1}, nil),
	} {
		if h, err := Load(write(name, data), Options{}); err != nil || !slices.Equal(h.RowPtr, g.RowPtr) || !slices.Equal(h.Col, g.Col) {
			t.Errorf("%s: %v; want the triangle", name, err)
		}
	}
	// (a name neither .sg nor .wsg, read as GAP's: the size tells)
	if g2, err := Load(write("tri.bin", tri), Options{Input: Input{Format: FormatGAP}}); err != nil || !slices.Equal(g2.Col, g.Col) {
		t.Errorf("tri.bin as GAP's: %v", err)
	}
}

// FuzzReadGAP: whatever the bytes, readGAP returns an error or entries
// inside the graph, with the size known or not, weighted or not.
func FuzzReadGAP(f *testing.F) {
	addSeeds(f, "gap/*sg")
	f.Add(gapBytes(false, 3, []int64{0, 2, 4, 6}, []int32{1, 2, 0, 2, 0, 1}, nil))
	f.Add(gapBytes(true, 2, []int64{0, 1, 1}, []int32{1}, []int32{-4}))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, size := range []int64{int64(len(data)), -1} {
			for _, weighted := range []int{-1, 0, 1} {
				if size < 0 && weighted < 0 {
					continue
				}
				el, err := readGAP(source{r: bytes.NewReader(data), name: "fuzz.sg", size: size}, weighted)
				if err == nil {
					checkEdgeList(t, el)
				}
				g, err := readGAPGraph(source{r: bytes.NewReader(data), name: "fuzz.sg", size: size}, weighted, Options{})
				if err == nil {
					if err := g.Validate(); err != nil {
						t.Fatalf("readGAPGraph made an invalid graph: %v", err)
					}
					if err := checkSymmetric(g); !g.Directed && err != nil {
						t.Fatalf("readGAPGraph made an undirected graph whose rows are not symmetric: %v", err)
					}
				}
			}
		}
	})
}

// TestWriteGAP: a GAP file read and written again is the file GAP's
// converter wrote, byte for byte (undirected and directed, with weights
// and without); a weight GAP's int32s cannot hold is an error.
func TestWriteGAP(t *testing.T) {
	for _, name := range []string{"kron6.sg", "kron6.wsg", "d.sg", "d.wsg"} {
		path := filepath.Join("testdata", "gap", name)
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		g, err := Load(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := WriteGAP(&b, g); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Bytes(), want) {
			t.Errorf("%s: written again, %d bytes differ from GAP's %d", name, b.Len(), len(want))
		}
	}
	g, err := Load(filepath.Join("testdata", "gap", "d.wsg"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	g.W[2] = 1.5
	if err := WriteGAP(io.Discard, g); err == nil || !strings.Contains(err.Error(), "weighs 1.5") {
		t.Errorf("a weight of 1.5: %v, want an error naming it", err)
	}
}
