package datasets

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hpgraph/hpgraph/internal/par"
)

// LDBC Graphalytics graphs (https://ldbcouncil.org/benchmarks/graphalytics/)
// come as a vertex file NAME.v, one vertex id per line, and an edge file
// NAME.e, "src dst" or "src dst weight" per line, with NAME.properties
// beside them saying whether the graph is directed, what the edges carry
// and the parameters of the benchmark's algorithms. The vertex file is
// authoritative: a vertex without edges is a vertex, an edge between ids
// it does not list is an error. Neither file says whether the graph is
// directed (an undirected edge is listed once) or what a third column
// holds, so that comes from the .properties or from the caller, never
// from a guess.

// LDBCFiles are the files of an LDBC graph.
type LDBCFiles struct {
	Vertices, Edges string
	// Properties is the .properties file, or "" when there is none.
	Properties string
}

// FindLDBCFiles finds the files of the LDBC graph that path names: its
// vertex file (NAME.v), its edge file (NAME.e), its NAME.properties, or
// NAME itself; any of the first two may be gzipped (NAME.v.gz). The
// .properties' vertex-file and edge-file keys, when present, name the
// files that path does not.
func FindLDBCFiles(path string) (LDBCFiles, error) {
	var f LDBCFiles
	base := strings.TrimSuffix(path, filepath.Ext(path))
	if strings.EqualFold(filepath.Ext(path), ".gz") {
		base = strings.TrimSuffix(base, filepath.Ext(base))
	}
	switch extOf(path) {
	case ".v":
		f.Vertices = path
	case ".e":
		f.Edges = path
	case ".properties":
		f.Properties = path
	default:
		base = path
	}
	if base != path {
		if _, err := os.Stat(path); err != nil {
			return f, err
		}
	}
	if f.Properties == "" && exists(base+".properties") {
		f.Properties = base + ".properties"
	}
	var props *LDBCProperties
	if f.Properties != "" {
		var err error
		if props, err = ReadLDBCProperties(f.Properties); err != nil {
			return f, err
		}
	}
	find := func(file *string, key, ext, what string) error {
		if *file != "" {
			return nil
		}
		if props != nil {
			if name, ok := props.Get(key); ok {
				p := name
				if !filepath.IsAbs(p) {
					p = filepath.Join(filepath.Dir(f.Properties), name)
				}
				if !exists(p) {
					return fmt.Errorf("%s:%d: %s: the %s file %s does not exist", f.Properties, props.lines[key], props.Key(key), what, p)
				}
				*file = p
				return nil
			}
		}
		for _, p := range []string{base + ext, base + ext + ".gz"} {
			if exists(p) {
				*file = p
				return nil
			}
		}
		return fmt.Errorf("%s%s: no such file; an LDBC graph is a vertex file NAME.v (one id per line) and an edge file NAME.e (\"src dst [weight]\") side by side (a plain edge list named .e: Input.Format edgelist)", base, ext)
	}
	if err := find(&f.Vertices, "vertex-file", ".v", "vertex"); err != nil {
		return f, err
	}
	return f, find(&f.Edges, "edge-file", ".e", "edge")
}

func exists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir()
}

// InputFiles returns the files that loading path may read: path, and the
// files of the LDBC graph it names, if it names one.
func InputFiles(path string) []string {
	files := []string{path}
	if f, err := FindLDBCFiles(path); err == nil {
		for _, p := range []string{f.Vertices, f.Edges, f.Properties} {
			if p != "" && p != path {
				files = append(files, p)
			}
		}
	}
	return files
}

// weightedness is what is known of an edge file's third column.
type weightedness struct {
	weighted bool
	why      string // for messages: where the answer came from
	unknown  bool   // nobody said: two columns are read, a third is an error asking
}

