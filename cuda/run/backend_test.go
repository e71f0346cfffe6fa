//go:build cgo

package run

import (
	"sync"
	"testing"

	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// registered is this package's backend on device 0, registered as
// "cuda" for its tests as package cuda registers its own (which imports
// this package, so these tests cannot), with options the tests set.
var registered = newTestBackend()

func init() { driver.Register(registered) }

type testBackend struct {
	Backend
	Settings
	open sync.Once
	dev  *Device
	err  error
}

func newTestBackend() *testBackend {
	b := &testBackend{}
	_ = b.SetOptions(DefaultOptions())
	b.Backend = Backend{Dev: b.device, Opt: b.Options}
	return b
}

func (b *testBackend) device() (*Device, error) {
	b.open.Do(func() { b.dev, b.err = Open(0) })
	return b.dev, b.err
}

func (*testBackend) Name() string { return "cuda" }

func (b *testBackend) Available() error { _, err := b.device(); return err }

// PartDevices and StartParts make it a driver.PartBackend: every part on
// device 0.
func (b *testBackend) PartDevices() int { return 1 }

func (b *testBackend) StartParts(jobs []*driver.DeviceJob, comm driver.Comm) (driver.DeviceRun, error) {
	devs, err := b.onDevice0(len(jobs))
	if err != nil {
		return nil, err
	}
	return StartParts(devs, jobs, comm, b.Options())
}

// PartComponents makes it a driver.PartComponentsBackend: every part
// on device 0.
func (b *testBackend) PartComponents(parts []*driver.Matrix, info []driver.Part, comm driver.Comm) (driver.ComponentsRun, error) {
	devs, err := b.onDevice0(len(parts))
	if err != nil {
		return nil, err
	}
	return StartPartComponents(devs, parts, info, comm)
}

// onDevice0 is n parts' devices: device 0 each.
func (b *testBackend) onDevice0(n int) ([]*Device, error) {
	d, err := b.device()
	if err != nil {
		return nil, err
	}
	devs := make([]*Device, n)
	for i := range devs {
		devs[i] = d
	}
	return devs, nil
}

// withOptions sets the registered backend's options for the rest of t
// (restored when t ends) to the current ones as f changes them.
func withOptions(t testing.TB, f func(o *Options)) {
	t.Helper()
	old := registered.Options()
	o := old
	f(&o)
	if err := registered.SetOptions(o); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = registered.SetOptions(old) })
}

// TestDefaultOptions: the defaults are the values the kernels and the
// prebuilt images were measured and made with.
func TestDefaultOptions(t *testing.T) {
	want := Options{Texture: true, Graphs: true, Tiles: TilesResident, LoopCluster: 16}
	if d := DefaultOptions(); d != want {
		t.Fatalf("DefaultOptions() = %+v, want %+v", d, want)
	}
	if err := want.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []Options{{LoopCluster: -1}, {LoopCluster: MaxLoopCluster + 1}, {Tiles: TilesNever + 1}, {Tiles: -1}} {
		if bad.Validate() == nil {
			t.Errorf("Validate accepted %+v", bad)
		}
	}
}

func TestTileMode(t *testing.T) {
	for _, m := range []TileMode{TilesResident, TilesAlways, TilesNever} {
		got, err := ParseTileMode(m.String())
		if err != nil || got != m {
			t.Errorf("ParseTileMode(%q) = %v, %v; want %v", m.String(), got, err, m)
		}
	}
	if TilesResident.String() != "auto" {
		t.Errorf("TilesResident is %q, want auto", TilesResident.String())
	}
	for _, s := range []string{"", "on", "1", "Auto", "resident"} {
		if _, err := ParseTileMode(s); err == nil {
			t.Errorf("ParseTileMode(%q) accepted", s)
		}
	}
}
