package vertexprog

import (
	"math/bits"
	"reflect"
	"slices"

	"github.com/hpgraph/hpgraph/bitmask"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/spmv"
)

// The CPU backend's supersteps. What GAP's direction-optimizing BFS does
// for one algorithm, the engine does for every program:
//
//   - The frontier is a list of vertices after a push (GAP's sliding
//     queue) and the bits of active_bitmask after a pull (its bitmap), and
//     is converted only when the next superstep needs the other form: a
//     push walks a list, a masked pull tests bits. A push whose APPLY runs
//     by words (many rows touched) leaves both. A push superstep
//     touches only the vertices it reaches, nothing of size n: no
//     bitmask is cleared or scanned (a grid's BFS runs two thousand
//     supersteps of a few hundred vertices).
//   - A push lists the rows it changes, per worker, as it sets their
//     touched bits; APPLY runs over those lists and clears those bits.
//   - A pull of a Sparse program marks the rows that gathered something;
//     APPLY runs over those rows alone (Update of a row that gathered
//     nothing changes nothing, Spec.Sparse), and y stays the identity
//     everywhere else, so a push after a pull resets nothing. An
//     Idempotent program's accumulators are never reset: a push that
//     does not better one (most of a shortest path's relaxations) writes
//     nothing and calls no Update.
//   - A RowFilter's answers are kept in a bitmask, built at the start
//     (ListFilter) or by the first pull, and kept up to date by APPLY
//     (Wants(v) reads v's own state, which only Update(v) changes): pulls
//     skip a word of 32 unwanted rows at once, and pulls and pushes test
//     a bit where they called Wants, as GAP tests a parent. A Sparse
//     program's bits leave out the rows without arcs in (FilledRows).
//   - Update, Wants and unmasked pulls go by lists, words and blocks
//     where the program gives them (ListUpdater, ListFilter, WordFilter,
//     BlockGatherer; a SumGatherer's blocks the engine sums itself, its
//     columns checked once, and a min-reducing WeightAdder's it folds),
//     a push folds natively where it says what its Gather is
//     (Contributor; a WeightAdder's adds the weights in the same loop,
//     and a Relaxer's relaxes straight into the values and files the
//     rows it lowered: no y, no Update and no APPLY pass, as GAP's sssp,
//     each worker draining its own rows of the current bucket),
//     and a bottom-up pull gathers a word's rows found
//     at once where any one edge decides a row (FirstGatherer): one call
//     through the Program interface a list, not one a vertex or an edge.
//     A search's top-down push claims its rows in the program's own
//     state where the program says how (Claimer), and so does its
//     bottom-up pull, a word's rows found at a time (FirstClaimer): no y,
//     touched bits or Update for them, as GAP's loops; a run that only
//     claims never makes y (hostRun.acc).
//   - Work is split by what it costs: a small superstep runs on the
//     calling goroutine, without starting any (par.Chunks); a larger one
//     on par's pool of helpers, which spin between regions as OpenMP's
//     threads do, so a superstep of a few µs can still be shared (a
//     grid's BFS claims from 512 edges on).
//   - Programs that declare Spec.Delta run by delta-stepping (delta.go).
//   - A part of a partitioned run (parts.go) runs the same supersteps
//     over its own rows [lo, hi), whole bitmask words: it pulls and
//     APPLYs only those, counts the frontier's edges by the whole
//     graph's push degrees (frontDeg), runs its SPMV and APPLY as two
//     calls (every part's SPMV comes before any part's APPLY), and leaves
//     its frontier in active's bits for the exchange, which writes the
//     other parts' there. It delta-steps nothing: a vertex waiting in a
//     bucket would be a frontier the exchange does not see.

// cpuStepper runs supersteps with the spmv kernels on all cores.
type cpuStepper[X, A any] struct {
	*hostRun[X, A]
	// wlo and whi are the bitmask words of the rows the run updates
	// ([lo, hi): every row, or a part's); parts are the pull's parts
	// (r.pull.Bounds) in whole words of them, applyParts those of the
	// APPLYs by words: parts, or for a program that sums an aggregator
	// the cells (cellSums).
	wlo, whi   int
	parts      []int
	applyParts []int
	// The frontier: queue (stepLists) when listed, else active's bits;
	// inBits says a listed frontier is in active's bits too (a push's
	// APPLY by words).
	listed, inBits bool
	// edges is the frontier's push-matrix edges (the last tally's).
	edges int64
	// want holds Wants' answers once wantOK (a RowFilter's programs);
	// for a Sparse program without aggregators, only of the rows filled
	// (the pull matrix's rows with entries, FilledRows): the others gather
	// nothing, and Update of the identity changes nothing, so no pull or
	// push needs to visit them (kron21: 38% of the rows, visited by every
	// bottom-up pull).
	want   *bitmask.Bitmask
	wantOK bool
	filled []uint32
	stepLists
	// upd and flt are the program's Update and Wants by lists (each
	// vertex's own calls where it has no list form, or Options.PerEdge);
	// wf its Wants by words (nil: none, or Options.PerEdge).
	upd ListUpdater[X, A]
	flt ListFilter
	wf  WordFilter
	// rp is a multiset program's pull (nil: the kernels'); pullSparse
	// says the pull in flight left the rows it gathered into in touched.
	rp         rowPuller[X, A]
	pullSparse bool
	// contrib and op are a Contributor's, for native pushes (nil, 0: none).
	contrib spmv.Contributor[X, A]
	op      spmv.Op
	// addWeight says the Contributor is a WeightAdder.
	addWeight bool
	// relax says pushes relax into x (a Relaxer's, relaxPush), vals are
	// the workers' lowered values, and relaxed says the push in flight
	// relaxed: it filed its rows, its lists holding the next frontier's,
	// or, relaxMarked, marked them in touched for relaxedApply to file.
	relax, relaxed, relaxMarked bool
	vals                        [][]X
	// claim is a Claimer's (nil: none, or a part or Options.PerEdge);
	// claimed says the push in flight claimed its rows, which its lists
	// hold as the activated ones.
	claim   Claimer[X]
	claimed bool
	// claimTallied says the claims tallied their rows themselves.
	claimTallied bool
	// fclaim is a FirstClaimer's, with claim (nil: none); pulls are each
	// worker's Pull with its claims' adapter, pullClaimed says the pull in
	// flight claimed its rows.
	fclaim      FirstClaimer[X]
	pulls       []spmv.Pull[X, A]
	claims      []wordClaim[X, A]
	pullClaimed bool
	// delta runs the program by delta-stepping (nil: it does not).
	delta *deltaBuckets[X]
}