// ldbcShape decides directedness and weights from the caller's Input
// first, then the .properties.
func ldbcShape(in Input, props *LDBCProperties, what string) (bool, weightedness, error) {
	var directed bool
	switch {
	case in.Directed != FromFile:
		directed = in.Directed == OverrideYes
	case props != nil:
		d, ok, err := props.Bool("directed")
		if err != nil {
			return false, weightedness{}, err
		}
		if !ok {
			return false, weightedness{}, fmt.Errorf("%s: no %s: say whether %s is directed (Input.Directed)", props.File, props.Key("directed"), what)
		}
		directed = d
	default:
		return false, weightedness{}, fmt.Errorf("%s: LDBC files do not say whether the graph is directed (an undirected edge is listed once): say it with Input.Directed, or put its NAME.properties (graph.NAME.directed = true|false) beside it", what)
	}
	var w weightedness
	switch {
	case in.Weighted != FromFile:
		w.weighted = in.Weighted == OverrideYes
		w.why = "as Input.Weighted says"
		if !w.weighted {
			w.why = "as Input.Weighted says (unweighted)"
		}
	case props != nil:
		names := props.list("edge-properties.names")
		types := props.list("edge-properties.types")
		w.why = fmt.Sprintf("as %s declares no edge property", props.File)
		switch {
		case len(names) > 1:
			return false, w, props.errorf("edge-properties.names", "expected at most one edge property (the weight), found %d", len(names))
		case len(names) == 1:
			if wp, ok := props.Get("sssp.weight-property"); ok && wp != names[0] {
				return false, w, props.errorf("sssp.weight-property", "expected the edge property %q, found %q", names[0], wp)
			}
			if len(types) > 0 && !slices.Contains([]string{"real", "double", "float", "int", "integer", "long"}, strings.ToLower(types[0])) {
				return false, w, props.errorf("edge-properties.types", "expected a numeric type (real, int) for the weight %q, found %q", names[0], types[0])
			}
			w.weighted = true
			w.why = fmt.Sprintf("as %s declares the edge property %q", props.File, names[0])
		}
	default:
		w.unknown = true
	}
	return directed, w, nil
}

// loadLDBC reads the LDBC graph that path names (format FormatLDBC) or
// the adjacency list at path (FormatLDBCAdjacency).
func loadLDBC(path string, format Format, in Input, options []LoadOption) (*EdgeList, error) {
	if format == FormatLDBCAdjacency {
		if in.Weighted == OverrideYes {
			return nil, fmt.Errorf("%s: LDBC adjacency lists carry no weights (Input.Weighted)", path)
		}
		if in.Directed == FromFile {
			return nil, fmt.Errorf("%s: an LDBC adjacency list does not say whether the graph is directed: say it with Input.Directed", path)
		}
		f, err := openInput(path, options)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		el, err := readLDBCAdjacency(source{r: f.r, name: path, size: f.size}, in.Directed == OverrideYes)
		if err == nil {
			f.finish()
		}
		return el, err
	}
	files, err := FindLDBCFiles(path)
	if err != nil {
		return nil, err
	}
	var props *LDBCProperties
	if files.Properties != "" {
		if props, err = ReadLDBCProperties(files.Properties); err != nil {
			return nil, err
		}
	}
	directed, w, err := ldbcShape(in, props, files.Edges)
	if err != nil {
		return nil, err
	}
	vf, err := openInput(files.Vertices, nil)
	if err != nil {
		return nil, err
	}
	defer vf.Close()
	ef, err := openInput(files.Edges, options)
	if err != nil {
		return nil, err
	}
	defer ef.Close()
	reopen := func() (io.ReadCloser, error) { return Open(files.Edges) }
	el, err := readLDBC(source{r: vf.r, name: files.Vertices, size: vf.size}, source{r: ef.r, name: files.Edges, size: ef.size}, reopen, directed, w)
	if err != nil {
		return nil, err
	}
	if err := checkLDBCMeta(props, el, files); err != nil {
		return nil, err
	}
	ef.finish()
	return el, nil
}

// checkLDBCMeta checks the counts a .properties declares (meta.vertices,
// meta.edges) against the files: a truncated file is an error.
func checkLDBCMeta(props *LDBCProperties, el *EdgeList, files LDBCFiles) error {
	if props == nil {
		return nil
	}
	for _, c := range []struct {
		key   string
		found int64
		file  string
	}{{"meta.vertices", int64(el.N), files.Vertices + " lists"}, {"meta.edges", int64(len(el.Src)), files.Edges + " has"}} {
		n, ok, err := props.Int(c.key)
		if err != nil {
			return err
		}
		if ok && n != c.found {
			return props.errorf(c.key, "declares %d, but %s %d (a truncated or foreign file?)", n, c.file, c.found)
		}
	}
	return nil
}

