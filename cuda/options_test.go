package cuda

import (
	"slices"
	"sync"
	"testing"
)

// TestDefaultOptions: the defaults are the values the kernels and the
// prebuilt images were measured and made with, and the registered
// backend starts with them.
func TestDefaultOptions(t *testing.T) {
	want := Options{Texture: true, Graphs: true, Tiles: TilesResident, LoopCluster: 16}
	if d := DefaultOptions(); d != want {
		t.Fatalf("DefaultOptions() = %+v, want %+v", d, want)
	}
	if c := registered.Options(); c != want {
		t.Fatalf("the registered backend's options at start = %+v, want %+v", c, want)
	}
	if err := want.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestSetOptions(t *testing.T) {
	b := newBackend(0, DefaultOptions())
	good := []Options{
		DefaultOptions(),
		{},
		{Texture: false, Graphs: false, Tiles: TilesNever, LoopCluster: 0},
		{Texture: true, Graphs: false, Tiles: TilesAlways, LoopCluster: 1},
		{Tiles: TilesResident, LoopCluster: 8},
		{LoopCluster: MaxLoopCluster},
	}
	for _, o := range good {
		if err := b.SetOptions(o); err != nil {
			t.Fatalf("SetOptions(%+v): %v", o, err)
		}
		if c := b.Options(); c != o {
			t.Fatalf("after SetOptions(%+v), Options() = %+v", o, c)
		}
	}
	set := Options{Graphs: true, Tiles: TilesAlways, LoopCluster: 3}
	if err := b.SetOptions(set); err != nil {
		t.Fatal(err)
	}
	bad := []Options{
		{LoopCluster: -1},
		{LoopCluster: MaxLoopCluster + 1},
		{Tiles: TilesNever + 1},
		{Tiles: -1},
	}
	for _, o := range bad {
		if err := b.SetOptions(o); err == nil {
			t.Errorf("SetOptions(%+v) accepted", o)
		}
		// (an invalid set changes nothing)
		if c := b.Options(); c != set {
			t.Fatalf("after the refused SetOptions(%+v), Options() = %+v, want %+v", o, c, set)
		}
		if _, err := Open(0, o); err == nil {
			t.Errorf("Open(0, %+v) accepted", o)
		}
	}
	// (another backend's options are its own)
	if c := registered.Options(); c != DefaultOptions() {
		t.Errorf("the registered backend's options changed with another's: %+v", c)
	}
}

// TestOptionsConcurrent: a backend's SetOptions and Options may race
// with each other (go test -race), and a reader sees one whole Options.
func TestOptionsConcurrent(t *testing.T) {
	b := newBackend(0, DefaultOptions())
	x := Options{Texture: true, Graphs: true, Tiles: TilesAlways, LoopCluster: 16}
	y := Options{Tiles: TilesNever, LoopCluster: 1}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 1000 {
				if (i+j)%2 == 0 {
					_ = b.SetOptions(x)
				} else {
					_ = b.SetOptions(y)
				}
				if c := b.Options(); c != x && c != y {
					t.Errorf("Options() = %+v, neither set", c)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestParseDeviceList(t *testing.T) {
	for _, c := range []struct {
		in    string
		want  DeviceList
		first int
	}{
		{"0", DeviceList{Ordinals: []int{0}}, 0},
		{"1", DeviceList{Ordinals: []int{1}}, 1},
		{"0,1", DeviceList{Ordinals: []int{0, 1}}, 0},
		{"3, 2", DeviceList{Ordinals: []int{3, 2}}, 3},
		{"all", DeviceList{All: true}, 0},
	} {
		got, err := ParseDeviceList(c.in)
		if err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		if got.All != c.want.All || !slices.Equal(got.Ordinals, c.want.Ordinals) || got.First() != c.first {
			t.Errorf("%q: %+v (first %d), want %+v (first %d)", c.in, got, got.First(), c.want, c.first)
		}
		if again, err := ParseDeviceList(got.String()); err != nil || again.All != got.All || !slices.Equal(again.Ordinals, got.Ordinals) {
			t.Errorf("%q: String %q reads back as %+v, %v", c.in, got.String(), again, err)
		}
	}
	for _, bad := range []string{"", "-1", "x", "0,", ",1", "0,0", "1.5", "ALL", "0 1"} {
		if l, err := ParseDeviceList(bad); err == nil {
			t.Errorf("%q accepted as %+v", bad, l)
		}
	}
	if l, _ := ParseDeviceList("2,0"); !slices.Equal(mustResolve(t, l), []int{2, 0}) {
		t.Errorf("2,0 resolves to %v", mustResolve(t, l))
	}
}

func mustResolve(t *testing.T, l DeviceList) []int {
	t.Helper()
	r, err := l.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestConfigure: Configure sets the registered backend's devices and
// options together, and refuses what is invalid without changing them.
func TestConfigure(t *testing.T) {
	oldDevs, oldOpt := registered.Devices(), registered.Options()
	t.Cleanup(func() { _ = Configure(oldDevs, oldOpt) })
	if d := registered.Devices(); d.All || !slices.Equal(d.Ordinals, []int{0}) {
		t.Fatalf("the registered backend starts on %v, want device 0", d)
	}
	o := Options{Tiles: TilesNever, LoopCluster: 2}
	if err := Configure(DeviceList{Ordinals: []int{0, 1}}, o); err != nil {
		t.Fatal(err)
	}
	if d := registered.Devices(); !slices.Equal(d.Ordinals, []int{0, 1}) || registered.Options() != o {
		t.Fatalf("after Configure: devices %v, options %+v", d, registered.Options())
	}
	for _, bad := range []struct {
		d DeviceList
		o Options
	}{{DeviceList{}, o}, {DeviceList{Ordinals: []int{0}}, Options{LoopCluster: -1}},
		{DeviceList{Ordinals: []int{-1}}, o}, {DeviceList{Ordinals: []int{1, 1}}, o}} {
		if err := Configure(bad.d, bad.o); err == nil {
			t.Errorf("Configure(%+v, %+v) accepted", bad.d, bad.o)
		}
		if d := registered.Devices(); !slices.Equal(d.Ordinals, []int{0, 1}) || registered.Options() != o {
			t.Fatalf("a refused Configure changed devices %v, options %+v", d, registered.Options())
		}
	}
}

// FuzzParseDeviceList: any text is refused or read as a list of
// distinct non-negative ordinals (or all) that reads back the same from
// its String.
func FuzzParseDeviceList(f *testing.F) {
	for _, s := range []string{"0", "0,1", "all", "", "-1", "0,0", " 3, 2", "1,,2", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseDeviceList(s)
		if err != nil {
			return
		}
		if l.All != (s == "all") || !l.All && len(l.Ordinals) == 0 {
			t.Fatalf("%q: %+v", s, l)
		}
		for i, n := range l.Ordinals {
			if n < 0 || slices.Contains(l.Ordinals[:i], n) {
				t.Fatalf("%q: %+v lists %d", s, l, n)
			}
		}
		again, err := ParseDeviceList(l.String())
		if err != nil || again.All != l.All || !slices.Equal(again.Ordinals, l.Ordinals) {
			t.Fatalf("%q: %+v reads back from %q as %+v, %v", s, l, l.String(), again, err)
		}
	})
}