// Below these, a superstep's push (frontier edges) or APPLY (rows) runs
// on the calling goroutine: starting and joining the workers, and the
// atomics a shared push and APPLY need, cost more. (4096 and 2048 ran
// grid1000's supersteps of 4-8K edges on two cores, slower than on one:
// BFS 58 ms a query against 50 with these, SSSP 135 against 115.)
const (
	serialEdges = 16384
	serialRows  = 8192
	// pushChunk is the number of frontier vertices a push worker claims
	// at once (GAP's dynamic schedule of 64): small enough to balance
	// hubs, large enough to amortize the shared counter; a frontier of
	// fewer than pushClaims of them a worker is claimed in smaller chunks
	// (pushChunkFor).
	pushChunk  = 64
	pushClaims = 8
	applyChunk = 1024
	// applyWords is the bitmask words a pull's APPLY lists at once.
	applyWords = 64
	// A Claimer's push is shared by as many workers as it has
	// claimShareEdges edges, and what is left of its APPLY from
	// claimSerialRows rows: a claim's compare-and-swap costs less than a
	// shared push's fold and APPLY (grid1000's BFS, supersteps of 1-6K
	// edges, two cores on the pool, a quiet machine: 19-22 ms a query
	// against 27-31 serial). A frontier whose edges average at most
	// evenDegree a vertex is split in one contiguous share a worker, the
	// same worker's from one superstep to the next (par.Each): the work
	// per vertex is even, and each worker keeps to its part of the
	// wavefront, whose lines then stay in its core's cache (64-vertex
	// chunks interleave the workers along it: 24 ms; shares claimed by
	// whichever worker comes, on the GPU machine's 16 cores, 44-49 ms
	// against 30-34 with each share on its worker, and 26-28 with these
	// shares of 256 edges, not 1,024).
	claimShareEdges = 256
	claimSerialRows = 1024
	// A Relaxer's delta-stepping push of a listed frontier is shared by
	// as many workers as it has relaxShareEdges edges, and the filing of
	// a bucket of relaxShareRows rows or more (fileOrRun); each worker
	// goes on relaxing from the rows it filed into the current bucket
	// while they have at most drainEdges edges (GAP's kBinSizeThreshold
	// is 1,000 rows; a kron's hubs hold thousands of edges each, whose
	// push is better shared, and in vertex order: RelaxMark).
	relaxShareEdges = 256
	relaxShareRows  = 512
	drainEdges      = 4096
	evenDegree      = 16
	// A push that touched more than 1/denseApply of the vertices has its
	// APPLY run over the touched bits rather than its lists.
	denseApply = 64
	// APPLY refreshes a WordFilter's bits of a block by words where at
	// least 1/denseRefresh of the block's rows were applied (an answer by
	// words costs a fraction of one by lists), else by lists.
	denseRefresh = 8
)

// cpuFullPullAlpha is the CPU's Alpha, on so many workers, for a
// program whose pull reads every edge (chooser.fullPull): Beamer's 15
// weighs a push's edge against a bottom-up search's, which stops at a
// row's first parent and skips visited rows; a pull that reads every edge
// scans its columns in order and tests a mask bit each, where a push
// relaxes a random row. On a few workers a push's edge costs about a
// pull's (kron20 SSSP, one core, session 39: a push of 15.7M edges 72 ms,
// the masked pull of all 32M 170 ms), so a superstep pulls only where its
// frontier's edges outnumber the whole matrix's (Alpha 1): kron20 on the
// development machine, one core 323-521 -> 267-431 ms a query (four
// alternations), two cores about the same; on the H200 host's cores
// (session 39, call 2; push against Alpha 3, ms a query), kron21 one
// thread 639 / 804, four 282 / 302, urand21 four 349 / 372. On eight and
// sixteen the two are even (kron21 167 / 164 and 100 / 101, urand21 218
// / 219 and 134 / 128): a push's relaxations are atomic there, on lines
// other cores write, where a pull's rows are each one core's. Superstep
// by superstep on 16 (kron21 SSSP, GAP's sources, session 47), a pull
// of all 63.5M arcs took 28-41 ms whatever the frontier, a push 22-31
// ms from frontiers of 23-27M edges and 39-45 from 35-45M: the two
// cross near half the matrix, so Alpha is 2 there (kron21, 16
// queries' median against Alpha 3: 91.7 against 94.8 ms over three
// rounds, 84.7 against 88.5 in a later call, GAP 70.9; eight threads
// 148 and 162 against 165 and 162).
func cpuFullPullAlpha(workers int) float64 {
	if workers <= 4 {
		return 1
	}
	return 2
}

