package vertexprog

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"

	"github.com/hpgraph/hpgraph/spmv"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// DeviceMayRun reports whether a device backend may run here, from the
// backends' probes alone (driver.Prober; one without a probe may run): it never
// waits for a device to open. False says that none can.
func DeviceMayRun() bool {
	for _, b := range driver.Registered() {
		if _, ok := b.(driver.DeviceBackend); !ok {
			continue
		}
		if p, ok := b.(driver.Prober); !ok || p.Probe() == nil {
			return true
		}
	}
	return false
}

// ErrNoBackend is returned when the requested backend is missing or
// unusable.
var ErrNoBackend = errors.New("backend not available")

// Backends lists the backends that can run here, "cpu" first.
func Backends() []string {
	names := []string{"cpu"}
	for _, b := range driver.Registered() {
		if b.Available() == nil {
			names = append(names, b.Name())
		}
	}
	return names
}

// selectBackend resolves Options.Backend: nil means the CPU engine. Auto
// takes the first available device backend when the program has device
// code, else the CPU.
func selectBackend[X, A any](name string, p Program[X, A]) (driver.DeviceBackend, error) {
	_, hasCode := p.(DeviceProgram)
	plain := spmv.PlainData[X]() && spmv.PlainData[A]()
	return resolveBackend[driver.DeviceBackend](name, hasCode && plain, func(bool) error {
		if c, ok := p.(cpuOnlyProgram); ok {
			return fmt.Errorf("%w: %s: %w: %s", ErrNoBackend, name, ErrCPUOnly, c.cpuOnly())
		}
		if !hasCode {
			return fmt.Errorf("%w: %s cannot run %T: the program has no device code (implement vertexprog.DeviceProgram); it runs on the cpu backend", ErrNoBackend, name, p)
		}
		if !plain {
			return fmt.Errorf("%w: %s cannot run %T: its value and accumulator types must be plain data (numbers, arrays and structs of numbers)", ErrNoBackend, name, p)
		}
		return nil
	})
}

// resolveBackend resolves Options.Backend for every kind of program, T
// being the backends that run its kind: "cpu" is the CPU engine (the zero
// T); auto the first available T where the program can run on one
// (suits), else the CPU; a name, that backend, which must be a T or at
// least run programs (a driver.DeviceBackend), and which refuse may turn down,
// saying why (isT: the backend is a T; refuse must turn it down where it
// is not).
func resolveBackend[T driver.Backend](name string, suits bool, refuse func(isT bool) error) (T, error) {
	var none T
	switch name {
	case "cpu":
		return none, nil
	case "", "auto":
		if !suits {
			return none, nil
		}
		t, _ := firstBackend[T]()
		return t, nil
	}
	b, err := namedBackend(name)
	if err != nil {
		return none, err
	}
	t, ok := b.(T)
	if _, runs := b.(driver.DeviceBackend); !ok && !runs {
		return none, fmt.Errorf("%w: %s does not run programs", ErrNoBackend, name)
	}
	if err := refuse(ok); err != nil || !ok {
		return none, err
	}
	return t, nil
}

// backendChoice is selectBackend's answer.
type backendChoice struct {
	b   driver.DeviceBackend
	err error
}

// mayUseDevice says whether the backend name may resolve to a device for
// p (without opening one to find out).
func mayUseDevice[X, A any](name string, p Program[X, A]) bool {
	_, hasCode := p.(DeviceProgram)
	if name == "cpu" || !hasCode || !spmv.PlainData[X]() || !spmv.PlainData[A]() {
		return false
	}
	for _, b := range driver.Registered() {
		if _, ok := b.(driver.DeviceBackend); ok {
			return true
		}
	}
	return false
}

// firstBackend returns the first available backend, by name, that is a T.
func firstBackend[T driver.Backend]() (T, bool) {
	for _, b := range driver.Registered() {
		if t, ok := b.(T); ok && t.Available() == nil {
			return t, true
		}
	}
	var none T
	return none, false
}

// backendAs is the backend name selects for a kind of service T that
// only some backends offer (driver.DegreeRelabeler): "auto" or "" the
// first available T, "cpu" none, another name that backend where it is
// a T that can run here.
func backendAs[T driver.Backend](name string) (T, bool) {
	var none T
	switch name {
	case "cpu":
		return none, false
	case "", "auto":
		return firstBackend[T]()
	}
	b, _ := driver.Lookup(name)
	t, ok := b.(T)
	if !ok || t.Available() != nil {
		return none, false
	}
	return t, true
}

// probedAs is backendAs without waiting for a backend to open: one whose
// probe (driver.Prober) finds what it needs counts as able to run here
// (others are asked Available). Asking Available of a GPU backend waits
// for its driver and context (a quarter of a second), which a one-shot
// answer's load and race would otherwise wait for.
func probedAs[T driver.Backend](name string) (T, bool) {
	var none T
	runs := func(b driver.Backend) bool {
		if p, ok := b.(driver.Prober); ok {
			return p.Probe() == nil
		}
		return b.Available() == nil
	}
	switch name {
	case "cpu":
		return none, false
	case "", "auto":
		for _, b := range driver.Registered() {
			if t, ok := b.(T); ok && runs(b) {
				return t, true
			}
		}
		return none, false
	}
	b, _ := driver.Lookup(name)
	t, ok := b.(T)
	if !ok || !runs(b) {
		return none, false
	}
	return t, true
}

