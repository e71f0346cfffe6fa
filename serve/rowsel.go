package serve

import (
	"cmp"
	"context"
	"encoding/binary"
	"math"
	"net/http"
	"slices"
	"strings"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/datasets"
)

// What a per-vertex answer carries (RunRequest's columns and
// reached_only), and the groups output: a client that builds objects
// from the answer (the Python package's dicts and sets) is sent only the
// rows and columns it builds them from, in the shape it builds them in.

// selection resolves req's columns and reached_only for q's app into q.
func (req *RunRequest) selection(q *query) *apiError {
	app := q.app
	if q.output == "summary" {
		if req.Columns != nil {
			return badField("columns", "a per-vertex output's (ndjson, csv, binary or groups); a summary has no columns")
		}
		if req.ReachedOnly {
			return badField("reached_only", "a per-vertex output's (ndjson, csv, binary or groups); a summary has no rows")
		}
		return nil
	}
	switch {
	case req.Columns == nil && q.output == "groups":
		q.cols = []int{0}
	case req.Columns == nil:
		q.cols = make([]int, len(app.Columns))
		for c := range q.cols {
			q.cols[c] = c
		}
	case len(req.Columns) == 0:
		return badField("columns", "empty: name one or more of %s's columns (%s)", app.Name, strings.Join(app.Columns, ", "))
	default:
		for _, name := range req.Columns {
			c := slices.Index(app.Columns, name)
			if c < 0 {
				return badField("columns", "%q is not a column of %s (it has %s)", name, app.Name, strings.Join(app.Columns, ", "))
			}
			if slices.Contains(q.cols, c) {
				return badField("columns", "%q named twice", name)
			}
			q.cols = append(q.cols, c)
		}
	}
	if q.output == "groups" && len(q.cols) != 1 {
		return badField("columns", "output groups groups the vertices by one column; %d named", len(q.cols))
	}
	if req.ReachedOnly {
		if !app.Source {
			return badField("reached_only", "%s runs from no source: every vertex is in its answer (bfs and sssp take reached_only)", app.Name)
		}
		q.reachedOnly = true
	}
	return nil
}

// columnNames are the names of q's columns, in the order it writes them.
func (q *query) columnNames() []string {
	names := make([]string, len(q.cols))
	for i, c := range q.cols {
		names[i] = q.app.Columns[c]
	}
	return names
}

// skip says whether q leaves out a vertex whose row is cells (all its
// app's columns): with reached_only, one its source did not reach, whose
// first column (bfs's depth, sssp's dist) is -1 or +Inf.
func (q *query) skip(cells []apps.Cell) bool {
	if !q.reachedOnly {
		return false
	}
	c := cells[0]
	if c.IsFloat {
		return math.IsInf(c.Float, 1) || math.IsNaN(c.Float)
	}
	return c.Int < 0
}

// eachRow calls f with each vertex of q's answer by ascending id and its
// row (every column of q's app); it stops at f's error, or ctx's.
func eachRow(ctx context.Context, d *datasets.Graph, q *query, row func(v int32, cells []apps.Cell), f func(v int32, cells []apps.Cell) error) error {
	cells := make([]apps.Cell, len(q.app.Columns))
	for i, v := range idOrder(d) {
		if i&0xffff == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		row(v, cells)
		if q.skip(cells) {
			continue
		}
		if err := f(v, cells); err != nil {
			return err
		}
	}
	return nil
}

// idOrder lists d's vertices by ascending id.
func idOrder(d *datasets.Graph) []int32 {
	n := d.N
	order := make([]int32, n)
	if lo, ok := contiguousIDs(d); ok {
		for v := int32(0); v < int32(n); v++ {
			order[d.OriginalID(v)-lo] = v
		}
		return order
	}
	for v := range order {
		order[v] = int32(v)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(d.OriginalID(a), d.OriginalID(b)) })
	return order
}

// The groups output (output "groups", application/octet-stream): the
// vertices of the answer grouped by their value of one integer column
// (columns names it; default the app's first: cc's component, bfs's
// depth), the groups in the order of their smallest ids, each group's
// ids ascending. All little-endian:
//
//	offset  size      contents
//	0       8         magic "HPGGRPS\x00"
//	8       4         format version (groupsVersion)
//	12      4         zero
//	16      8         N, the number of vertices grouped (with reached_only, those reached)
//	24      8         G, the number of groups
//	32      8G        each group's value (int64)
//	        8(G+1)    offsets: group g's ids are ids[offsets[g]:offsets[g+1]]
//	        8N        the ids (int64), group by group
const (
	groupsMagic   = "HPGGRPS\x00"
	groupsVersion = 1
)

// groupsBytes is the size of a groups answer of at most n vertices.
func groupsBytes(n int64) int64 { return 40 + 24*n }

// writeGroups writes lg's per-vertex answer as groups, status and all.
func writeGroups(w http.ResponseWriter, lg *loadedGraph, q *query, row func(v int32, cells []apps.Cell), ctx context.Context) error {
	d := lg.d
	c := q.cols[0]
	ids := make([]int64, 0, d.N)
	vals := make([]int64, 0, d.N)
	err := eachRow(ctx, d, q, row, func(v int32, cells []apps.Cell) error {
		if cells[c].IsFloat {
			e := badField("columns", "output groups: %s's column %s is not of integers", q.app.Name, q.app.Columns[c])
			writeError(w, e)
			return e
		}
		ids = append(ids, d.OriginalID(v))
		vals = append(vals, cells[c].Int)
		return nil
	})
	if err != nil {
		return err
	}
	values, group := groupValues(vals)
	offsets := make([]int64, len(values)+1)
	for _, g := range group {
		offsets[g+1]++
	}
	for g := range values {
		offsets[g+1] += offsets[g]
	}
	le := binary.LittleEndian
	g := len(values)
	out := make([]byte, 32+8*(2*g+1+len(ids)))
	copy(out, groupsMagic)
	le.PutUint32(out[8:], groupsVersion)
	le.PutUint64(out[16:], uint64(len(ids)))
	le.PutUint64(out[24:], uint64(g))
	for k, x := range values {
		le.PutUint64(out[32+8*k:], uint64(x))
	}
	for k, x := range offsets {
		le.PutUint64(out[32+8*(g+k):], uint64(x))
	}
	// each id at its group's next place
	members, next := out[32+8*(2*g+1):], offsets[:g]
	for i, k := range group {
		le.PutUint64(members[8*next[k]:], uint64(ids[i]))
		next[k]++
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(out)
	return err
}

// groupValues numbers the distinct values of vals in the order they
// first appear: values lists them, group[i] is vals[i]'s number. Values
// within a few times len(vals) of each other (cc's labels, depths) go
// through a table, others through a map.
func groupValues(vals []int64) (values []int64, group []int32) {
	group = make([]int32, len(vals))
	if len(vals) == 0 {
		return nil, group
	}
	lo, hi := slices.Min(vals), slices.Max(vals)
	if span := uint64(hi) - uint64(lo); span < 2*uint64(len(vals))+64 {
		table := make([]int32, span+1) // a value's number + 1; 0: not seen yet
		for i, x := range vals {
			k := &table[x-lo]
			if *k == 0 {
				values = append(values, x)
				*k = int32(len(values))
			}
			group[i] = *k - 1
		}
		return values, group
	}
	seen := map[int64]int32{}
	for i, x := range vals {
		k, ok := seen[x]
		if !ok {
			k = int32(len(values))
			values = append(values, x)
			seen[x] = k
		}
		group[i] = k
	}
	return values, group
}