// stepLists are a CPU stepper's vertex lists: lists the workers' scratch
// lists, flat their join, rows and kept the workers' buffers of APPLY,
// queue the listed frontier. They grow to a superstep's frontier (a
// urand21 BFS's top-down step claims 734K vertices): grown by append,
// afresh every run, each size on memory new to the process, their copies
// and page faults were 18% of a profile of 16 urand21 BFS queries on one
// core of the development VM. So a run's lists go back to the graph's
// spares when it ends, for the next run's, and a claimed push makes room
// for its frontier's claims at once (two cores, the 16 queries: 772-812
// -> 695-703 ms in all, the slowest 70-80 -> 45-47; session 33).
type stepLists struct {
	lists, rows, kept [][]int32
	flat, queue       []int32
}

// newCPUStepper makes the CPU stepper of a prepared and materialized
// run; part says it is a part of a partitioned run, which delta-steps
// nothing.
func newCPUStepper[X, A any](h *hostRun[X, A], opt Options, part bool) *cpuStepper[X, A] {
	p := par.Workers()
	c := &cpuStepper[X, A]{hostRun: h, edges: h.initEdges}
	c.stepLists = h.spare.newLists(p)
	c.wlo, c.whi = wordRange(h.lo, h.hi)
	c.parts = wordParts(h.pull.Bounds, c.wlo, c.whi)
	c.applyParts = c.parts
	if h.steps[0].cells != nil {
		c.applyParts = cellBounds(c.wlo, c.whi)
	}
	c.rp, _ = h.p.(rowPuller[X, A])
	c.upd = updateEach[X, A]{h.p}
	if lu, ok := h.p.(ListUpdater[X, A]); ok && !opt.PerEdge {
		c.upd = lu
	}
	if ct, ok := h.p.(Contributor[X, A]); ok && !opt.PerEdge {
		c.contrib = ct
		c.op = map[Aggregator]spmv.Op{Sum: spmv.OpSum, Min: spmv.OpMin, Max: spmv.OpMax}[ct.ReduceOp()]
		_, c.addWeight = h.p.(WeightAdder)
	}
	if h.wants != nil {
		c.want = h.spare.newMask(h.n)
		if s := h.spec; s.Sparse && !s.GatherAll && len(s.Aggregators) == 0 && c.rp == nil {
			c.filled = h.pull.FilledRows()
		}
		c.flt = wantsEach{h.wants}
		lf, lists := h.p.(ListFilter)
		c.wf, _ = h.p.(WordFilter)
		if opt.PerEdge {
			lists, c.wf = false, nil
		}
		if lists {
			c.flt = lf
		}
		if lists || c.wf != nil {
			// A list or word filter answers for every vertex at the price
			// of a scan: the bits are known from the first superstep on,
			// and a push tests a bit where it would call Wants an edge (a
			// grid's BFS pushes every superstep and never pulls).
			c.wantAll()
		}
	}
	if !part {
		c.delta = newDeltaBuckets(h, opt.MaxIterations)
		if _, ok := h.p.(Relaxer); ok && c.addWeight && c.op == spmv.OpMin && h.wants == nil && len(h.spec.Aggregators) == 0 && reflect.TypeFor[X]() == reflect.TypeFor[A]() && floatKind[X]() {
			c.relax, c.vals = true, make([][]X, p)
		}
		// (not where a Sum aggregator's contributions would come in the
		// claims' order, which changes from run to run: cellSums)
		if cl, ok := h.p.(Claimer[X]); ok && !opt.PerEdge && c.wantOK && c.delta == nil && h.steps[0].cells == nil {
			c.claim = cl
			if fc, ok := h.p.(FirstClaimer[X]); ok && h.first != nil {
				c.fclaim = fc
				c.pulls, c.claims = make([]spmv.Pull[X, A], p), make([]wordClaim[X, A], p)
				for w := range c.claims {
					c.claims[w] = wordClaim[X, A]{c: c, w: w}
				}
			}
		}
	}
	if c.fclaim == nil {
		c.acc() // (only a run that claims both ways may never need y)
	}
	if c.delta != nil {
		c.startDelta()
	}
	return c
}

// wantAll fills want with the program's answers for every vertex the
// run updates, by words or lists.
func (c *cpuStepper[X, A]) wantAll() {
	ww := c.want.Words()
	par.Blocks(c.whi-c.wlo, func(w, lo, hi int) {
		if c.wf != nil {
			c.wf.WantsWords(int32(c.wlo+lo)*32, ww[c.wlo+lo:c.wlo+hi])
			return
		}
		for blo := c.wlo + lo; blo < c.wlo+hi; blo += applyWords {
			bhi := min(blo+applyWords, c.wlo+hi)
			rows := c.blockRows(w, blo, bhi)
			kept := c.flt.WantsList(rows, c.kept[w][:0])
			clear(ww[blo:bhi])
			for _, v := range kept {
				ww[v>>5] |= 1 << (uint32(v) & 31)
			}
			c.kept[w] = kept
		}
	})
	c.keepFilled(c.wlo, c.whi)
	c.wantOK = true
}

// keepFilled clears want's bits of the rows without entries in words
// [lo, hi) (where filled: a Sparse program's).
func (c *cpuStepper[X, A]) keepFilled(lo, hi int) {
	if c.filled == nil {
		return
	}
	ww := c.want.Words()
	if hi-lo < 4096 {
		for i := lo; i < hi; i++ {
			ww[i] &= c.filled[i]
		}
		return
	}
	par.Blocks(hi-lo, func(_, a, b int) {
		for i := lo + a; i < lo+b; i++ {
			ww[i] &= c.filled[i]
		}
	})
}