// readLDBC reads an LDBC vertex file and edge file. reopen opens the
// edge file again, to find the line of an edge whose id is not a vertex.
func readLDBC(vsrc, esrc source, reopen func() (io.ReadCloser, error), directed bool, w weightedness) (*EdgeList, error) {
	ids, err := readVertexFile(vsrc)
	if err != nil {
		return nil, err
	}
	f := &entryFormat{sep: spaces, comment: [2]byte{'#', '#'}, minID: 0, maxID: math.MaxInt64}
	switch {
	case w.weighted:
		f.value = realValue
		f.want = fmt.Sprintf(`"src dst weight": 2 vertex ids and a weight (%s)`, w.why)
	case w.unknown:
		f.want = `"src dst" (2 vertex ids; a third column is read as the weight only when Input.Weighted or the graph's NAME.properties says so)`
	default:
		f.want = fmt.Sprintf(`"src dst": 2 vertex ids and no weight (%s)`, w.why)
	}
	lo, hi := ids[0], ids[len(ids)-1]
	dense := uint64(hi-lo) == uint64(len(ids)-1)
	if dense {
		// Ids lo..hi: the parser checks and stores them as vertices.
		f.minID, f.maxID = lo, hi
		f.ids = fmt.Sprintf("ids of vertices listed in %s (%d..%d)", vsrc.name, lo, hi)
	} else {
		f.ids = fmt.Sprintf("non-negative integer ids up to %d", int64(math.MaxInt64))
	}
	lr := newLineReader(esrc)
	defer lr.close()
	e, err := parseEntries(lr, f, entryLimit{n: -1}, esrc.size)
	if err != nil {
		return nil, err
	}
	el := &EdgeList{N: len(ids), Directed: directed, Name: esrc.name}
	if w.weighted {
		el.W = e.w
		if el.W == nil {
			el.W = []float32{}
		}
	}
	if dense {
		el.Src, el.Dst, el.IDBase = e.src.narrow, e.dst.narrow, lo
		if el.Src == nil {
			el.Src, el.Dst = []int32{}, []int32{}
		}
		return el, nil
	}
	el.IDs = ids
	var missing int
	el.Src, el.Dst, missing = vertexIndices(e, ids)
	if missing >= 0 {
		return nil, unknownEdgeID(esrc.name, vsrc.name, reopen, f, missing)
	}
	return el, nil
}

// unknownEdgeID is the error for edge number k (0-based, in file order),
// which has an id that the vertex file does not list: the edge file is
// read again to find its line.
func unknownEdgeID(ename, vname string, reopen func() (io.ReadCloser, error), f *entryFormat, k int) error {
	r, err := reopen()
	if err != nil {
		return fmt.Errorf("%s: edge %d has an id that %s does not list", ename, k+1, vname)
	}
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxBlock())
	var n int64
	for sc.Scan() {
		n++
		if f.skippable(sc.Bytes()) {
			continue
		}
		if k == 0 {
			return &ParseError{File: ename, Line: n, Msg: fmt.Sprintf("expected ids of vertices listed in %s, found %s", vname, found(sc.Bytes()))}
		}
		k--
	}
	return fmt.Errorf("%s: edge %d has an id that %s does not list", ename, k+1, vname)
}

// vertexIndices maps the ids of e to their index in the sorted ids, and
// returns the index of the first entry with an id not among them (-1 when
// none). A rank over a bitmap of the id range serves ids not too sparse;
// a binary search the rest.
func vertexIndices(e *entries, ids []int64) (src, dst []int32, missing int) {
	lo, hi := ids[0], ids[len(ids)-1]
	span := uint64(hi-lo) + 1
	var words []uint64
	var rank []int64
	if span <= 64*uint64(len(ids)+e.n)+1<<16 {
		words = make([]uint64, (span+63)/64)
		for _, id := range ids {
			k := uint64(id - lo)
			words[k/64] |= 1 << (k % 64)
		}
		rank = make([]int64, len(words))
		var n int64
		for k, w := range words {
			rank[k] = n
			n += int64(bits.OnesCount64(w))
		}
	}
	index := func(x int64) int32 {
		if x < lo || x > hi {
			return -1
		}
		if words != nil {
			k := uint64(x - lo)
			if words[k/64]&(1<<(k%64)) == 0 {
				return -1
			}
			return int32(rank[k/64] + int64(bits.OnesCount64(words[k/64]&(1<<(k%64)-1))))
		}
		i, ok := slices.BinarySearch(ids, x)
		if !ok {
			return -1
		}
		return int32(i)
	}
	firstBad := make([]int, par.Workers())
	mapColumn := func(c *idColumn) []int32 {
		out := make([]int32, e.n)
		par.Blocks(e.n, func(w, a, b int) {
			for i := a; i < b; i++ {
				x := c.at(i)
				if out[i] = index(x); out[i] < 0 && firstBad[w] < 0 {
					firstBad[w] = i
				}
			}
		})
		return out
	}
	for w := range firstBad {
		firstBad[w] = -1
	}
	src = mapColumn(&e.src)
	dst = mapColumn(&e.dst)
	missing = -1
	for _, i := range firstBad {
		if i >= 0 && (missing < 0 || i < missing) {
			missing = i
		}
	}
	return src, dst, missing
}

