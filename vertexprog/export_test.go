package vertexprog

// FreshOrientation is an Orientation of g, outside g's memo, its arrays
// not yet built: tests and benchmarks build one again with it (Build).
func FreshOrientation(g *Graph, all, ranked bool) *Orientation {
	return &Orientation{All: all, Ranked: ranked, g: g}
}

// RankCap is rankCap: the degrees above it are ranked by a sort of their
// own, the ones below by a counting sort.
const RankCap = rankCap