// namedBackend returns the registered backend name if it can run here.
func namedBackend(name string) (driver.Backend, error) {
	b, ok := driver.Lookup(name)
	if !ok {
		return nil, fmt.Errorf("%w: there is no backend named %q", ErrNoBackend, name)
	}
	if err := b.Available(); err != nil {
		if strings.HasPrefix(err.Error(), name+":") { // (it names itself)
			return nil, fmt.Errorf("%w: %v", ErrNoBackend, err)
		}
		return nil, fmt.Errorf("%w: %s: %v", ErrNoBackend, name, err)
	}
	return b, nil
}

// valueBytes views a slice of plain data as bytes (Go's layout).
func valueBytes[T any](s []T) []byte {
	size := int(unsafe.Sizeof(*new(T)))
	if len(s) == 0 || size == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*size)
}

// deviceStepper drives a driver.DeviceRun from the shared loop.
type deviceStepper struct {
	run driver.DeviceRun
	agg []float64
}

func (d *deviceStepper) step(it int, dir Direction) (int, int64, error) {
	a, e, agg, err := d.run.Step(it, dir)
	d.agg = agg
	return a, e, err
}

func (d *deviceStepper) aggregates() []float64 { return d.agg }

func (d *deviceStepper) batch(it int, dir Direction, max int, pushEdges int64) ([]driver.StepReport, error) {
	br, ok := d.run.(driver.DeviceBatchRun)
	if !ok || max < 2 {
		a, e, err := d.step(it, dir)
		return []driver.StepReport{{Active: a, FrontierEdges: e, Aggregates: d.agg}}, err
	}
	reps, err := br.StepBatch(it, dir, max, pushEdges)
	if err == nil && len(reps) == 0 {
		err = fmt.Errorf("vertexprog: backend ran no superstep of a batch")
	}
	if err != nil {
		return nil, err
	}
	d.agg = reps[len(reps)-1].Aggregates
	return reps, nil
}

// startDevice hands the host's PREPROCESS and Init results to a backend.
// With deviceInit the host ran no Init: the device runs vp_init and
// reports the first frontier.
func startDevice[X, A any](b driver.DeviceBackend, g *Graph, h *hostRun[X, A], resident, deviceInit bool) (*deviceStepper, error) {
	job := &driver.DeviceJob{
		Graph: g, Spec: h.spec, Code: h.p.(DeviceProgram).Device(),
		Pull: h.pull, Push: h.push,
		X: valueBytes(h.x), XSize: int(unsafe.Sizeof(*new(X))), ASize: int(unsafe.Sizeof(*new(A))),
		HasWants: h.wants != nil, HasDone: h.done != nil,
		Resident: resident, DeviceInit: deviceInit,
	}
	if !deviceInit {
		advance(h.steps, 0)
		job.Active, job.Aggregates = h.active, append([]float64(nil), h.steps[0].prev...)
	}
	run, err := b.Start(job)
	if err != nil {
		return nil, err
	}
	agg := job.Aggregates
	if deviceInit {
		ir, ok := run.(driver.DeviceInitReporter)
		if !ok {
			run.Close()
			return nil, fmt.Errorf("vertexprog: backend %s ran vp_init but does not report its frontier (driver.DeviceInitReporter)", b.Name())
		}
		h.activeCount, h.initEdges, agg = ir.Initial()
		if len(agg) != len(h.spec.Aggregators) {
			run.Close()
			return nil, fmt.Errorf("vertexprog: backend %s reported %d aggregators after vp_init; the program has %d", b.Name(), len(agg), len(h.spec.Aggregators))
		}
	}
	return &deviceStepper{run: run, agg: agg}, nil
}

// Warm opens the backend that name selects ("auto": every registered
// device backend; "cpu": none) so that later runs find it ready. Opening
// a GPU costs a fresh process hundreds of milliseconds (the driver's
// start and the context), which a caller can overlap with reading the
// graph by calling Warm in a goroutine. It returns why the backend cannot
// run (nil for "auto" when none can: runs then use the CPU).
func Warm(name string) error {
	switch name {
	case "cpu":
		return nil
	case "", "auto":
		warming.Store(true)
		Backends()
		return nil
	}
	warming.Store(true)
	_, err := namedBackend(name)
	return err
}

// DeviceMemory reports the device memory peak of the named backend (see
// driver.MemoryReporter); ok is false when the backend is the CPU, is not built
// in or cannot say.
func DeviceMemory(name string) (peak, total int64, ok bool) {
	b, _ := driver.Lookup(name)
	mr, isMR := b.(driver.MemoryReporter)
	if !isMR || b.Available() != nil {
		return 0, 0, false
	}
	peak, total = mr.DeviceMemory()
	return peak, total, true
}
