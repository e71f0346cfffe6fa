package vote_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/examples/internal/exref"
	"github.com/hpgraph/hpgraph/examples/vote"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/vptest"
)

// reference simulates the rounds with a map of votes per vertex, and
// stops after a round that changed nothing.
func reference(g *vertexprog.Graph, opinions []int32, rounds int) []int32 {
	in := make([][]int32, g.N())
	exref.Arcs(g, func(u, v int32, _ float32) { in[v] = append(in[v], u) })
	x := slices.Clone(opinions)
	for range rounds {
		next := slices.Clone(x)
		for v, us := range in {
			votes := map[int32]int{}
			for _, u := range us {
				votes[x[u]]++
			}
			for o, c := range votes {
				if 2*c > len(us) {
					next[v] = o
				}
			}
		}
		if slices.Equal(next, x) {
			break
		}
		x = next
	}
	return x
}

func TestVote(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tg := range exref.Graphs(t) {
		t.Run(tg.Name, func(t *testing.T) {
			n := tg.G.N()
			// Two opinions leave majorities to form; many leave few.
			for _, kinds := range []int32{2, 5} {
				opinions := make([]int32, n)
				for v := range opinions {
					opinions[v] = rng.Int32N(kinds) - 1
				}
				want := reference(tg.G, opinions, 6)
				got, rounds, err := vote.Run(tg.G, opinions, 6, vertexprog.Options{Backend: "cpu"})
				if err != nil {
					t.Fatal(err)
				}
				if rounds < 1 || rounds > 6 {
					t.Fatalf("%d rounds, limit 6", rounds)
				}
				changed := 0
				for v := range want {
					if got[v] != want[v] {
						t.Fatalf("%d opinions, vertex %d: %d, reference %d", kinds, v, got[v], want[v])
					}
					if want[v] != opinions[v] {
						changed++
					}
				}
				t.Logf("%d opinions: %d of %d vertices changed in %d rounds", kinds, changed, n, rounds)
				all := vptest.Compare(t, tg.G, func() *vertexprog.MultisetAdapter[int32, int32, vote.Majority] {
					return vertexprog.Multiset[int32, int32, vote.Majority](&vote.Program{Opinions: opinions, Rounds: 6})
				}, func(_ *vertexprog.MultisetAdapter[int32, int32, vote.Majority], r *vertexprog.Result[int32]) []int32 {
					return r.X
				},
					func(a, b int32) bool { return a == b })
				if !slices.Equal(all, want) {
					t.Fatalf("%d opinions: every backend's answer differs from the reference", kinds)
				}
			}
		})
	}
}

// TestPath checks a closed form: on the path 0 - 1 - 2 (arcs both ways)
// the middle vertex joins its two agreeing neighbours, and the ends, with
// one vote each, follow the middle's opinion of the round before.
func TestPath(t *testing.T) {
	d, err := datasets.Build(&datasets.EdgeList{N: 3, Src: []int32{0, 1}, Dst: []int32{1, 2}}, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := vertexprog.NewGraph(d)
	got, rounds, err := vote.Run(g, []int32{7, 1, 7}, 5, vertexprog.Options{Backend: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	// Round 1: the middle → 7, the ends → 1; round 2 back to the start:
	// a cycle of two rounds, run to the limit.
	if want := []int32{1, 7, 1}; !slices.Equal(got, want) || rounds != 5 {
		t.Fatalf("%v after %d rounds, want %v after 5", got, rounds, want)
	}
}

func TestBadInput(t *testing.T) {
	g := exref.Graphs(t)[0].G
	if _, _, err := vote.Run(g, make([]int32, g.N()-1), 3, vertexprog.Options{Backend: "cpu"}); err == nil {
		t.Fatal("one opinion too few accepted")
	}
	if _, _, err := vote.Run(g, make([]int32, g.N()), 0, vertexprog.Options{Backend: "cpu"}); err == nil {
		t.Fatal("no round limit accepted")
	}
}