// blockRows lists in worker w's buffer the rows of bitmask words [lo, hi).
func (c *cpuStepper[X, A]) blockRows(w, lo, hi int) []int32 {
	// (stored by index into a slice grown once, not appended: grid1000's
	// TC on one core spent 0.9 ms a run in this loop's appends)
	first, m := int32(lo*32), min(hi*32, c.n)-lo*32
	rows := slices.Grow(c.rows[w][:0], m)[:m]
	for i := range rows {
		rows[i] = first + int32(i)
	}
	c.rows[w] = rows
	return rows
}

// wordParts turns row bounds into bounds of whole bitmask words within
// words [wlo, whi).
func wordParts(rows []int, wlo, whi int) []int {
	parts := []int{wlo}
	for _, r := range rows[1:] {
		if w := min(r/32, whi); w > parts[len(parts)-1] {
			parts = append(parts, w)
		}
	}
	if parts[len(parts)-1] < whi {
		parts = append(parts, whi)
	}
	return parts
}

// cellBounds are the cells of words [wlo, whi) as parts: each cell one
// piece (cellSums), which APPLY's workers claim in turn (an APPLY's work
// is about even by rows, unlike the pull's, whose parts are by arcs).
func cellBounds(wlo, whi int) []int {
	b := []int{wlo}
	for w := (wlo/cellWords + 1) * cellWords; w < whi; w += cellWords {
		b = append(b, w)
	}
	return append(b, whi)
}

// cellEnd is the end of the block of APPLY's words from blo in a part
// ending at hi: the end of blo's cell, or hi.
func cellEnd(blo, hi int) int { return min((blo/cellWords+1)*cellWords, hi) }

func (c *cpuStepper[X, A]) step(it int, dir Direction) (int, int64, error) {
	advance(c.steps, it)
	a, e := c.superstep(dir)
	if a == 0 && c.delta != nil {
		a, e = c.nextBucket()
	}
	c.activeCount, c.edges = a, e
	return a, e, nil
}

// superstep runs a superstep's SPMV and APPLY over the frontier left by
// the last and returns the vertices it activated and their frontier
// edges (the caller has advanced the aggregators, and sets the counts).
func (c *cpuStepper[X, A]) superstep(dir Direction) (int, int64) {
	c.spmvPhase(dir)
	return c.applyPhase(dir)
}

// spmvPhase is a superstep's SPMV: the frontier pulls or pushes into y.
func (c *cpuStepper[X, A]) spmvPhase(dir Direction) {
	if dir == Push {
		c.pushGather()
	} else {
		c.pullGather()
	}
}

// applyPhase is a superstep's APPLY after spmvPhase: it returns the
// vertices activated and their frontier edges.
func (c *cpuStepper[X, A]) applyPhase(dir Direction) (int, int64) {
	if dir == Push {
		c.pushApply()
	} else {
		c.pullApply()
	}
	return c.tally()
}

// frontierToBits leaves the frontier of the rows the run updates in
// active's bits, exact in their words, and makes the bits the frontier
// (after a push it was the list): a part's exchange reads them there
// (packPart) and writes the other parts' (unpackPart).
func (c *cpuStepper[X, A]) frontierToBits() {
	if !c.listed || c.inBits {
		c.listed = false
		return // (an APPLY by words wrote every word of the rows)
	}
	aw := c.active.Words()
	clear(aw[c.wlo:c.whi])
	for _, v := range c.queue {
		aw[v>>5] |= 1 << (uint32(v) & 31)
	}
	c.listed = false
}

func (c *cpuStepper[X, A]) aggregates() []float64 {
	advance(c.steps, -1)
	return c.steps[0].prev
}

func (t *tally) add(o tally) {
	t.count += o.count
	t.edges += o.edges
}

// frontierList returns the frontier as a list: queue, or active's bits
// listed.
func (c *cpuStepper[X, A]) frontierList() []int32 {
	if !c.listed {
		words := c.active.NumWords()
		par.Blocks(words, func(w, lo, hi int) { c.lists[w] = c.active.AppendWords(c.lists[w][:0], lo, hi) })
		c.queue = c.join(c.queue[:0])
		c.listed = true
	}
	return c.queue
}

// frontierBits leaves the frontier's bits in frontier.
func (c *cpuStepper[X, A]) frontierBits() {
	if !c.listed || c.inBits {
		c.frontier.Swap(c.active)
		c.inBits = false // (active now holds the frontier before)
		return
	}
	q, fw := c.queue, c.frontier.Words()
	if len(q) < serialRows || par.Workers() == 1 {
		// (one goroutine: no locked instructions, 1.1 ms of kron20's
		// bottom-up step on one core)
		clear(fw)
		setBits(fw, q)
		return
	}
	if p := par.Workers(); p >= listBitsWorkers {
		shares := make([][]int32, p)
		for w := range shares {
			shares[w] = q[len(q)*w/p : len(q)*(w+1)/p]
		}
		c.rows = listBits(fw, 0, len(fw), shares, c.rows)
		return
	}
	clear(fw)
	par.Chunks(len(q), len(q)/par.Workers()+1, func(_, lo, hi int) {
		for _, v := range q[lo:hi] {
			c.frontier.AtomicSet(v)
		}
	})
}

// join appends the workers' lists to out, empties them and returns out.
func (c *cpuStepper[X, A]) join(out []int32) []int32 { return joinLists(out, c.lists) }

