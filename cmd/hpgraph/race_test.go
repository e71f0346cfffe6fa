package main

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// openingDevice is a device backend whose opening (its first Available)
// takes open, and which counts the runs started on it. It is available
// only while on, so that other tests do not see it.
type openingDevice struct {
	on     atomic.Bool
	opened atomic.Bool
	once   sync.Once
	open   time.Duration
	starts atomic.Int32
}

func (d *openingDevice) Name() string { return "test-opening-device" }
func (d *openingDevice) Available() error {
	if !d.on.Load() {
		return errors.New("only in TestRunRacesTheDevice")
	}
	d.once.Do(func() { d.opened.Store(true); time.Sleep(d.open) })
	return nil
}
func (d *openingDevice) Start(*driver.DeviceJob) (driver.DeviceRun, error) {
	d.starts.Add(1)
	return nil, errors.New("the test device runs nothing")
}

var testOpening = &openingDevice{open: 400 * time.Millisecond}

func init() { driver.Register(testOpening) }

// TestRunRacesTheDevice: `run --backend auto` of one answer that the CPU
// gives sooner than the race would open the device (vertexprog.OpenLazily)
// answers on the CPU without opening the device, says so, writes what
// --backend cpu writes, and opens and starts nothing on the device; the
// record says why.
func TestRunRacesTheDevice(t *testing.T) {
	if gpuUnavailable() == nil {
		t.Skip("a GPU is usable here: auto races it, not the test's device")
	}
	dir, g := kron10(t)
	want := filepath.Join(dir, "cpu.txt")
	if out, err := cudaCmd(t, "run", "bfs", g, "--backend", "cpu", "--out", want); err != nil {
		t.Fatalf("--backend cpu: %v\n%s", err, out)
	}
	testOpening.on.Store(true)
	defer testOpening.on.Store(false)
	got, js := filepath.Join(dir, "auto.txt"), filepath.Join(dir, "auto.json")
	t0 := time.Now()
	out, err := cudaCmd(t, "run", "bfs", g, "--out", got, "--json", js)
	took := time.Since(t0)
	if err != nil {
		t.Fatalf("--backend auto: %v\n%s", err, out)
	}
	if !regexp.MustCompile(`backend cpu \(raced: the CPU answered in [0-9.]+[µm]?s; the device was not opened`).MatchString(out) ||
		!regexp.MustCompile(`no device set-up \(--backend auto: the race opens the device only where the CPU has not answered first\)`).MatchString(out) {
		t.Errorf("the output does not say the CPU won the race:\n%s", out)
	}
	if took >= testOpening.open {
		t.Errorf("the answer took %v: it waited for the device (%v to open)", took, testOpening.open)
	}
	a, _ := os.ReadFile(want)
	b, _ := os.ReadFile(got)
	if len(a) == 0 || string(a) != string(b) {
		t.Errorf("the raced answer (%d bytes) differs from --backend cpu's (%d bytes)", len(b), len(a))
	}
	if r := readRecord(t, js); r.Backend != "cpu" || r.BackendWhy == "" {
		t.Errorf("record: backend %q, why %q", r.Backend, r.BackendWhy)
	}
	if testOpening.opened.Load() || testOpening.starts.Load() != 0 {
		t.Errorf("the device was opened (%v), %d runs started on it: the CPU answered first", testOpening.opened.Load(), testOpening.starts.Load())
	}
}
