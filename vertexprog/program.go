package vertexprog

// Program is a vertex program. X is the value a vertex shows its neighbours
// (held by the engine, one per vertex); A is the accumulator Gather folds
// into. Per-vertex state beyond X lives in the program, as slices indexed
// by vertex (structure of arrays), allocated in Prepare.
//
// The engine calls Gather and Reduce concurrently from several goroutines
// and Update concurrently for different vertices; Update may write only
// vertex v's own state.
type Program[X, A any] interface {
	Spec() Spec
	// Init gives vertex v its first value and says whether it starts active.
	Init(v int32, s *Step) (x X, active bool)
	// Identity is the identity of Reduce (the accumulator of a vertex that
	// gathered nothing). Never assume it is zero.
	Identity() A
	// Gather folds neighbour u's value xu and the value w of the edge
	// between them (1 on an unweighted graph) into vertex v's accumulator.
	Gather(acc A, v, u int32, xu X, w float32) A
	// Reduce combines two partial accumulators of one vertex; associative
	// and commutative.
	Reduce(a, b A) A
	// Update gives vertex v its gathered accumulator and its value; it may
	// change *x and the program's state of v, and says whether v is active
	// (changed) for the next superstep.
	Update(v int32, acc A, x *X, s *Step) (active bool)
}

// Preparer is implemented by programs that allocate state or check their
// parameters against the graph before Init.
type Preparer interface {
	Prepare(g *Graph) error
}

// RangeIniter is implemented by programs that can give a whole range of
// vertices their first values at once, faster than one Init call a vertex
// (2M calls through the Program interface took 1.2 ms of every kron21 BFS
// on 16 cores; a fill takes a tenth of that). InitRange must leave
// exactly what Init(v, s) for v = lo, ..., hi-1 in turn would: x[i] is
// vertex lo+i's value, and the vertices that start active are all of the
// range (all true) or those listed in active, in increasing order. The
// engine calls it instead of Init, concurrently for disjoint ranges (whole
// bitmask words), each with its own Step.
type RangeIniter[X any] interface {
	InitRange(lo, hi int32, x []X, s *Step) (all bool, active []int32)
}

// RowFilter is implemented by programs for which some vertices take no
// input in a superstep (a search: the vertices already reached). Rows that Wants rejects are
// neither gathered nor updated. Wants(v) may read only v's own state, what
// Init and Update(v) write: the CPU engine keeps its answers in a bitmask
// and asks again only after Update(v).
type RowFilter interface {
	Wants(v int32) bool
}

// RowGatherer is implemented by programs that fold a whole list of
// neighbours in one call, a plain loop the compiler can optimize, instead
// of one Gather call per edge (several times faster on the CPU for cheap
// Gathers like a sum). GatherRow must return what folding Gather
// over nbrs in order would: Gather(…Gather(acc, v, nbrs[0], x[nbrs[0]],
// w[0])…), where w is nil when the graph is unweighted (every weight 1).
// x is every vertex's value. The engine uses it for rows without early
// exit; vptest checks it against Gather.
type RowGatherer[X, A any] interface {
	GatherRow(acc A, v int32, nbrs []int32, w []float32, x []X) A
}

// ListUpdater is implemented by programs that update a list of vertices
// in one call: APPLY as a plain loop the compiler can optimize, instead
// of one Update call through the Program interface per vertex (a call
// costs more than a cheap Update itself does). UpdateList must do what
// Update(v, acc[v], &x[v], s) would for each v of vs in turn, append to active the vertices for which Update would return true, in
// vs's order, and return it; acc and x are indexed by vertex. The CPU
// engine calls it concurrently for disjoint lists, each with its own
// Step; vptest checks it against Update (Options.PerEdge).
type ListUpdater[X, A any] interface {
	UpdateList(vs []int32, acc []A, x []X, s *Step, active []int32) []int32
}

// ListFilter is implemented by RowFilter programs that answer Wants for a
// list of vertices in one call: WantsList must append to out the vertices
// of vs that Wants accepts, in vs's order, and return it.
type ListFilter interface {
	WantsList(vs []int32, out []int32) []int32
}

// WordFilter is implemented by RowFilter programs that answer Wants for
// 32 vertices at once: WantsWords must set bit i of words[k] to whether
// Wants(lo+32k+i) holds, for every such vertex below the graph's N, and
// clear the bits past it; lo is a multiple of 32. The CPU engine keeps
// Wants' answers as such bits and refreshes whole words of them after
// APPLY (a search's visited vertices: a word's 32 answers from one loop
// over its state, where a ListFilter call appends them one by one);
// vptest checks it against Wants (Options.PerEdge).
type WordFilter interface {
	WantsWords(lo int32, words []uint32)
}

