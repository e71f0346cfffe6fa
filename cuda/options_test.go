package cuda

import (
	"sync"
	"testing"
)

// withOptions sets the options for the rest of t (restored when t ends)
// to the current ones as f changes them.
func withOptions(t testing.TB, f func(o *Options)) {
	t.Helper()
	old := CurrentOptions()
	o := old
	f(&o)
	if err := SetOptions(o); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = SetOptions(old) })
}

// TestDefaultOptions: the defaults are the values the kernels and the
// prebuilt images were measured and made with, and a process starts
// with them.
func TestDefaultOptions(t *testing.T) {
	want := Options{Texture: true, Graphs: true, Tiles: TilesResident, LoopCluster: 16}
	if d := DefaultOptions(); d != want {
		t.Fatalf("DefaultOptions() = %+v, want %+v", d, want)
	}
	if c := CurrentOptions(); c != want {
		t.Fatalf("CurrentOptions() at start = %+v, want %+v", c, want)
	}
	if err := want.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestSetOptions(t *testing.T) {
	defer func(old Options) { _ = SetOptions(old) }(CurrentOptions())
	good := []Options{
		DefaultOptions(),
		{},
		{Texture: false, Graphs: false, Tiles: TilesNever, LoopCluster: 0},
		{Texture: true, Graphs: false, Tiles: TilesAlways, LoopCluster: 1},
		{Tiles: TilesResident, LoopCluster: 8},
		{LoopCluster: MaxLoopCluster},
	}
	for _, o := range good {
		if err := SetOptions(o); err != nil {
			t.Fatalf("SetOptions(%+v): %v", o, err)
		}
		if c := CurrentOptions(); c != o {
			t.Fatalf("after SetOptions(%+v), CurrentOptions() = %+v", o, c)
		}
	}
	set := Options{Graphs: true, Tiles: TilesAlways, LoopCluster: 3}
	if err := SetOptions(set); err != nil {
		t.Fatal(err)
	}
	bad := []Options{
		{LoopCluster: -1},
		{LoopCluster: MaxLoopCluster + 1},
		{Tiles: TilesNever + 1},
		{Tiles: -1},
	}
	for _, o := range bad {
		if err := SetOptions(o); err == nil {
			t.Errorf("SetOptions(%+v) accepted", o)
		}
		// (an invalid set changes nothing)
		if c := CurrentOptions(); c != set {
			t.Fatalf("after the refused SetOptions(%+v), CurrentOptions() = %+v, want %+v", o, c, set)
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

// TestOptionsConcurrent: SetOptions and CurrentOptions may race with
// each other (go test -race), and a reader sees one whole Options.
func TestOptionsConcurrent(t *testing.T) {
	defer func(old Options) { _ = SetOptions(old) }(CurrentOptions())
	a := Options{Texture: true, Graphs: true, Tiles: TilesAlways, LoopCluster: 16}
	b := Options{Tiles: TilesNever, LoopCluster: 1}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 1000 {
				if (i+j)%2 == 0 {
					_ = SetOptions(a)
				} else {
					_ = SetOptions(b)
				}
				if c := CurrentOptions(); c != a && c != b {
					t.Errorf("CurrentOptions() = %+v, neither set", c)
					return
				}
			}
		}()
	}
	wg.Wait()
}
