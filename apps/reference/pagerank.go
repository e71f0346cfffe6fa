package reference

import (
	"math"

	"github.com/hpgraph/hpgraph/datasets"
)

// PageRank is the paper's (`hpgraph`) PageRank: PR₀(v) = 1 and, in every
// iteration, for all vertices from the previous vector (Jacobi),
//
//	PR(v) = (1-d) + d·Σ_{u→v} PR(u)/outdeg(u)
//
// where outdeg counts the stored arcs of u. The rank of dangling vertices
// (no out-arcs) is not redistributed, so ranks do not sum to n. It stops
// after the first iteration in which no vertex changed by more than
// tolerance (that iteration is counted) or after maxIter iterations, and
// returns the ranks and the number of iterations run (0 when maxIter ≤ 0,
// leaving PR₀).
func PageRank(g *datasets.Graph, damping, tolerance float64, maxIter int) (pr []float64, iterations int) {
	pr = make([]float64, g.N)
	for v := range pr {
		pr[v] = 1
	}
	next := make([]float64, g.N)
	view := NewDirected(g)
	for iterations < maxIter {
		iterations++
		pullRanks(g, view, pr, next)
		changed := false
		for v, sum := range next {
			next[v] = (1 - damping) + damping*sum
			if math.Abs(next[v]-pr[v]) > tolerance {
				changed = true
			}
		}
		pr, next = next, pr
		if !changed {
			break
		}
	}
	return pr, iterations
}

// PageRankLDBC is the LDBC Graphalytics PageRank: PR₀(v) = 1/n and, for
// exactly `iterations` iterations,
//
//	PR(v) = (1-d)/n + d·Σ_{u→v} PR(u)/outdeg(u) + (d/n)·Σ_{dangling w} PR(w)
//
// with every sum over the previous vector, so the rank of dangling vertices
// is spread evenly over all vertices and the ranks keep summing to 1.
func PageRankLDBC(g *datasets.Graph, damping float64, iterations int) []float64 {
	n := float64(g.N)
	pr := make([]float64, g.N)
	for v := range pr {
		pr[v] = 1 / n
	}
	next := make([]float64, g.N)
	view := NewDirected(g)
	for range iterations {
		dangling := 0.0
		for u, r := range pr {
			if g.Degree(int32(u)) == 0 {
				dangling += r
			}
		}
		pullRanks(g, view, pr, next)
		for v, sum := range next {
			next[v] = (1-damping)/n + damping*sum + damping/n*dangling
		}
		pr, next = next, pr
	}
	return pr
}

// pullRanks sets sum[v] = Σ_{u→v} pr[u]/outdeg(u) for every v, reading the
// in-neighbours u from the view's gonum iterator (so an arc stored twice
// contributes twice, matching outdeg).
func pullRanks(g *datasets.Graph, view *Directed, pr, sum []float64) {
	share := make([]float64, g.N)
	for u, r := range pr {
		if d := g.Degree(int32(u)); d > 0 {
			share[u] = r / float64(d)
		}
	}
	for v := range sum {
		s := 0.0
		for in := view.To(int64(v)); in.Next(); {
			s += share[in.Node().ID()]
		}
		sum[v] = s
	}
}