// BlockGatherer is implemented by programs that fold every row of a
// block of rows in one call: the whole of an unmasked pull (a sum over
// every neighbour's value, say) as the program's own loop over a CSR,
// which the processor runs rows into each other, instead of a GatherRow call per row. GatherBlock must
// set, for each row v in [lo, hi), y[v] to what folding Gather from id
// over the row's neighbours col[ptr[v]:ptr[v+1]] in order would (w, when
// not nil, holding the weights at the same indices; every weight 1 when
// nil): GatherRow(id, v, col[ptr[v]:ptr[v+1]], w[ptr[v]:ptr[v+1]], x).
// The CPU engine uses it for pulls over every row, unmasked, without
// early exit; vptest checks it against Gather (Options.PerEdge).
type BlockGatherer[X, A any] interface {
	GatherBlock(lo, hi int32, ptr []int64, col []int32, w []float32, x []X, y []A, id A)
}

// SumGatherer is implemented by a BlockGatherer whose GatherBlock sets
// each row's y[v] to the float64 sum of id and the values x[u] of its
// neighbours, converted to A once, X and A both float32 or both float64
// (both PageRanks): GathersSum declares it. The CPU engine then sums such
// blocks itself, once it has checked the matrix's columns against the
// values (driver.Matrix.MaxColumn), without a bounds check a value read
// and in two running sums a row (docs/perf/cpu-engine.md, sessions 30
// and 33): its sums may differ from the row's order in the last bits.
type SumGatherer interface {
	GathersSum()
}

// Contributor is implemented by programs whose Gather is a Reduce the
// engine knows of a contribution that depends on the edge's source alone
// (a semiring's multiply and add): Gather(acc, v, u, xu, w) is
// ReduceOp's fold of acc and c, c the contribution of u's edge of weight
// w; ReduceOp is Min or Max (Go's built-in min and max) or Sum (+), and
// A's underlying type is int32, uint32, int64, uint64, float32 or
// float64. Contributions sets out[i] to the contribution of u's edge of
// weight w[i] (every weight 1 where w is nil). A CPU push then makes one
// call a pushed row and folds each edge itself, a compare and a
// compare-and-swap, instead of a Gather call an edge; vptest checks it
// against Gather (Options.PerEdge).
type Contributor[X, A any] interface {
	ReduceOp() Aggregator
	Contributions(u int32, xu X, w []float32, out []A)
}

// WeightAdder is implemented by a Contributor whose contribution along
// an edge of weight w is xu + w (xu + 1 where the graph has no weights),
// X and A the same float32 or float64 type (shortest paths):
// AddsWeight declares it. A CPU push then adds and folds in one loop
// over a row, without a Contributions call or a buffer of
// contributions; and where ReduceOp is Min and the program a
// BlockGatherer, the engine folds an unmasked pull's blocks itself, its
// columns checked once (docs/perf/cpu-engine.md, session 31). vptest
// checks both against Gather (Options.PerEdge).
type WeightAdder interface {
	AddsWeight()
}

// Relaxer is implemented by a WeightAdder whose ReduceOp is Min and
// whose Update of v with accumulator acc is "x = acc where acc < x, and
// active then", reading no aggregator (a shortest path's relaxation):
// RelaxesValues declares it. Whatever the order of its relaxations, the
// values then reach the same least fixed point. A CPU push of a run that
// is not partitioned, has no aggregators, no RowFilter and no
// Options.PerEdge then relaxes each edge straight into the destination's
// value, x[v] = x[u] + w where that is less, and files the lowered
// vertex into the next frontier or its later delta-stepping bucket as
// it goes (GAP's sssp), or, for a push over many edges, once each from
// their marks after it: no accumulator, Update call or APPLY pass. With
// delta-stepping each worker goes on relaxing from the rows it filed
// into the current bucket, within the superstep, while they are few
// (GAP's local bins). A source may push from a value that the same push
// lowered; the supersteps and their frontiers may then differ from the
// accumulators' run, the values not.
type Relaxer interface {
	RelaxesValues()
}

// EarlyExit is implemented by programs whose accumulator can be decided
// before all neighbours are seen (a bottom-up search stops at the first
// parent found).
// Done must hold for every accumulator, partial or whole, that decides the
// vertex.
type EarlyExit[A any] interface {
	Done(acc A) bool
}