// pullGather pulls over the rows the program wants from the frontier's
// active vertices.
func (c *cpuStepper[X, A]) pullGather() {
	pl := &spmv.Pull[X, A]{M: c.pull.Matrix, X: c.x, Identity: c.identity,
		Done: c.done, GatherRow: c.gatherRow, Block: c.block, First: c.first}
	pl.Sum = c.sum && c.pull.ColumnsBelow(len(c.x))
	pl.MinPlus = c.addWeight && c.op == spmv.OpMin && c.block != nil && c.pull.ColumnsBelow(len(c.x))
	dense := c.activeCount*denseFrontier >= c.n || c.edges*2 >= c.nnz
	if !c.spec.GatherAll && !(c.spec.Idempotent && dense) {
		c.frontierBits()
		pl.Mask = c.frontier
	}
	// A Sparse program's APPLY needs only the rows that gathered.
	c.pullSparse = c.spec.Sparse && c.rp == nil
	if c.pullSparse {
		pl.Touched = c.touched
	}
	if m := c.pull.Matrix; c.fclaim != nil && pl.Mask != nil && m.K == 0 && m.CooVal == nil {
		// A FirstClaimer's pull: each word's rows found are claimed, the
		// frontier's bits written and the want bits cleared there.
		pl.Rows, pl.Touched, c.pullSparse, c.pullClaimed = c.want, nil, false, true
		aw := c.active.Words()
		par.DynamicW(c.parts, func(w, lo, hi int) {
			clear(aw[lo:hi])
			c.pulls[w] = *pl
			c.pulls[w].Claim = &c.claims[w]
			spmv.Rows(c.p, &c.pulls[w], lo, hi)
		})
		return
	}
	pl.Y = c.acc()
	if c.rp != nil {
		pl.Wants = c.wants
		c.rp.pullRows(pl, c.pull.Bounds) // (a multiset program)
	} else {
		if c.want != nil {
			if c.wantOK {
				pl.Rows = c.want
			} else {
				pl.Wants, pl.WantsOut = c.wants, c.want
			}
		}
		par.Dynamic(c.parts, func(lo, hi int) { spmv.Rows(c.p, pl, lo, hi) })
		if c.want != nil && !c.wantOK {
			c.keepFilled(c.wlo, c.whi) // (the pull wrote want's bits: WantsOut)
		}
		c.wantOK = c.want != nil
	}
}

// pullApply is a pull's APPLY: Update of the rows that gathered (a
// Sparse program's), else of every wanted row.
func (c *cpuStepper[X, A]) pullApply() {
	if c.pullClaimed {
		c.pullClaimed, c.listed, c.inBits = false, false, false
		return // (the claims did it: wordClaim)
	}
	// APPLY, by whole bitmask words so workers never share one: the rows
	// of up to applyWords words at a time as a list. An Idempotent
	// program's rows keep their accumulators (Spec.Idempotent).
	sparse, keep := c.pullSparse, c.spec.Idempotent
	wants, n := c.wants, int32(c.n)
	aw := c.active.Words()
	var tw, ww []uint32
	if sparse {
		tw = c.touched.Words()
	}
	if c.wantOK {
		ww = c.want.Words()
	}
	all := !sparse && ww == nil && wants == nil // (every row)
	par.DynamicW(c.applyParts, func(w, lo, hi int) {
		for blo, bhi := lo, lo; blo < hi; blo = bhi {
			bhi = cellEnd(blo, hi)
			rows := c.rows[w][:0]
			if all {
				rows = c.blockRows(w, blo, bhi)
			}
			for wi := blo; wi < bhi && !all; wi++ {
				base := int32(wi) * 32
				var sel uint32
				switch {
				case sparse:
					sel, tw[wi] = tw[wi], 0
				case ww != nil:
					sel = ww[wi]
				default:
					sel = ^uint32(0) >> uint(32-min(32, n-base))
				}
				for ; sel != 0; sel &= sel - 1 {
					v := base + int32(bits.TrailingZeros32(sel))
					if ww == nil && wants != nil && !wants.Wants(v) {
						continue
					}
					rows = append(rows, v)
				}
			}
			if !all {
				c.rows[w] = rows
			}
			act := c.apply(w, rows, c.lists[w][:0], keep || !sparse, false, blo, bhi)
			c.steps[w].flushCell(blo)
			if len(act) == len(rows) && all {
				c.active.SetWords(blo, bhi)
			} else {
				clear(aw[blo:bhi])
				for _, v := range act {
					aw[v>>5] |= 1 << (uint32(v) & 31)
				}
			}
			c.lists[w] = act[:0]
		}
	})
	c.listed, c.inBits = false, false
}

// apply is APPLY of worker w over the rows vs: Update, then the
// activated vertices that do not wait for a later bucket appended to next
// and counted, y back to the identity unless keep, and a RowFilter's bits
// of vs refreshed (atomically where other workers may share their words:
// shared; by whole words where vs are rows of words [blo, bhi), bhi >
// blo, that no other worker shares). It returns next.
func (c *cpuStepper[X, A]) apply(w int, vs, next []int32, keep, shared bool, blo, bhi int) []int32 {
	if len(vs) == 0 {
		return next
	}
	start := len(next)
	y := c.y // (made by the SPMV phase: acc)
	next = c.upd.UpdateList(vs, y, c.x, &c.steps[w], next)
	deg, delta := c.frontDeg, c.delta
	t := tally{count: int64(len(next) - start)}
	if delta != nil || deg != nil {
		j := start
		for _, v := range next[start:] {
			if delta != nil && delta.wait(w, v, c.x[v]) {
				continue // (it waits for a later bucket)
			}
			next[j] = v
			j++
			if deg != nil {
				t.edges += int64(deg[v])
			}
		}
		next, t.count = next[:j], int64(j-start)
	}
	c.tallies[w].add(t)
	if !keep {
		for _, v := range vs {
			y[v] = c.identity
		}
	}
	if c.wantOK && c.wf != nil && bhi > blo && len(vs)*denseRefresh >= (bhi-blo)*32 {
		// (the other rows of the words answer as before: Wants(v) reads
		// v's own state, which only Update(v) changes)
		c.wf.WantsWords(int32(blo)*32, c.want.Words()[blo:bhi])
		if c.filled != nil {
			ww := c.want.Words()
			for i := blo; i < bhi; i++ {
				ww[i] &= c.filled[i]
			}
		}
	} else if c.wantOK {
		kept := c.flt.WantsList(vs, c.kept[w][:0])
		k := 0
		for _, v := range vs {
			switch {
			case k < len(kept) && kept[k] == v:
				k++
			case shared:
				c.want.AtomicClear(v)
			default:
				c.want.Words()[v>>5] &^= 1 << (uint32(v) & 31)
			}
		}
		c.kept[w] = kept
	}
	return next
}