// readVertexFile reads an LDBC vertex file: one non-negative integer id
// per line ('#' comments and blank lines skipped), no id twice. It
// returns the ids sorted.
func readVertexFile(src source) ([]int64, error) {
	lr := newLineReader(src)
	defer lr.close()
	var ids, lines []int64
	err := lr.eachContent(func(t []byte, n int64) error {
		x, end := parseUint(t, 0)
		if end != len(t) || x < 0 {
			return lr.errorf(n, "expected one vertex id per line (a non-negative integer up to %d), found %s", int64(math.MaxInt64), found(t))
		}
		if lines == nil && n != int64(len(ids))+1 {
			// A line was skipped: keep every id's line from here on.
			lines = make([]int64, len(ids), cap(ids))
			for i := range lines {
				lines[i] = int64(i) + 1
			}
		}
		if lines != nil {
			lines = append(lines, n)
		}
		ids = append(ids, x)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, &ParseError{File: src.name, Line: lr.lastLine(), Msg: "expected vertex ids, one per line, found none", Err: ErrEmptyGraph}
	}
	if len(ids) > math.MaxInt32 {
		return nil, fmt.Errorf("%s: %d vertices, at most %d are supported", src.name, len(ids), math.MaxInt32)
	}
	lineOf := func(i int) int64 {
		if lines != nil {
			return lines[i]
		}
		return int64(i) + 1
	}
	if slices.IsSorted(ids) {
		for i := 1; i < len(ids); i++ {
			if ids[i] == ids[i-1] {
				return nil, lr.errorf(lineOf(i), "expected each vertex once, found id %d again (first on line %d)", ids[i], lineOf(i-1))
			}
		}
		return ids, nil
	}
	sorted := sortedUnique(slices.Clone(ids))
	if len(sorted) == len(ids) {
		return sorted, nil
	}
	first := make(map[int64]int, len(ids))
	for i, x := range ids {
		if j, ok := first[x]; ok {
			return nil, lr.errorf(lineOf(i), "expected each vertex once, found id %d again (first on line %d)", x, lineOf(j))
		}
		first[x] = i
	}
	return sorted, nil
}

// WriteLDBC writes g as an LDBC graph named name: its vertex file (the
// original ids, increasing), its edge file ("src dst [weight]": every arc
// of a directed graph, each edge of an undirected graph once) and its
// .properties (directedness, the weight property, the counts), so that
// loading the files gives g back. Weights are written so that they read
// back exactly.
func WriteLDBC(vw, ew, pw io.Writer, g *Graph, name string) error {
	vbuf := make([]byte, 0, 1<<16)
	ids := make([]int64, g.N)
	for v := range ids {
		ids[v] = g.OriginalID(int32(v))
	}
	slices.Sort(ids)
	for _, id := range ids {
		vbuf = appendInt(vbuf, id, '\n')
		if len(vbuf) >= 1<<16-32 {
			if _, err := vw.Write(vbuf); err != nil {
				return err
			}
			vbuf = vbuf[:0]
		}
	}
	if _, err := vw.Write(vbuf); err != nil {
		return err
	}
	edges := g.NNZ()
	if !g.Directed {
		edges = upperTriangle(g)
	}
	err := writeEdgeRows(ew, g)

	if err != nil {
		return err
	}
	var p strings.Builder
	key := func(k string, v any) { fmt.Fprintf(&p, "graph.%s.%s = %v\n", name, k, v) }
	fmt.Fprintf(&p, "# %s, written by hpgraph\n", oneLine(g.Name))
	key("meta.vertices", g.N)
	key("meta.edges", edges)
	key("directed", g.Directed)
	if g.W != nil {
		key("edge-properties.names", "weight")
		key("edge-properties.types", "real")
		key("sssp.weight-property", "weight")
	}
	_, err = io.WriteString(pw, p.String())
	return err
}