// FirstGatherer is implemented by EarlyExit programs whose rows any one
// gathered edge decides (a search: a vertex's first parent found):
// Done holds for Gather(Identity(), v, u, x[u], w) whatever the edge.
// GatherFirst sets y[vs[k]] to Gather(Identity(), vs[k], us[k],
// x[us[k]], w[k]) for each k (every weight 1 where w is nil). A CPU
// pull through a frontier then finds each row's first neighbour in it in
// a loop without calls and makes one call for a block of rows, not a
// Gather and a Done call a row; vptest checks it against Gather
// (Options.PerEdge).
type FirstGatherer[X, A any] interface {
	GatherFirst(vs, us []int32, w []float32, x []X, y []A)
}

// Claimer is implemented by RowFilter programs whose push superstep
// can be run as claims, each row updated in the program's own state at
// the edge that reaches it (a search's top-down step: "claim v if it
// wants input"), where the engine gathers into the row's accumulator,
// marks it touched and runs APPLY after. ClaimRows must leave the
// program's state as gathering from Identity over the edges from each u
// of us to those of its out-neighbours col[ptr[u]:ptr[u+1]] (an
// unweighted graph, every weight 1) whose bits in want are set, then
// Update of each row gathered into, would, whatever the order of us and
// its split among calls; append to out each row whose Update would
// return true, once, and return it. want holds Wants' answers at the
// superstep's start and does not change during it; a row that ClaimRows
// activates must not Want after it. shared says other calls run at the
// same time on other parts of the frontier (and may reach the same
// rows), so claims must be atomic. The CPU engine uses it for unweighted
// pushes of runs neither partitioned nor delta-stepped, and not with
// Options.PerEdge.
type Claimer[X any] interface {
	ClaimRows(us []int32, ptr []int64, col []int32, want []uint32, x []X, s *Step, shared bool, out []int32) []int32
}

// FirstClaimer is implemented by Claimer programs that are
// FirstGatherers, whose bottom-up pull can claim its rows as the top-down
// push does: the engine finds each wanted row's first in-neighbour in
// the frontier (rows' columns in increasing order) and hands a word's
// rows found at a time. ClaimFirst must leave the program's state as
// Update(vs[k], Gather(Identity(), vs[k], us[k], x[us[k]], 1), &x[vs[k]],
// s) would for each k, append to out the rows for which Update would
// return true, in vs's order, and return it; a row it activates must not
// Want after it. The engine then writes no accumulator and runs no
// APPLY for the pull: it sets the activated rows' frontier bits and
// clears their want bits itself. The CPU engine calls it concurrently
// for rows of disjoint bitmask words, each call with its worker's Step,
// for unweighted pulls of the runs it uses a Claimer for; the apps'
// tests on every configuration check it (Options.PerEdge turns it off).
type FirstClaimer[X any] interface {
	ClaimFirst(vs, us []int32, x []X, s *Step, out []int32) []int32
}

// Prioritizer is implemented by programs that run by delta-stepping
// (Spec.Delta > 0): Priority is the order vertices run in (lower first; a
// shortest path's distance: the priority of v with value x), which the
// CPU engine calls and devgen translates to the device code's
// vp_priority. Results do not depend on it, only the order of the work;
// without it the CPU engine defers nothing.
type Prioritizer[X any] interface {
	Priority(v int32, x X) float32
}

// Step is what Init and Update see of the superstep: its number and the
// global aggregators. Each worker has its own Step; the engine combines
// their contributions between supersteps.
type Step struct {
	// Iteration is the superstep's number, from 0 (Init sees -1).
	Iteration int
	limit     int // (the run's iteration limit, 0 for none: Left)
	ops       []Aggregator
	prev      []float64
	acc       []float64
	cells     *cellSums // (shared by the workers' Steps; nil: no Sum)
}

// Left is how many supersteps the run's iteration limit
// (Spec.MaxIterations, or Options.MaxIterations where set) allows after
// this one: the limit itself at Init, 0 in the last; -1 where the run has
// no limit. The run may end sooner, where no vertex is active. A program
// that keeps every vertex active may leave a result it would write every
// superstep to the one where Left is 0 (LDBC PageRank's ranks), in its
// CPU fast paths (ListUpdater, RangeIniter) only: devgen does not
// translate Left, and the device runs Update as written.
func (s *Step) Left() int {
	if s.limit == 0 {
		return -1
	}
	return s.limit - 1 - s.Iteration
}