// wordClaim is worker w's spmv.WordClaimer for a FirstClaimer's pull:
// what is left of APPLY, the word's frontier bits, want bits and tally,
// done as its rows are claimed.
type wordClaim[X, A any] struct {
	c   *cpuStepper[X, A]
	w   int
	out []int32
	_   [64]byte // (out is written at every word: workers' on lines of their own)
}

func (k *wordClaim[X, A]) ClaimWord(wi int, vs, us []int32) {
	c := k.c
	k.out = c.fclaim.ClaimFirst(vs, us, c.x, &c.steps[k.w], k.out[:0])
	var b uint32
	t := tally{count: int64(len(k.out))}
	for _, v := range k.out {
		b |= 1 << (uint32(v) & 31)
	}
	if deg := c.frontDeg; deg != nil {
		for _, v := range k.out {
			t.edges += int64(deg[v])
		}
	}
	c.active.Words()[wi] = b
	c.want.Words()[wi] &^= b
	c.tallies[k.w].add(t)
}

// rowsEdges is the sum of the lengths of rows vs of a CSR with row
// pointers ptr.
func rowsEdges(ptr []int64, vs []int32) int64 {
	var e int64
	for _, v := range vs {
		e += ptr[v+1] - ptr[v]
	}
	return e
}

// updateEach is the ListUpdater of a program without one: an Update call
// a vertex.
type updateEach[X, A any] struct{ p Program[X, A] }

func (u updateEach[X, A]) UpdateList(vs []int32, acc []A, x []X, s *Step, active []int32) []int32 {
	for _, v := range vs {
		if u.p.Update(v, acc[v], &x[v], s) {
			active = append(active, v)
		}
	}
	return active
}

// wantsEach is the ListFilter of a RowFilter without one.
type wantsEach struct{ f RowFilter }

func (f wantsEach) WantsList(vs, out []int32) []int32 {
	for _, v := range vs {
		if f.f.Wants(v) {
			out = append(out, v)
		}
	}
	return out
}

// pushGather pushes from the frontier's vertices along the push matrix,
// listing the rows it changes in the workers' lists.
func (c *cpuStepper[X, A]) pushGather() {
	us := c.frontierList()
	if m := c.push.Matrix; c.claim != nil && m.K == 0 && m.CooVal == nil {
		// A Claimer's push: each worker's list is the rows it activated.
		shares := min(par.Workers(), int(c.edges/claimShareEdges))
		serial := shares <= 1
		// Where its APPLY will go by lists (fewer rows than edges), each
		// worker tallies the rows it claimed, from the row pointers of the
		// push matrix (deg's, in a claimed push; the next push reads v's
		// line of them, where deg's is read by nothing else).
		want, tallyNow := c.want.Words(), c.edges*denseApply <= int64(c.n)
		// (room for the claims at once: at most one an edge or a row,
		// shared evenly but for chunks' luck)
		room := int(min(c.edges, int64(c.n)))
		if !serial {
			room = room/shares + room/(4*shares)
		}
		for w := range max(shares, 1) {
			c.lists[w] = slices.Grow(c.lists[w], room)
		}
		claim := func(w, lo, hi int) {
			start := len(c.lists[w])
			c.lists[w] = c.claim.ClaimRows(us[lo:hi], m.CooPtr, m.CooCol, want, c.x, &c.steps[w], !serial, c.lists[w])
			if tallyNow {
				l := c.lists[w][start:]
				c.tallies[w].add(tally{count: int64(len(l)), edges: rowsEdges(m.CooPtr, l)})
			}
		}
		c.claimed, c.claimTallied = true, tallyNow
		switch {
		case serial:
			claim(0, 0, len(us))
		case c.edges <= int64(len(us))*evenDegree:
			// Even work per vertex: worker w claims the w-th share, the
			// rows the same worker found in the last superstep where their
			// count was even (the frontier is the workers' lists in
			// order), so a wavefront's lines stay in one core's cache.
			par.Each(shares, func(w int) { claim(w, len(us)*w/shares, len(us)*(w+1)/shares) })
		default:
			par.Chunks(len(us), pushChunkFor(len(us)), claim)
		}
		return
	}
	if m := c.push.Matrix; c.relax && m.K == 0 {
		c.relaxPush(us, m)
		return
	}
	ps := &spmv.Push[X, A]{M: c.push.Matrix, X: c.x, Y: c.acc(), Touched: c.touched, Contrib: c.contrib, Op: c.op, AddWeight: c.addWeight}
	if c.wantOK {
		ps.Rows = c.want
	} else {
		ps.Wants = c.wants
	}
	// A superstep that runs on one goroutine needs no atomics.
	chunk := pushChunkFor(len(us))
	if ps.Serial = c.edges < serialEdges || par.Workers() == 1; ps.Serial {
		chunk = len(us)
	}
	par.Chunks(len(us), chunk, func(w, lo, hi int) {
		c.lists[w] = spmv.List(c.p, ps, us[lo:hi], c.lists[w])
	})
}

