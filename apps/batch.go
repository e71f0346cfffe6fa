package apps

import (
	"math"

	"github.com/hpgraph/hpgraph/vertexprog"
)

// The built-in programs' Update and Wants over lists of vertices
// (vertexprog.ListUpdater, vertexprog.ListFilter) and gathers over blocks
// of rows (vertexprog.BlockGatherer): the CPU engine then makes one call a
// list or a block, not one through the Program interface a vertex, which
// cost more than these Updates and rows themselves. Each does what its
// Update, Wants or GatherRow does, vertex by vertex; vptest checks them
// against those (Options.PerEdge).

// UpdateList is Update over vs.
func (p *BFSProgram) UpdateList(vs []int32, acc []int32, _ []struct{}, s *vertexprog.Step, active []int32) []int32 {
	depth := int32(s.Iteration + 1)
	for _, v := range vs {
		if a := acc[v]; a != noParent {
			p.Depth[v], p.Parent[v] = depth, a
			active = append(active, v)
		}
	}
	return active
}

// WantsList is Wants over vs.
func (p *BFSProgram) WantsList(vs, out []int32) []int32 {
	for _, v := range vs {
		if p.Depth[v] < 0 {
			out = append(out, v)
		}
	}
	return out
}

// UpdateList is Update over vs.
func (p *SSSPProgram) UpdateList(vs []int32, acc []float32, d []float32, _ *vertexprog.Step, active []int32) []int32 {
	for _, v := range vs {
		if a := acc[v]; a < d[v] {
			d[v] = a
			active = append(active, v)
		}
	}
	return active
}

// UpdateList is Update over vs.
func (p *PageRankProgram) UpdateList(vs []int32, acc []float64, x []float64, _ *vertexprog.Step, active []int32) []int32 {
	for _, v := range vs {
		r := (1 - p.Damping) + p.Damping*acc[v]
		if math.Abs(r-p.Rank[v]) > p.Tolerance {
			active = append(active, v)
		}
		p.Rank[v] = r
		x[v] = share(r, p.outDeg[v])
	}
	return active
}

// UpdateList is Update over vs.
func (p *PageRankLDBCProgram[F]) UpdateList(vs []int32, acc []F, x []F, s *vertexprog.Step, active []int32) []int32 {
	// (the terms that do not depend on v computed once: r is the same
	// sum, in the same order, as Update's)
	d := p.Damping
	teleport, spread := (1-d)/p.n, d/p.n*s.Aggregate(0)
	for _, v := range vs {
		deg := p.outDeg[v]
		r := teleport + d*float64(acc[v]) + spread
		p.Rank[v] = r
		if deg == 0 {
			s.Add(0, r)
		}
		x[v] = F(share(r, deg))
	}
	return append(active, vs...)
}

// UpdateList is Update over vs.
func (CCProgram) UpdateList(vs []int32, acc []int32, l []int32, _ *vertexprog.Step, active []int32) []int32 {
	for _, v := range vs {
		if a := acc[v]; a < l[v] {
			l[v] = a
			active = append(active, v)
		}
	}
	return active
}

// GatherBlock is GatherRow from id over each row of [lo, hi).
func (p *PageRankProgram) GatherBlock(lo, hi int32, ptr []int64, col []int32, _ []float32, x []float64, y []float64, id float64) {
	for v := lo; v < hi; v++ {
		y[v] = sumOver(id, col[ptr[v]:ptr[v+1]], x)
	}
}

// GatherBlock is GatherRow from id over each row of [lo, hi).
func (p *PageRankLDBCProgram[F]) GatherBlock(lo, hi int32, ptr []int64, col []int32, _ []float32, x []F, y []F, id F) {
	for v := lo; v < hi; v++ {
		sum := float64(id)
		for _, u := range col[ptr[v]:ptr[v+1]] {
			sum += float64(x[u])
		}
		y[v] = F(sum)
	}
}

// GatherBlock is GatherRow from id over each row of [lo, hi).
func (p *SSSPProgram) GatherBlock(lo, hi int32, ptr []int64, col []int32, w []float32, d []float32, y []float32, id float32) {
	for v := lo; v < hi; v++ {
		a, b := ptr[v], ptr[v+1]
		var ws []float32
		if w != nil {
			ws = w[a:b]
		}
		y[v] = p.GatherRow(id, v, col[a:b], ws, d)
	}
}

// ReduceOp and Contributions give Gather as min(acc, u)
// (vertexprog.Contributor).
func (p *BFSProgram) ReduceOp() vertexprog.Aggregator { return vertexprog.Min }

// Contributions is u for every edge.
func (p *BFSProgram) Contributions(u int32, _ struct{}, _ []float32, out []int32) {
	for i := range out {
		out[i] = u
	}
}

// ReduceOp and Contributions give Gather as min(acc, du+w)
// (vertexprog.Contributor).
func (p *SSSPProgram) ReduceOp() vertexprog.Aggregator { return vertexprog.Min }

// Contributions is du+w for each edge.
func (p *SSSPProgram) Contributions(_ int32, du float32, w []float32, out []float32) {
	if w == nil {
		for i := range out {
			out[i] = du + 1
		}
		return
	}
	w = w[:len(out)]
	for i := range out {
		out[i] = du + w[i]
	}
}

// ReduceOp and Contributions give Gather as min(acc, xu)
// (vertexprog.Contributor).
func (CCProgram) ReduceOp() vertexprog.Aggregator { return vertexprog.Min }

// Contributions is the source's label for every edge.
func (CCProgram) Contributions(_ int32, xu int32, _ []float32, out []int32) {
	for i := range out {
		out[i] = xu
	}
}

// GatherBlock is Gather over each row of [lo, hi): one call a block, not
// one an edge (a grid's triangle count is all calls: its lists are
// short).
func (p *TriangleProgram) GatherBlock(lo, hi int32, ptr []int64, col []int32, _ []float32, x []struct{}, y []int64, id int64) {
	for v := lo; v < hi; v++ {
		acc := id
		for _, u := range col[ptr[v]:ptr[v+1]] {
			acc = p.Gather(acc, v, u, struct{}{}, 1)
		}
		y[v] = acc
	}
}

// UpdateList is Update over vs.
func (p *TriangleProgram) UpdateList(vs []int32, acc []int64, _ []struct{}, _ *vertexprog.Step, active []int32) []int32 {
	for _, v := range vs {
		a := acc[v]
		if p.PerVertex {
			a /= 2
		}
		p.Count[v] = a
	}
	return active
}