// Aggregate returns aggregator i's value combined over the previous
// superstep (over Init for superstep 0).
func (s *Step) Aggregate(i int) float64 { return s.prev[i] }

// Add contributes v to aggregator i for the next superstep.
func (s *Step) Add(i int, v float64) {
	if s.ops[i] == Sum { // (a sum without a call: PageRank adds once a dangling vertex)
		s.acc[i] += v
	} else {
		s.combine(i, v)
	}
}

// combine is Add of a Min or Max (out of line, so Add stays inlined).
//
//go:noinline
func (s *Step) combine(i int, v float64) { s.acc[i] = s.ops[i].Combine(s.acc[i], v) }

// newSteps makes p workers' Steps of a run over n vertices.
func newSteps(p int, ops []Aggregator, n int) []Step {
	steps := make([]Step, p)
	prev := make([]float64, len(ops))
	cells := newCellSums(ops, n)
	for i := range steps {
		// At least a cache line each: workers add to their acc per vertex.
		acc := make([]float64, len(ops), max(len(ops), 8))
		steps[i] = Step{Iteration: -1, ops: ops, prev: prev, acc: acc, cells: cells}
		for j, op := range ops {
			steps[i].acc[j] = op.Identity()
		}
	}
	return steps
}

// advance combines the workers' contributions into the values the next
// superstep reads (in place: all steps share one prev slice), and resets
// the contributions.
func advance(steps []Step, iteration int) {
	if len(steps) == 0 {
		return
	}
	prev := steps[0].prev
	combineSteps(steps, prev)
	for i := range steps {
		steps[i].Iteration = iteration
	}
}

// combineSteps sets out to the workers' contributions combined, the
// cells' sums (in cell order) after the workers' own, and resets them.
func combineSteps(steps []Step, out []float64) {
	for j, op := range steps[0].ops {
		out[j] = op.Identity()
		for i := range steps {
			out[j] = op.Combine(out[j], steps[i].acc[j])
			steps[i].acc[j] = op.Identity()
		}
	}
	steps[0].cells.fold(out)
}

// A Sum's rounding depends on the order of its additions, and which
// worker runs which vertices changes from run to run (parts are claimed
// dynamically) and with the number of workers: LDBC PageRank's dangling
// sum, added by whichever worker ran a block, moved in its last bits from
// run to run on several cores. So the CPU engine adds a Sum's
// contributions cell by cell: a cell is the vertices of cellWords
// bitmask words (cellWords*32 vertices), which Init and the APPLYs by
// words run as one piece on one worker, in vertex order; after each
// piece the worker's contributions go into the cell's slot (flushCell),
// and between supersteps the slots are added up in cell order. The
// aggregate is then the same bits on any number of workers. (Min and Max
// are exact in any order.)

// cellWords is the bitmask words of a cell: APPLY's blocks (applyWords).
const cellWords = applyWords

// cellSums holds a run's contributions to its Sum aggregators, cell by
// cell.
type cellSums struct {
	sums []int     // the Sum aggregators' indices
	vals []float64 // vals[c*len(sums)+k]: cell c's contribution to aggregator sums[k]
}

// newCellSums returns the cells of a run over n vertices, or nil where
// ops has no Sum.
func newCellSums(ops []Aggregator, n int) *cellSums {
	var sums []int
	for j, op := range ops {
		if op == Sum {
			sums = append(sums, j)
		}
	}
	if len(sums) == 0 {
		return nil
	}
	cells := (n + 32*cellWords - 1) / (32 * cellWords)
	return &cellSums{sums: sums, vals: make([]float64, cells*len(sums))}
}

// flushCell moves the worker's Sum contributions into the slot of the
// cell that holds bitmask word word, whose vertices (the cell's, or a
// part's share of them) it has just run as one piece: each slot gets one
// flush a superstep, so its value does not depend on who ran it.
func (s *Step) flushCell(word int) {
	cs := s.cells
	if cs == nil {
		return
	}
	vals := cs.vals[word/cellWords*len(cs.sums):]
	for k, j := range cs.sums {
		vals[k] += s.acc[j]
		s.acc[j] = 0
	}
}

// fold adds the cells' contributions, in cell order, to out's Sums and
// resets them.
func (cs *cellSums) fold(out []float64) {
	if cs == nil {
		return
	}
	k := len(cs.sums)
	for i, j := range cs.sums {
		sum := out[j]
		for c := i; c < len(cs.vals); c += k {
			sum += cs.vals[c]
			cs.vals[c] = 0
		}
		out[j] = sum
	}
}