// pushChunkFor is the frontier vertices a push worker claims at once
// from a frontier of n: pushChunk, or fewer where that would leave a
// worker fewer than pushClaims claims. A kron's second superstep pushes
// from ~130 hubs holding a few hundred thousand edges (kron20 from GAP's
// first source: 134 rows, 379K edges, the largest 7% of them): in
// chunks of 64, three of 16 workers pushed it while the others waited.
// By row, kron21's BFS at GAP's sources on the H200 host's 16 threads
// 8.62 -> 7.77 ms a query (GAP 6.98), urand21's 12.34 -> 11.51, kron21's
// SSSP 91.5 -> 85.4 (medians of four alternations; session 45).
func pushChunkFor(n int) int {
	return max(1, min(pushChunk, n/(par.Workers()*pushClaims)))
}

// pushApply is a push's APPLY over the rows the push changed.
func (c *cpuStepper[X, A]) pushApply() {
	if c.claimed {
		c.claimedApply()
		return
	}
	if c.relaxed {
		c.relaxedApply()
		return
	}
	keep := c.spec.Idempotent
	touched := 0
	for _, l := range c.lists {
		touched += len(l)
	}
	if touched*denseApply > c.n || c.steps[0].cells != nil {
		// Many rows: APPLY over the touched bits, in order, by whole
		// words, where the lists would visit the rows (their program
		// state, y, degrees) in the push's random order. The frontier
		// goes into active's bits as well, word by word: a pull next
		// reads them there (GAP's queue-to-bitmap conversion, saved).
		// A program that sums an aggregator always: the lists' order
		// is the push's, which changes from run to run (cellSums).
		for w := range c.lists {
			c.lists[w] = c.lists[w][:0]
		}
		tw, aw := c.touched.Words(), c.active.Words()
		par.DynamicW(c.applyParts, func(w, lo, hi int) {
			for blo, bhi := lo, lo; blo < hi; blo = bhi {
				bhi = cellEnd(blo, hi)
				rows := c.rows[w][:0]
				for wi := blo; wi < bhi; wi++ {
					rows = c.touched.AppendWords(rows, wi, wi+1)
					tw[wi] = 0
				}
				c.rows[w] = rows
				start := len(c.lists[w])
				c.lists[w] = c.apply(w, rows, c.lists[w], keep, false, blo, bhi)
				c.steps[w].flushCell(blo)
				clear(aw[blo:bhi])
				for _, v := range c.lists[w][start:] {
					aw[v>>5] |= 1 << (uint32(v) & 31)
				}
			}
		})
		c.queue = c.join(c.queue[:0])
		c.listed, c.inBits = true, true
		return
	}
	c.flat = c.join(c.flat[:0])
	rows := c.flat
	chunk := applyChunk
	serial := len(rows) < serialRows || par.Workers() == 1
	if serial {
		chunk = len(rows)
	}
	tw := c.touched.Words()
	par.Chunks(len(rows), chunk, func(w, lo, hi int) {
		c.lists[w] = c.apply(w, rows[lo:hi], c.lists[w], keep, !serial, 0, 0)
		for _, v := range rows[lo:hi] {
			if serial {
				tw[v>>5] &^= 1 << (uint32(v) & 31)
			} else {
				c.touched.AtomicClear(v)
			}
		}
	})
	c.queue = c.join(c.queue[:0])
	c.listed, c.inBits = true, false
}

// claimedApply is what is left of APPLY after a Claimer's push: the
// activated rows' tally and want bits, and the frontier from the
// workers' lists. Where they are many, as pushApply by words: their
// bits into active, then the tally and want's refresh by words, in
// order, and the frontier listed from the bits.
func (c *cpuStepper[X, A]) claimedApply() {
	c.claimed = false
	deg, ww := c.frontDeg, c.want.Words()
	n := 0
	for _, l := range c.lists {
		n += len(l)
	}
	if n*denseApply > c.n {
		aw := c.active.Words()
		c.rows = listBits(aw, c.wlo, c.whi, c.lists, c.rows)
		for w, l := range c.lists {
			c.lists[w] = l[:0]
		}
		par.DynamicW(c.parts, func(w, lo, hi int) {
			rows := c.active.AppendWords(c.lists[w], lo, hi)
			t := tally{count: int64(len(rows) - len(c.lists[w]))}
			if deg != nil {
				for _, v := range rows[len(c.lists[w]):] {
					t.edges += int64(deg[v])
				}
			}
			for i := lo; i < hi; i++ {
				ww[i] &^= aw[i]
			}
			c.lists[w] = rows
			c.tallies[w].add(t)
		})
		c.queue = c.join(c.queue[:0])
		c.listed, c.inBits = true, true
		return
	}
	// (a few rows: on this goroutine, without atomics, as a grid's BFS
	// runs thousands of such supersteps; more: each worker over its own
	// list, the rows it claimed, still in its cache)
	shared := par.Workers() > 1 && n >= claimSerialRows
	tallied, ptr := c.claimTallied, c.push.Matrix.CooPtr
	lists := func(lo, hi int) {
		for w := lo; w < hi; w++ {
			l := c.lists[w]
			if !tallied {
				c.tallies[w].add(tally{count: int64(len(l)), edges: rowsEdges(ptr, l)})
			}
			for _, v := range l {
				if shared {
					c.want.AtomicClear(v)
				} else {
					ww[v>>5] &^= 1 << (uint32(v) & 31)
				}
			}
		}
	}
	if !shared {
		lists(0, len(c.lists))
	} else {
		used := len(c.lists)
		for used > 1 && len(c.lists[used-1]) == 0 {
			used--
		}
		k := min(used, par.Workers())
		par.Each(k, func(w int) {
			for i := w; i < used; i += k {
				lists(i, i+1)
			}
		})
	}
	c.queue = c.join(c.queue[:0])
	c.listed, c.inBits = true, false
}

