package datasets

import (
	"fmt"
	"slices"

	"github.com/hpgraph/hpgraph/internal/par"
)

// Relabeling is a vertex order Build can renumber a graph into.
type Relabeling int

const (
	// RelabelNone keeps the input's order.
	RelabelNone Relabeling = iota
	// RelabelDegree numbers vertices by decreasing degree (ties keep the
	// input's order): on skewed graphs the few vertices that most arcs
	// point to then sit together, so the values a kernel reads through
	// random column indices share cache lines.
	RelabelDegree
	// RelabelAuto is RelabelDegree for graphs whose degrees are skewed
	// (Skewed), RelabelNone for the rest: a grid or road network keeps
	// its own order, whose neighbours are already near each other.
	RelabelAuto
)

var relabelNames = []string{"none", "degree", "auto"}

func (r Relabeling) String() string {
	if int(r) < len(relabelNames) {
		return relabelNames[r]
	}
	return fmt.Sprintf("Relabeling(%d)", int(r))
}

// ParseRelabeling reads "none", "degree" or "auto".
func ParseRelabeling(s string) (Relabeling, error) {
	if s == "" {
		return RelabelNone, nil
	}
	for i, name := range relabelNames {
		if s == name {
			return Relabeling(i), nil
		}
	}
	return RelabelNone, fmt.Errorf("relabel %q: want none, degree or auto", s)
}

// Skewed reports whether g's out-degrees are skewed enough for
// RelabelAuto to renumber it: at least 8 arcs per vertex on average, and
// the mean degree over 1.3 times the median (GAP's test for relabelling
// before triangle counting, on every vertex instead of a sample).
func Skewed(g *Graph) bool {
	if g.N == 0 || g.NNZ() < 8*int64(g.N) {
		return false
	}
	// The median from a histogram of the degrees up to the mean: the
	// median of a skewed graph lies below it.
	mean := float64(g.NNZ()) / float64(g.N)
	hist := make([]int, int(1.3*mean)+2)
	for v := range g.N {
		hist[min(g.Degree(int32(v)), len(hist)-1)]++
	}
	seen := 0
	for d, c := range hist {
		if seen += c; seen > g.N/2 {
			return mean > 1.3*float64(d) // the (N/2)-th smallest degree is d (or more, in the last bucket)
		}
	}
	return false
}

// Resolve is the order r gives g: RelabelAuto becomes RelabelDegree or
// RelabelNone.
func (r Relabeling) Resolve(g *Graph) Relabeling {
	if r == RelabelAuto {
		if Skewed(g) {
			return RelabelDegree
		}
		return RelabelNone
	}
	return r
}

// Relabel returns g with its vertices renumbered in order r (g itself for
// RelabelNone, or when g is in that order already). Original ids travel
// along (IDs), so output written through OriginalID and sources given in
// the input's ids mean what they meant.
func (g *Graph) Relabel(r Relabeling) *Graph {
	if r.Resolve(g) != RelabelDegree {
		return g
	}
	order := DegreeOrder(g)
	for v, nv := range order {
		if int32(v) != nv {
			return g.Permute(order)
		}
	}
	return g // already in that order
}

// DegreeOrder returns the new id of every vertex when numbered by
// decreasing out-degree, ties by increasing old id (a counting sort).
func DegreeOrder(g *Graph) []int32 {
	maxDeg := 0
	for v := range g.N {
		maxDeg = max(maxDeg, g.Degree(int32(v)))
	}
	// start[d] becomes the first new id of the vertices of degree d.
	start := make([]int64, maxDeg+2)
	for v := range g.N {
		start[maxDeg-g.Degree(int32(v))+1]++
	}
	for d := 1; d < len(start); d++ {
		start[d] += start[d-1]
	}
	newID := make([]int32, g.N)
	for v := range g.N {
		k := maxDeg - g.Degree(int32(v))
		newID[v] = int32(start[k])
		start[k]++
	}
	return newID
}

// Permute returns g with vertex v renumbered newID[v]; newID must be a
// permutation of [0, N). Rows stay sorted, weights follow their arcs, and
// IDs map the new numbers back to the input's ids.
func (g *Graph) Permute(newID []int32) *Graph {
	n := g.N
	old := make([]int32, n) // old[new] = v
	for v, nv := range newID {
		old[nv] = int32(v)
	}
	p := &Graph{Name: g.Name, N: n, RowPtr: make([]int64, n+1), Col: make([]int32, len(g.Col)),
		Directed: g.Directed, IDs: make([]int64, n), Stats: g.Stats}
	if g.W != nil {
		p.W = make([]float32, len(g.W))
	}
	for nv, v := range old {
		p.RowPtr[nv+1] = p.RowPtr[nv] + int64(g.Degree(v))
		p.IDs[nv] = g.OriginalID(v)
	}
	par.Parts(par.Split(n, 4*par.Workers(), func(i int) int64 { return p.RowPtr[i] + int64(i) }), func(_, lo, hi int) {
		var arcs []arc
		for nv := lo; nv < hi; nv++ {
			v := old[nv]
			cols := p.Col[p.RowPtr[nv]:p.RowPtr[nv+1]]
			if g.W == nil {
				for i, u := range g.Neighbors(v) {
					cols[i] = newID[u]
				}
				slices.Sort(cols)
				continue
			}
			arcs = arcs[:0]
			ws := g.Weights(v)
			for i, u := range g.Neighbors(v) {
				arcs = append(arcs, arc{newID[u], ws[i]})
			}
			slices.SortFunc(arcs, func(a, b arc) int { return int(a.to) - int(b.to) })
			w := p.W[p.RowPtr[nv]:p.RowPtr[nv+1]]
			for i, a := range arcs {
				cols[i], w[i] = a.to, a.w
			}
		}
	})
	return p
}

type arc struct {
	to int32
	w  float32
}
