package vertexprog

import "testing"

// TestFullPullChooser: a program whose pull reads every edge pulls where
// its frontier holds more than (nnz+n)/Alpha edges and pushes below,
// superstep by superstep, whatever the last superstep did; Beamer's rule
// for a filtered program stays in a pull until the frontier shrinks
// below n/Beta.
func TestFullPullChooser(t *testing.T) {
	const n, nnz = 100, 1100 // (nnz+n)/3 = 400
	full := &chooser{opt: Options{Alpha: 3, Beta: 18}, n: n, nnz: nnz, unexplored: nnz, dir: Push, fullPull: true}
	for i, c := range []struct {
		active int
		edges  int64
		want   Direction
	}{{10, 400, Push}, {50, 401, Pull}, {60, 399, Push}, {5, 1000, Pull}, {90, 10, Push}} {
		if got := full.next(c.active, c.edges); got != c.want {
			t.Errorf("full pull, superstep %d: %d active, %d frontier edges: %v, want %v", i, c.active, c.edges, got, c.want)
		}
	}
	// On a few cores (cpuFullPullAlpha 1) only a frontier of more edges
	// than the whole matrix's pulls.
	few := &chooser{opt: Options{Alpha: cpuFullPullAlpha(1), Beta: 18}, n: n, nnz: nnz, unexplored: nnz, dir: Push, fullPull: true}
	for i, c := range []struct {
		active int
		edges  int64
		want   Direction
	}{{50, 401, Push}, {90, nnz + n, Push}, {95, nnz + n + 1, Pull}, {10, 100, Push}} {
		if got := few.next(c.active, c.edges); got != c.want {
			t.Errorf("full pull on one core, superstep %d: %d active, %d frontier edges: %v, want %v", i, c.active, c.edges, got, c.want)
		}
	}
	beamer := &chooser{opt: Options{Alpha: 15, Beta: 18}, n: n, nnz: nnz, unexplored: nnz, dir: Push, filtered: true}
	for i, c := range []struct {
		active int
		edges  int64
		want   Direction
	}{{10, 100, Pull}, {60, 10, Pull}, {4, 1, Push}} {
		if got := beamer.next(c.active, c.edges); got != c.want {
			t.Errorf("filtered, superstep %d: %d active, %d frontier edges: %v, want %v", i, c.active, c.edges, got, c.want)
		}
	}
}
