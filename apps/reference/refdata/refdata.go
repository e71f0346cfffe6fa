// Package refdata reads the independent answers shipped beside the project
// in shared/datasets/reference (see shared/datasets/README.md), for tests:
// the computed statistics of every test graph, LAGraph's own test values
// and the LDBC Graphalytics example graphs with their expected outputs.
//
// The shared directory is optional: tests call Dir (or File) first and
// skip when it is absent, so the project's tests pass for a user who cloned
// only the project.
package refdata

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hpgraph/hpgraph/datasets"
)

// Dir returns the shared datasets directory and whether it exists. It looks
// for shared/datasets in the working directory and each of its parents, so
// a test finds it from any package depth, whether shared/ sits beside the
// repository root or inside it.
func Dir() (string, bool) {
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for dir := wd; ; {
		candidate := filepath.Join(dir, "shared", "datasets")
		if fi, err := os.Stat(candidate); err == nil && fi.IsDir() {
			return candidate, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// File returns the path of a file under the shared datasets directory, by
// its path relative to it (as in computed_stats.tsv, "tiny/karate.mtx"),
// and whether it exists.
func File(rel string) (string, bool) {
	dir, ok := Dir()
	if !ok {
		return "", false
	}
	p := filepath.Join(dir, filepath.FromSlash(rel))
	_, err := os.Stat(p)
	return p, err == nil
}

// FindGraph locates a graph file named as in LAGraph's tests ("karate.mtx",
// "bcsstk13.mtx") under tiny/ or small/, also as a gzipped copy, and
// returns its path relative to the datasets directory (for Stats keys and
// File) and whether it was found.
func FindGraph(name string) (string, bool) {
	for _, sub := range []string{"tiny", "small"} {
		for _, suffix := range []string{"", ".gz"} {
			rel := sub + "/" + name + suffix
			if _, ok := File(rel); ok {
				return rel, true
			}
		}
	}
	return "", false
}

// StatsRow is one line of reference/computed_stats.tsv, computed on the
// undirected simple graph (self loops, duplicate and reverse arcs removed).
// Ids are the file's own (1-based for Matrix Market). Components are
// counted over the whole id range [MinID, MaxID], every unused id being a
// singleton; for a graph with N vertices that include every used id, the
// count over those N vertices is ComponentsInRange - (MaxID-MinID+1) + N.
type StatsRow struct {
	File                string // path relative to the datasets directory
	MinID, MaxID        int64
	IDsPresent          int64 // ids that occur in some entry
	Entries             int64 // entries (lines) in the file
	SelfLoops           int64
	DupArcs             int64
	DistinctArcs        int64
	ReciprocatedArcs    int64
	UndirectedEdges     int64 // edges of the undirected simple graph
	ComponentsInRange   int64
	LargestComponent    int64 // vertices in the largest component
	Triangles           int64
	BFSSrc              int64 // source id, in the file's ids
	BFSReached          int64 // vertices reached, the source included
	BFSDepth            int64 // largest depth reached
	MaxDegreeUndirected int64
}

// Stats parses reference/computed_stats.tsv, keyed by StatsRow.File.
func Stats() (map[string]StatsRow, error) {
	header, rows, err := readTable("reference/computed_stats.tsv")
	if err != nil {
		return nil, err
	}
	out := make(map[string]StatsRow, len(rows))
	for _, r := range rows {
		var s StatsRow
		p := fieldParser{row: r, header: header}
		s.File = p.str("file")
		s.MinID = p.int("min_id")
		s.MaxID = p.int("max_id")
		s.IDsPresent = p.int("ids_present")
		s.Entries = p.int("entries")
		s.SelfLoops = p.int("self_loops")
		s.DupArcs = p.int("dup_arcs")
		s.DistinctArcs = p.int("distinct_arcs")
		s.ReciprocatedArcs = p.int("reciprocated_arcs")
		s.UndirectedEdges = p.int("undirected_edges")
		s.ComponentsInRange = p.int("components_in_range")
		s.LargestComponent = p.int("largest_component")
		s.Triangles = p.int("triangles")
		s.BFSSrc = p.int("bfs_src")
		s.BFSReached = p.int("bfs_reached")
		s.BFSDepth = p.int("bfs_depth")
		s.MaxDegreeUndirected = p.int("max_degree_undirected")
		if p.err != nil {
			return nil, p.err
		}
		out[s.File] = s
	}
	return out, nil
}

// LAGraphTriangles returns the triangle counts of LAGraph's tests
// (reference/lagraph/triangle_counts.tsv), keyed by file name as LAGraph
// names it ("karate.mtx"; locate it with FindGraph).
func LAGraphTriangles() (map[string]int64, error) {
	return readCounts("reference/lagraph/triangle_counts.tsv", "triangles")
}

// LAGraphComponents returns the connected-component counts of LAGraph's
// tests (reference/lagraph/connected_components.tsv), keyed like
// LAGraphTriangles. LAGraph counts over all n vertices of the Matrix
// Market file, isolated ones included.
func LAGraphComponents() (map[string]int64, error) {
	return readCounts("reference/lagraph/connected_components.tsv", "ncomponents")
}

// LAGraphPageRank returns the PageRank vector of LAGraph's test on the
// named graph ("karate.mtx", "west0067.mtx", "ldbc-directed-example.mtx"),
// indexed by 0-based vertex (file row i is vertex i-1). It is MATLAB's
// centrality('pagerank') with damping 0.85 run to convergence: the rank of
// dangling vertices is spread over all vertices, as in the LDBC variant.
func LAGraphPageRank(name string) ([]float64, error) {
	lines, err := readLines("reference/lagraph/pagerank_" + strings.TrimSuffix(name, ".mtx") + ".txt")
	if err != nil {
		return nil, err
	}
	pr := make([]float64, 0, len(lines))
	for _, l := range lines {
		if len(l.fields) != 2 || l.fields[0] != strconv.Itoa(len(pr)) {
			return nil, l.errorf("want \"vertex rank\" for vertex %d", len(pr))
		}
		r, err := parseFloat(l.fields[1])
		if err != nil {
			return nil, l.errorf("bad rank: %v", err)
		}
		pr = append(pr, r)
	}
	return pr, nil
}

// KarateBFS is LAGraph's BFS test on karate.mtx, in 0-based vertex indices
// (file row i is vertex i-1).
type KarateBFS struct {
	Source int32
	// Levels[v] is the depth of v, 0 at the source.
	Levels []int32
	// Parents[v] lists every valid BFS parent of v; the source's is itself.
	Parents [][]int32
}

// LAGraphKarateBFS reads reference/lagraph/bfs_karate_src30_levels.txt and
// bfs_karate_src30_valid_parents.txt.
func LAGraphKarateBFS() (KarateBFS, error) {
	const source = 30 // as in the file names
	k := KarateBFS{Source: source}
	levels, err := readLines("reference/lagraph/bfs_karate_src30_levels.txt")
	if err != nil {
		return k, err
	}
	for _, l := range levels {
		f, err := parseInts(l.fields, 2, 2)
		if err != nil || f[0] != int64(len(k.Levels)) {
			return k, l.errorf("want \"vertex level\" for vertex %d", len(k.Levels))
		}
		k.Levels = append(k.Levels, int32(f[1]))
	}
	parents, err := readLines("reference/lagraph/bfs_karate_src30_valid_parents.txt")
	if err != nil {
		return k, err
	}
	for _, l := range parents {
		f, err := parseInts(l.fields, 2, -1)
		if err != nil || f[0] != int64(len(k.Parents)) {
			return k, l.errorf("want \"vertex parent...\" for vertex %d", len(k.Parents))
		}
		ps := make([]int32, 0, len(f)-1)
		for _, p := range f[1:] {
			ps = append(ps, int32(p))
		}
		k.Parents = append(k.Parents, ps)
	}
	if len(k.Levels) != len(k.Parents) || int(source) >= len(k.Levels) {
		return k, fmt.Errorf("karate bfs reference: %d levels, %d parent sets", len(k.Levels), len(k.Parents))
	}
	return k, nil
}

// LDBCExamples are the names of the LDBC Graphalytics example graphs.
var LDBCExamples = []string{"example-directed", "example-undirected"}

// LDBCUnreachable is the depth LDBC's BFS output gives an unreachable
// vertex (the largest int64).
const LDBCUnreachable = math.MaxInt64

// LDBCParams are the algorithm parameters of an LDBC example run. They are
// not shipped with the outputs; these are the values of the LDBC
// Graphalytics example configuration (graph.example-*.bfs.source-vertex,
// sssp.source-vertex, pr.damping-factor, pr.num-iterations,
// cdlp.max-iterations), and the shipped outputs are reproduced with them.
type LDBCParams struct {
	BFSSource, SSSPSource int64 // in the graph's own ids
	Damping               float64
	PRIterations          int
	CDLPIterations        int
}

// LDBCExampleParams returns the parameters of the named example.
func LDBCExampleParams(name string) (LDBCParams, error) {
	switch name {
	case "example-directed":
		return LDBCParams{BFSSource: 1, SSSPSource: 1, Damping: 0.85, PRIterations: 2, CDLPIterations: 2}, nil
	case "example-undirected":
		return LDBCParams{BFSSource: 2, SSSPSource: 2, Damping: 0.85, PRIterations: 2, CDLPIterations: 2}, nil
	}
	return LDBCParams{}, fmt.Errorf("no LDBC example named %q", name)
}

func ldbcFile(name, suffix string) string {
	return "reference/ldbc-graphalytics/example/" + name + suffix
}

// LDBCExample reads the LDBC example graph name ("example-directed") from
// its .v (one vertex id per line) and .e ("src dst weight") files. Vertex v
// of the list is the v-th smallest id, and IDs maps it back; the graph is
// undirected exactly when the name says so. Build it with datasets.Build.
func LDBCExample(name string) (*datasets.EdgeList, error) {
	vlines, err := readLines(ldbcFile(name, ".v"))
	if err != nil {
		return nil, err
	}
	ids := make([]int64, 0, len(vlines))
	for _, l := range vlines {
		f, err := parseInts(l.fields, 1, 1)
		if err != nil {
			return nil, l.errorf("want one vertex id")
		}
		ids = append(ids, f[0])
	}
	slices.Sort(ids)
	if len(slices.Compact(slices.Clone(ids))) != len(ids) {
		return nil, fmt.Errorf("%s: repeated vertex id", ldbcFile(name, ".v"))
	}
	index := func(id int64) (int32, bool) {
		i, ok := slices.BinarySearch(ids, id)
		return int32(i), ok
	}

	elines, err := readLines(ldbcFile(name, ".e"))
	if err != nil {
		return nil, err
	}
	el := &datasets.EdgeList{
		N:        len(ids),
		Directed: !strings.Contains(name, "undirected"),
		IDs:      ids,
		Name:     name,
	}
	for _, l := range elines {
		if len(l.fields) != 3 {
			return nil, l.errorf("want \"src dst weight\"")
		}
		e, err := parseInts(l.fields[:2], 2, 2)
		if err != nil {
			return nil, l.errorf("%v", err)
		}
		s, okS := index(e[0])
		d, okD := index(e[1])
		if !okS || !okD {
			return nil, l.errorf("edge %d %d names a vertex not in the .v file", e[0], e[1])
		}
		w, err := strconv.ParseFloat(l.fields[2], 32)
		if err != nil {
			return nil, l.errorf("bad weight: %v", err)
		}
		el.Src = append(el.Src, s)
		el.Dst = append(el.Dst, d)
		el.W = append(el.W, float32(w))
	}
	return el, nil
}

// LDBCOutputBFS returns the expected BFS depths of the example, by vertex
// id; an unreachable vertex has LDBCUnreachable.
func LDBCOutputBFS(name string) (map[int64]int64, error) {
	return readOutput(name, "-BFS", func(s string) (int64, error) { return strconv.ParseInt(s, 10, 64) })
}

// LDBCOutputWCC returns the expected component labels of the example, by
// vertex id: the smallest vertex id of the component.
func LDBCOutputWCC(name string) (map[int64]int64, error) {
	return readOutput(name, "-WCC", func(s string) (int64, error) { return strconv.ParseInt(s, 10, 64) })
}

// LDBCOutputPR returns the expected LDBC PageRank of the example, by vertex
// id (see LDBCExampleParams for damping and iterations).
func LDBCOutputPR(name string) (map[int64]float64, error) {
	return readOutput(name, "-PR", parseFloat)
}

// LDBCOutputSSSP returns the expected shortest-path distances of the
// example, by vertex id; an unreachable vertex ("Infinity") has +Inf.
func LDBCOutputSSSP(name string) (map[int64]float64, error) {
	return readOutput(name, "-SSSP", parseFloat)
}

// LDBCOutputLCC returns the expected local clustering coefficients of the
// example, by vertex id.
func LDBCOutputLCC(name string) (map[int64]float64, error) {
	return readOutput(name, "-LCC", parseFloat)
}

// LDBCOutputCDLP returns the expected community labels of the example, by
// vertex id (see LDBCExampleParams for the iterations).
func LDBCOutputCDLP(name string) (map[int64]int64, error) {
	return readOutput(name, "-CDLP", func(s string) (int64, error) { return strconv.ParseInt(s, 10, 64) })
}

// parseFloat parses a float64; strconv accepts LDBC's "Infinity".
func parseFloat(s string) (float64, error) { return strconv.ParseFloat(s, 64) }

// readOutput reads an LDBC output file of "id value" lines.
func readOutput[T any](name, suffix string, parse func(string) (T, error)) (map[int64]T, error) {
	lines, err := readLines(ldbcFile(name, suffix))
	if err != nil {
		return nil, err
	}
	out := make(map[int64]T, len(lines))
	for _, l := range lines {
		if len(l.fields) != 2 {
			return nil, l.errorf("want \"id value\"")
		}
		id, err := strconv.ParseInt(l.fields[0], 10, 64)
		if err != nil {
			return nil, l.errorf("bad vertex id: %v", err)
		}
		v, err := parse(l.fields[1])
		if err != nil {
			return nil, l.errorf("bad value: %v", err)
		}
		out[id] = v
	}
	return out, nil
}

// line is a non-blank, non-comment line of a reference file, split into
// whitespace-separated fields, with its position for error messages.
type line struct {
	file   string
	num    int
	fields []string
}

func (l line) errorf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", l.file, l.num, fmt.Sprintf(format, args...))
}

// readLines reads a file under the datasets directory, dropping blank lines
// and '#' comments.
func readLines(rel string) ([]line, error) {
	p, ok := File(rel)
	if !ok {
		return nil, fmt.Errorf("reference file %s not found (is shared/datasets present?)", rel)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []line
	sc := bufio.NewScanner(f)
	for num := 1; sc.Scan(); num++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		lines = append(lines, line{file: p, num: num, fields: strings.Fields(text)})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return lines, nil
}

// readTable reads a file whose first line (after comments) names the
// columns; every other line is a row with one field per column.
func readTable(rel string) (header map[string]int, rows []line, err error) {
	lines, err := readLines(rel)
	if err != nil {
		return nil, nil, err
	}
	if len(lines) == 0 {
		return nil, nil, fmt.Errorf("%s: no header line", rel)
	}
	header = make(map[string]int)
	for i, name := range lines[0].fields {
		header[name] = i
	}
	for _, l := range lines[1:] {
		if len(l.fields) != len(header) {
			return nil, nil, l.errorf("%d fields, want %d", len(l.fields), len(header))
		}
	}
	return header, lines[1:], nil
}

// readCounts reads a two-column "file count" table into a map.
func readCounts(rel, column string) (map[string]int64, error) {
	header, rows, err := readTable(rel)
	if err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(rows))
	for _, r := range rows {
		p := fieldParser{row: r, header: header}
		name, n := p.str("file"), p.int(column)
		if p.err != nil {
			return nil, p.err
		}
		out[name] = n
	}
	return out, nil
}

// fieldParser reads named columns of a table row, keeping the first error
// so a caller can read every field and check once.
type fieldParser struct {
	row    line
	header map[string]int
	err    error
}

func (p *fieldParser) str(column string) string {
	i, ok := p.header[column]
	if !ok {
		if p.err == nil {
			p.err = p.row.errorf("table has no column %q", column)
		}
		return ""
	}
	return p.row.fields[i]
}

func (p *fieldParser) int(column string) int64 {
	s := p.str(column)
	if p.err != nil {
		return 0
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		p.err = p.row.errorf("column %s: %v", column, err)
	}
	return n
}

// parseInts parses fields as int64s, requiring at least lo of them and, when
// hi ≥ 0, at most hi.
func parseInts(fields []string, lo, hi int) ([]int64, error) {
	if len(fields) < lo || (hi >= 0 && len(fields) > hi) {
		return nil, fmt.Errorf("%d fields", len(fields))
	}
	out := make([]int64, len(fields))
	for i, f := range fields {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}
