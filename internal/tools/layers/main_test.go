package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func graph(edges ...string) map[string]map[string]bool {
	g := map[string]map[string]bool{}
	for _, e := range edges {
		from, to, _ := strings.Cut(e, ">")
		if g[from] == nil {
			g[from] = map[string]bool{}
		}
		if g[to] == nil {
			g[to] = map[string]bool{}
		}
		if to != "" {
			g[from][to] = true
		}
	}
	return g
}

// TestLayer: floors are the longest chains of imports; a cycle has an
// import that runs back up (and only one where one suffices).
func TestLayer(t *testing.T) {
	floors, back := layer(graph("a>b", "b>c", "a>c", "d>c", "e>"))
	want := map[string]int{"a": 3, "b": 2, "c": 1, "d": 2, "e": 1}
	for f, fl := range want {
		if floors[f] != fl {
			t.Errorf("floor of %s = %d, want %d (%v)", f, floors[f], fl, floors)
		}
	}
	if len(back) != 0 {
		t.Errorf("a DAG has imports that run back up: %v", back)
	}
	// a <-> b, and c on a: one import runs back up, and the floors stand
	// on the others.
	floors, back = layer(graph("a>b", "b>a", "c>a"))
	if len(back) != 1 || floors["c"] != 2 || floors["a"]+floors["b"] != 3 {
		t.Errorf("a cycle: back up %v, floors %v; want one back up, a and b on floors 1 and 2, c on 2", back, floors)
	}
	// a ring of three and a chord: the chord's cycle and the ring share
	// an import, so one runs back up.
	_, back = layer(graph("a>b", "b>c", "c>a", "b>a"))
	if len(back) != 1 {
		t.Errorf("a ring with a chord: back up %v, want one", back)
	}
}

func TestScanLoops(t *testing.T) {
	src := `__device__ int one(int v) {
  for (int o = 1; o < 32; o <<= 1) {
    const int y = __shfl_up_sync(0xffffffffu, v, o);
    if (lane >= o) v += y;
  }
  // for (int o = 1; o < 32; o <<= 1) __shfl_up_sync(...) in a comment
  const int prev = __shfl_up_sync(0xffffffffu, v, 1);  // not a scan
  return v + prev;
}
`
	name := filepath.Join(t.TempDir(), "k.cu")
	if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	at, err := scanLoops(name)
	if err != nil || !slices.Equal(at, []int{3}) {
		t.Fatalf("scanLoops = %v, %v; want [3]", at, err)
	}
}

// TestCUDAStands holds cuda's packages to issue 38's bounds: no import
// runs back up, at most 8 floors, no source file over 700 lines, one scan
// loop in the device code, one NVRTC loader in the module.
func TestCUDAStands(t *testing.T) {
	reps, err := measure([]string{"github.com/hpgraph/hpgraph/cuda/..."}, 700)
	if err != nil {
		t.Fatal(err)
	}
	loaders, err := nvrtcLoaders()
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if write(&out, reps, loaders, 8, true) {
		t.Errorf("cuda breaks a bound:\n%s", out.String())
	}
	if len(reps) < 5 {
		t.Errorf("%d packages measured:\n%s", len(reps), out.String())
	}
}
