package vertexprog

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// minLabel spreads vertex 0's label 0, a Sparse program whose frontier on
// a path is one vertex: the shape that makes the loop batch.
type minLabel struct{}

func (minLabel) Spec() Spec { return Spec{Edges: AllEdges, Sparse: true} }
func (minLabel) Init(v int32, _ *Step) (int32, bool) {
	if v == 0 {
		return 0, true
	}
	return 1 << 20, false
}
func (minLabel) Identity() int32                                        { return 1 << 30 }
func (minLabel) Gather(acc int32, _, _ int32, l int32, _ float32) int32 { return min(acc, l) }
func (minLabel) Reduce(a, b int32) int32                                { return min(a, b) }
func (minLabel) Update(_ int32, acc int32, l *int32, _ *Step) bool {
	if acc < *l {
		*l = acc
		return true
	}
	return false
}

// batchingCPU runs the CPU stepper through the batch path, as a device
// backend with DeviceBatchRun would, and records the batch sizes asked for.
type batchingCPU struct {
	*cpuStepper[int32, int32]
	sizes []int
}

func (b *batchingCPU) batch(it int, dir Direction, max int, _ int64) ([]driver.StepReport, error) {
	b.sizes = append(b.sizes, max)
	var reps []driver.StepReport
	for i := 0; i < max; i++ {
		a, e, _ := b.step(it+i, dir)
		reps = append(reps, driver.StepReport{Active: a, FrontierEdges: e})
		if a == 0 {
			break
		}
	}
	return reps, nil
}

// TestBatchedLoopMatchesSingleSteps runs minLabel on a path (a frontier
// of one vertex: the vertex rule batches) and on 1000 paths of 30 from
// vertex 0 (a frontier of 1000 of 30001 vertices, above n/64, but of 2000
// edges, which the chooser pushes whatever happens: the edge rule
// batches), batched and not.
func TestBatchedLoopMatchesSingleSteps(t *testing.T) {
	path := &datasets.EdgeList{N: 3000}
	for v := 0; v+1 < path.N; v++ {
		path.Src, path.Dst = append(path.Src, int32(path.N-1-v)), append(path.Dst, int32(path.N-2-v))
	}
	const paths, length = 1000, 30
	ladder := &datasets.EdgeList{N: 1 + paths*length}
	for p := 0; p < paths; p++ {
		prev := int32(0)
		for i := 0; i < length; i++ {
			v := int32(1 + p*length + i)
			ladder.Src, ladder.Dst = append(ladder.Src, prev), append(ladder.Dst, v)
			prev = v
		}
	}
	for name, el := range map[string]*datasets.EdgeList{"path": path, "paths": ladder} {
		g0, err := datasets.Build(el, datasets.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, limit := range []int{0, 17} {
			run := func(batch bool) (*Result[int32], []int) {
				g := NewGraph(g0)
				opt := Options{MaxIterations: limit}.withDefaults()
				opt.HYB = hyb.CPUOptions()
				h, err := prepare(g, Program[int32, int32](minLabel{}), opt, false, nil)
				if err != nil {
					t.Fatal(err)
				}
				h.materialize()
				res := &Result[int32]{}
				cs := newCPUStepper(h, opt, false)
				var st stepper = cs
				var bc *batchingCPU
				if batch {
					bc = &batchingCPU{cpuStepper: cs}
					st = bc
				}
				if err := loop(h, st, opt, res); err != nil {
					t.Fatal(err)
				}
				res.X = h.x
				if bc != nil {
					return res, bc.sizes
				}
				return res, nil
			}
			plain, _ := run(false)
			batched, sizes := run(true)
			if !slices.Equal(plain.X, batched.X) || !slices.Equal(plain.Active, batched.Active) ||
				!slices.Equal(plain.Directions, batched.Directions) {
				t.Fatalf("%s, limit %d: batched run differs: %d vs %d supersteps", name, limit, batched.Iterations, plain.Iterations)
			}
			if limit > 0 && batched.Iterations != limit {
				t.Errorf("%s, limit %d: %d supersteps", name, limit, batched.Iterations)
			}
			if len(sizes) == 0 || limit == 0 && name == "path" && slices.Max(sizes) != maxBatch {
				t.Errorf("%s, limit %d: batch sizes %v, want growth to %d", name, limit, sizes, maxBatch)
			}
			if last := batched.Active[len(batched.Active)-1]; limit == 0 && last != 0 {
				t.Errorf("%s: ran until %d vertices were active, want 0", name, last)
			}
			if name == "paths" && (plain.Active[0] != paths || len(sizes) < 3) {
				t.Errorf("paths, limit %d: %d vertices active after superstep 0 (want %d), batch sizes %v (want batches past superstep 0)",
					limit, plain.Active[0], paths, sizes)
			}
		}
	}
}

// TestContextStopsARun: a run whose context is done stops before its next
// superstep with an error wrapping the context's, and one whose context
// is live runs to the end.
func TestContextStopsARun(t *testing.T) {
	g0, err := gen.Grid(30, 30)
	if err != nil {
		t.Fatal(err)
	}
	d, err := datasets.Build(g0, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := NewGraph(d)
	ctx, cancel := context.WithCancel(context.Background())
	steps := 0
	opt := Options{Backend: "cpu", Context: ctx, Log: func(string) {
		if steps++; steps == 3 {
			cancel()
		}
	}}
	_, err = Run(g, Program[int32, int32](minLabel{}), opt)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled run returned %v, want context.Canceled", err)
	}
	if steps != 3 {
		t.Fatalf("%d supersteps ran after the cancel at the third", steps-3)
	}
	res, err := Run(g, Program[int32, int32](minLabel{}), Options{Backend: "cpu", Context: context.Background()})
	if err != nil || res.Iterations < 10 {
		t.Fatalf("a live context: %v, %d supersteps", err, res.Iterations)
	}
}
