package datasets

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// randomList is a skewed random edge list: endpoints drawn with a bias
// towards low ids, so degrees differ and ties occur too.
func randomList(n, m int, directed bool, seed uint64) *EdgeList {
	rng := rand.New(rand.NewPCG(seed, 1))
	el := &EdgeList{N: n, Directed: directed, IDBase: 1, Name: "random"}
	for range m {
		u := int32(rng.IntN(1 + rng.IntN(n)))
		v := int32(rng.IntN(n))
		el.Src, el.Dst = append(el.Src, u), append(el.Dst, v)
		el.W = append(el.W, float32(1+rng.IntN(64)))
	}
	return el
}

func TestRelabelDegree(t *testing.T) {
	for _, directed := range []bool{false, true} {
		for _, weighted := range []bool{false, true} {
			el := randomList(300, 2000, directed, 7)
			opt := Options{}
			if !weighted {
				opt.Weights = WeightsNone
			}
			g, err := Build(el, opt)
			if err != nil {
				t.Fatal(err)
			}
			opt.Relabel = RelabelDegree
			p, err := Build(el, opt)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
			if p.NNZ() != g.NNZ() || p.N != g.N || p.Directed != g.Directed {
				t.Fatalf("sizes: %d/%d arcs, %d/%d vertices", p.NNZ(), g.NNZ(), p.N, g.N)
			}
			// Degrees do not increase, and every arc (with its weight) of
			// g is in p under the original ids.
			byID := map[int64]int32{}
			for v := range p.N {
				if v > 0 && p.Degree(int32(v)) > p.Degree(int32(v-1)) {
					t.Fatalf("degree of %d (%d) above that of %d (%d)", v, p.Degree(int32(v)), v-1, p.Degree(int32(v-1)))
				}
				byID[p.OriginalID(int32(v))] = int32(v)
			}
			if len(byID) != p.N {
				t.Fatalf("%d distinct original ids for %d vertices", len(byID), p.N)
			}
			for u := range g.N {
				pu := byID[g.OriginalID(int32(u))]
				if p.Degree(pu) != g.Degree(int32(u)) {
					t.Fatalf("vertex %d: degree %d, was %d", g.OriginalID(int32(u)), p.Degree(pu), g.Degree(int32(u)))
				}
				for i, v := range g.Neighbors(int32(u)) {
					pv := byID[g.OriginalID(v)]
					found := false
					for j, x := range p.Neighbors(pu) {
						if x == pv && (g.W == nil || p.W[p.RowPtr[pu]+int64(j)] == g.W[g.RowPtr[u]+int64(i)]) {
							found = true
						}
					}
					if !found {
						t.Fatalf("arc %d->%d (weighted %v) lost", g.OriginalID(int32(u)), g.OriginalID(v), weighted)
					}
				}
			}
			// Relabelling a graph already in degree order changes nothing.
			if again := p.Relabel(RelabelDegree); again != p {
				t.Fatal("relabelling a degree-ordered graph made a copy")
			}
		}
	}
}

func TestParseRelabeling(t *testing.T) {
	for s, want := range map[string]Relabeling{"": RelabelNone, "none": RelabelNone, "degree": RelabelDegree, "auto": RelabelAuto} {
		if r, err := ParseRelabeling(s); err != nil || r != want {
			t.Errorf("%q: %v, %v", s, r, err)
		}
		if s != "" && want.String() != s {
			t.Errorf("%v prints as %q", want, want.String())
		}
	}
	if _, err := ParseRelabeling("random"); err == nil {
		t.Error("an unknown order parsed")
	}
}

// A star is not skewed enough to relabel (too few arcs per vertex); 20
// hubs joined to every other vertex are; a ring lattice is not.
func TestSkewed(t *testing.T) {
	star := &EdgeList{N: 1000, Name: "star"}
	for v := int32(1); v < 1000; v++ {
		star.Src, star.Dst = append(star.Src, 0), append(star.Dst, v)
	}
	dense := &EdgeList{N: 1000, Name: "hubs"}
	for h := int32(980); h < 1000; h++ {
		for v := int32(0); v < 980; v++ {
			dense.Src, dense.Dst = append(dense.Src, h), append(dense.Dst, v)
		}
	}
	ring := &EdgeList{N: 1000, Name: "ring"}
	for v := int32(0); v < 1000; v++ {
		for d := int32(1); d <= 10; d++ {
			ring.Src, ring.Dst = append(ring.Src, v), append(ring.Dst, (v+d)%1000)
		}
	}
	for _, c := range []struct {
		el   *EdgeList
		want bool
	}{{star, false}, {dense, true}, {ring, false}} {
		g, err := Build(c.el, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if Skewed(g) != c.want {
			t.Errorf("%s: Skewed %v, want %v", c.el.Name, !c.want, c.want)
		}
		p, err := Build(c.el, Options{Relabel: RelabelAuto})
		if err != nil {
			t.Fatal(err)
		}
		if relabelled := p.IDs != nil; relabelled != c.want {
			t.Errorf("%s: auto relabelled %v, want %v", c.el.Name, relabelled, c.want)
		}
	}
}

// Skewed's histogram median agrees with sorting the degrees.
func TestSkewedMatchesSortedMedian(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		el := randomList(200+int(seed)*7, 1000+int(seed)*300, seed%2 == 0, seed)
		g, err := Build(el, Options{})
		if err != nil {
			t.Fatal(err)
		}
		deg := make([]int, g.N)
		for v := range deg {
			deg[v] = g.Degree(int32(v))
		}
		slices.Sort(deg)
		mean := float64(g.NNZ()) / float64(g.N)
		want := g.NNZ() >= 8*int64(g.N) && mean > 1.3*float64(deg[g.N/2])
		if got := Skewed(g); got != want {
			t.Errorf("seed %d: Skewed %v, sorted median %d and mean %.2f say %v", seed, got, deg[g.N/2], mean, want)
		}
	}
}