// relaxPush is a Relaxer's push over M (all COO): each worker relaxes
// its part of the frontier us into x (spmv.Relax) and files the rows it
// lowered at once (fileLowered). With delta-stepping, each worker then
// relaxes from the rows it filed into the current bucket itself, round
// after round while they are few (drainEdges), as GAP's sssp does with
// its local bins, and only what is left of them is the next frontier: a
// bucket of a grid then runs in one superstep rather than six, and on
// several workers without a barrier a round.
func (c *cpuStepper[X, A]) relaxPush(us []int32, m *hyb.Matrix) {
	chunk, serial := pushChunkFor(len(us)), c.edges < serialEdges || par.Workers() == 1
	c.relaxed, c.relaxMarked = true, c.edges*denseApply > int64(c.n)
	if c.relaxMarked {
		if serial {
			chunk = len(us)
		}
		// (many rows lowered, most of them several times: their bits,
		// filed once each at their last value by relaxedApply)
		par.Chunks(len(us), chunk, func(_, lo, hi int) {
			spmv.RelaxMark(m, c.x, us[lo:hi], serial, c.touched)
		})
		return
	}
	drain := c.delta != nil
	shares := 1
	if drain {
		// (the rounds each worker goes on with are work the frontier's
		// edges do not count)
		shares = min(par.Workers(), int(c.edges/relaxShareEdges))
		serial = shares <= 1
	}
	relax := func(w, lo, hi int) {
		start := len(c.lists[w])
		vs, vals, _ := spmv.Relax(m, c.x, us[lo:hi], serial, c.rows[w][:0], c.vals[w][:0])
		c.fileLowered(w, vs, vals, serial)
		for {
			l := c.lists[w][start:]
			e := rowsEdges(m.CooPtr, l)
			if !drain || len(l) == 0 || e > drainEdges {
				c.tallies[w].add(tally{count: int64(len(l)), edges: e})
				return
			}
			// (a row's bit clears before its value is read: a lowering
			// after the read files it again)
			next := append(c.kept[w][:0], l...)
			c.lists[w] = c.lists[w][:start]
			c.untouch(next, serial)
			vs, vals, _ = spmv.Relax(m, c.x, next, serial, c.rows[w][:0], c.vals[w][:0])
			c.kept[w] = next
			c.fileLowered(w, vs, vals, serial)
		}
	}
	switch {
	case serial:
		relax(0, 0, len(us))
	case drain && c.edges <= int64(len(us))*evenDegree:
		// (each worker's share the rows it found the superstep before,
		// as a claimed push's: its part of the wavefront)
		par.Each(shares, func(w int) { relax(w, len(us)*w/shares, len(us)*(w+1)/shares) })
	default:
		par.Chunks(len(us), chunk, relax)
	}
}

// untouch clears the touched bits of vs (plainly where serial).
func (c *cpuStepper[X, A]) untouch(vs []int32, serial bool) {
	tw := c.touched.Words()
	for _, v := range vs {
		if serial {
			tw[v>>5] &^= 1 << (uint32(v) & 31)
		} else {
			c.touched.AtomicClear(v)
		}
	}
}

// touchOnce sets v's bit in touched (its words tw; plainly where serial,
// no atomics on one goroutine) and reports whether it was clear: a row
// enters the next frontier once.
func touchOnce(touched *bitmask.Bitmask, tw []uint32, v int32, serial bool) bool {
	if !serial {
		return touched.AtomicSet(v)
	}
	wi, bit := v>>5, uint32(1)<<(uint32(v)&31)
	if tw[wi]&bit != 0 {
		return false
	}
	tw[wi] |= bit
	return true
}

// fileLowered files the rows vs that worker w lowered to vals: into a
// later bucket where the priority of the value lies past the current
// one, else into its list of the next frontier, once (touched bits, set
// plainly where serial).
func (c *cpuStepper[X, A]) fileLowered(w int, vs []int32, vals []X, serial bool) {
	d, tw, out := c.delta, c.touched.Words(), c.lists[w]
	for i, v := range vs {
		if d.wait(w, v, vals[i]) {
			continue // (a later bucket)
		}
		if touchOnce(c.touched, tw, v, serial) {
			out = append(out, v)
		}
	}
	c.rows[w], c.vals[w], c.lists[w] = vs, vals, out
}

// relaxedApply is what is left of APPLY after relaxPush: the frontier
// from the rows the push marked (fileTouched), or the workers' lists
// joined and their touched bits cleared.
func (c *cpuStepper[X, A]) relaxedApply() {
	c.relaxed = false
	if c.relaxMarked {
		c.relaxMarked = false
		c.fileTouched()
		return
	}
	c.queue = c.join(c.queue[:0])
	tw := c.touched.Words()
	for _, v := range c.queue {
		tw[v>>5] &^= 1 << (uint32(v) & 31) // (on this goroutine alone)
	}
	c.listed, c.inBits = true, false
}

// floatKind reports whether X's underlying type is float32 or float64.
func floatKind[X any]() bool {
	k := reflect.TypeFor[X]().Kind()
	return k == reflect.Float32 || k == reflect.Float64
}
