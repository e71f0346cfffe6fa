package vertexprog

import (
	"fmt"
	"math"
	"time"

	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/spmv"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// The bulk-synchronous loop every run takes (whole or in parts, on the
// CPU or a device): its steppers, and the chooser of each superstep's
// direction.

// stepper runs supersteps on one backend.
type stepper interface {
	// step runs superstep it in direction dir and returns the number of
	// vertices it activated and their push-matrix edges.
	step(it int, dir Direction) (int, int64, error)
	aggregates() []float64
}

// batcher is a stepper that can run several supersteps without a host
// round trip in between (a device backend's driver.DeviceBatchRun).
type batcher interface {
	batch(it int, dir Direction, max int, pushEdges int64) ([]driver.StepReport, error)
}

// Batching: while frontiers stay small, a batching backend runs
// supersteps in batches that grow from 2 to maxBatch, so a high-diameter
// graph's thousands of tiny supersteps cost a few host round trips
// instead of one each. Pull batches go on while the frontier has fewer
// than n/smallFrontier vertices; push batches while it has fewer than
// batchEdges edges and the chooser would push it whatever came before
// (SSSP on a road network keeps tens of thousands of vertices active for
// thousands of supersteps, each a few microseconds of work on a GPU).
const (
	smallFrontier = 64
	maxBatch      = 256
	batchEdges    = 1 << 20
)

// iterationLimit is a run's limit on its supersteps, 0 for none.
func iterationLimit(spec Spec, opt Options) int {
	if opt.MaxIterations > 0 {
		return opt.MaxIterations
	}
	return spec.MaxIterations
}

// loop is the bulk-synchronous driver shared by every backend: it picks
// each superstep's direction and records what happened.
func loop[X, A any](h *hostRun[X, A], st stepper, opt Options, res *Result[X]) error {
	activeNow, frontierEdges := h.activeCount, h.initEdges
	maxIter := iterationLimit(h.spec, opt)
	nnz := h.nnz
	ch := &chooser{opt: opt, n: h.n, nnz: nnz, unexplored: nnz, dir: Push, lastActive: activeNow,
		filtered: h.wants != nil}
	if h.push == nil {
		ch.dir, ch.opt.Direction = Pull, Pull
	}
	if res.Backend == "cpu" && h.wants == nil && h.done == nil && opt.alphaDefault {
		// (whole or in parts: the same pull kernels)
		ch.opt.Alpha, ch.fullPull = cpuFullPullAlpha(par.Workers()), true
	}
	bt, canBatch := st.(batcher)
	size := 1
	if opt.progress != nil {
		// (a program that gathers from every neighbour does about the same
		// work every superstep: its end can be told from its start)
		uniform := 0
		if h.spec.GatherAll {
			uniform = maxIter
		}
		opt.progress.start(uniform, nnz)
	}
	for it := 0; activeNow > 0 && (maxIter == 0 || it < maxIter); {
		if opt.Context != nil {
			if err := opt.Context.Err(); err != nil {
				return fmt.Errorf("vertexprog: stopped after %d supersteps: %w", it, err)
			}
		}
		ts := time.Now()
		dir := Pull
		if h.spec.Sparse && h.push != nil {
			dir = ch.next(activeNow, frontierEdges)
		}
		var pushEdges int64
		if dir == Push {
			pushEdges = min(ch.pushLimit(), batchEdges)
		}
		// A program that cannot push pulls every superstep, so nothing the
		// host decides between its supersteps depends on their frontiers.
		// A push batch needs few frontier edges, not few vertices: a few
		// hubs can hold most of a graph's edges.
		small := activeNow*smallFrontier < h.n
		if dir == Push {
			small = frontierEdges < pushEdges
		}
		if canBatch && (h.push == nil || small) {
			size = min(2*size, maxBatch)
		} else {
			size = 1
		}
		if maxIter > 0 {
			size = min(size, maxIter-it)
		}
		var reps []driver.StepReport
		if size > 1 {
			var err error
			if reps, err = bt.batch(it, dir, size, pushEdges); err != nil {
				return err
			}
		} else {
			a, e, err := st.step(it, dir)
			if err != nil {
				return err
			}
			reps = []driver.StepReport{{Active: a, FrontierEdges: e}}
		}
		per := time.Since(ts) / time.Duration(len(reps))
		for i, r := range reps {
			activeNow, frontierEdges = r.Active, r.FrontierEdges
			res.Active = append(res.Active, activeNow)
			res.Directions = append(res.Directions, dir)
			res.StepTimes = append(res.StepTimes, per)
			if opt.Log != nil {
				opt.Log(fmt.Sprintf("superstep %d: %s, %d active after, %d frontier edges, %v",
					it, dir, activeNow, frontierEdges, per))
			}
			if i < len(reps)-1 {
				// The chooser sees every superstep, batched or not.
				ch.next(activeNow, frontierEdges)
			}
			it++
		}
		if opt.progress != nil {
			opt.progress.stepped(it)
		}
	}
	res.Iterations = len(res.Active)
	res.Aggregates = append([]float64(nil), st.aggregates()...)
	return nil
}

// canPush reports whether p may run push supersteps, and if not, why.
func canPush[X, A any](p Program[X, A]) error {
	if !p.Spec().Sparse {
		return fmt.Errorf("%w: it is not Sparse (Update of a vertex that gathered nothing may change it)", ErrPushUnsupported)
	}
	if !spmv.AtomicCapable[A]() {
		return fmt.Errorf("%w: its accumulator is not a 4- or 8-byte value without pointers, so Reduce cannot be atomic", ErrPushUnsupported)
	}
	return nil
}

// chooser is the per-superstep direction decision.
type chooser struct {
	opt        Options
	n          int
	nnz        int64
	unexplored int64
	dir        Direction
	lastActive int
	// filtered: the program's RowFilter drops visited rows from pulls.
	filtered bool
	// fullPull: a pull reads every edge whatever came before (no
	// RowFilter drops visited rows, no EarlyExit stops a row), so each
	// superstep goes the cheaper way for its own frontier, at Alpha
	// cpuFullPullAlpha on the CPU.
	fullPull bool
}

func (c *chooser) next(active int, frontierEdges int64) Direction {
	switch c.opt.Direction {
	case Push, Pull:
		return c.opt.Direction
	}
	switch c.opt.Rule {
	case GraphBLAST:
		if frontierEdges*10 > c.nnz {
			c.dir = Pull
		} else {
			c.dir = Push
		}
	default:
		if c.fullPull {
			c.dir = Push
			if float64(frontierEdges) > float64(c.nnz+int64(c.n))/c.opt.Alpha {
				c.dir = Pull
			}
		} else if c.dir == Push {
			// A pull looks at every row and then costs the unexplored
			// edges when visited rows drop out (a RowFilter, as in BFS),
			// else every edge. Counting the rows keeps the last tiny
			// frontiers of a BFS, when nearly no edge is unexplored, from
			// turning into whole-graph pulls.
			pullWork := c.nnz
			if c.filtered {
				pullWork = max(c.unexplored, 0)
			}
			pullWork += int64(c.n)
			if float64(frontierEdges) > float64(pullWork)/c.opt.Alpha {
				c.dir = Pull
			}
		} else if active < c.lastActive && float64(active) < float64(c.n)/c.opt.Beta {
			c.dir = Push
		}
	}
	c.unexplored -= frontierEdges
	c.lastActive = active
	return c.dir
}

// pushLimit is a bound on the frontier edges below which next keeps
// pushing whatever the supersteps in between were: a push batch goes on
// while its frontier stays under it. For a RowFilter's program the bound
// falls as the traversal goes on (its pull costs the unexplored edges);
// this is the bound now, so a batch may push a superstep or two that the
// chooser, looking at each, would have pulled: the same answer, at most a
// little slower, where a batch's host round trips saved are worth more.
func (c *chooser) pushLimit() int64 {
	switch c.opt.Direction {
	case Push:
		return math.MaxInt64
	case Pull:
		return 0
	}
	if c.opt.Rule == GraphBLAST {
		return c.nnz / 10
	}
	work := c.nnz
	if c.filtered {
		work = max(c.unexplored, 0)
	}
	return int64(float64(work+int64(c.n)) / c.opt.Alpha)
}
