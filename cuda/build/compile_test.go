//go:build cgo

package build

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/cuda/internal/gputest"
	"github.com/hpgraph/hpgraph/cuda/jit"
	"github.com/hpgraph/hpgraph/cuda/rt"
)

var testDev gputest.Device[*Device]

// needGPU is device 0 with the PREPROCESS layer, opened once for the
// package's tests, or skips t without a GPU (gputest.Need).
func needGPU(t testing.TB) *Device {
	t.Helper()
	return testDev.Get(t, openTest)
}

func openTest() (*Device, error) { return Open(0) }

func needNVRTC(t testing.TB) { t.Helper(); gputest.NeedNVRTC(t, jit.Load()) }

// testArchs are the device's architecture, or without one, Ampere's and
// Hopper's.
func testArchs() []string {
	if d, err := testDev.Open(openTest); err == nil {
		return []string{d.Arch()}
	}
	return []string{"compute_80", "compute_90"}
}

// modules are PREPROCESS's modules: each source, the kernels its module
// looks up, and the constants the Go side shares with it.
var modules = []struct {
	file, src string
	kernels   []string
	consts    map[string]int
}{
	{"hybbuild.cu", hybBuildSource, hybBuildKernels, map[string]int{"HB_THREADS * HB_PER": hbTile, "HB_OR_ROWS": orientRows, "HB_OR_SEG": orSegment}},
	{"transpose.cu", transposeSource, transposeKernels, map[string]int{"TR_THREADS": rt.BlockSize, "TR_DIGIT_BITS": trDigitBits}},
	{"tilesdev.cu", tilesDevSource, tilesDevKernels, map[string]int{"TL_THREADS": rt.BlockSize, "TL_W": tileWarps, "TL_CAPDIV": tileCapDiv,
		"TL_WINDOW": tileNearWindow, "TL_MAXSLOTS": tlMaxSlots, "TL_PEND": tlNearInts, "TL_WAIT": tlGroupInts * 2 / 3}},
}

// TestCompileModules: each PREPROCESS module's kernels compile for every
// target, its module looks up exactly the kernels its source defines,
// and the constants it shares with the Go side agree (with
// HPGRAPH_PTX_DIR, the PTX goes there for make cuda-regs).
func TestCompileModules(t *testing.T) {
	re := regexp.MustCompile(`extern "C" __global__ void (?:__launch_bounds__\(\w+\) )?(\w+)\(`)
	for _, m := range modules {
		var found []string
		for _, k := range re.FindAllStringSubmatch(m.src, -1) {
			found = append(found, k[1])
		}
		if !slices.Equal(found, m.kernels) {
			t.Errorf("%s defines %v, its module looks up %v", m.file, found, m.kernels)
		}
		for name, v := range m.consts {
			if a, b, ok := strings.Cut(name, " * "); ok {
				// (a product of two constants)
				x, y := defined(m.src, a), defined(m.src, b)
				if x*y != v {
					t.Errorf("%s: %s is %d, the Go side %d", m.file, name, x*y, v)
				}
				continue
			}
			c := regexp.MustCompile(`#define ` + name + ` (\d+)`).FindStringSubmatch(m.src)
			if c == nil {
				t.Errorf("%s: %s not found", m.file, name)
			} else if got, _ := strconv.Atoi(c[1]); got != v {
				t.Errorf("%s: %s is %d, the Go side %d", m.file, name, got, v)
			}
		}
	}
	if trTile != rt.BlockSize*16 || trScanChunk != rt.BlockSize*16 || trRadix != rt.BlockSize ||
		!strings.Contains(transposeSource, "#define TR_ITEMS 16 ") || !strings.Contains(transposeSource, "#define TR_SCAN_CHUNK (TR_THREADS * 16) ") {
		t.Errorf("trTile %d, trScanChunk %d, trRadix %d: transpose.cu's TR_TILE, TR_SCAN_CHUNK and TR_RADIX differ", trTile, trScanChunk, trRadix)
	}
	if tlMaxSlots < 1<<TileRowBitsFor(8, false)+tileVMax(TileRowBitsFor(8, false)) || tlMaxSlots < 1<<TileRowBitsFor(4, false)+tileVMax(TileRowBitsFor(4, false)) {
		t.Errorf("tlMaxSlots %d: the runs' segments do not fit", tlMaxSlots)
	}
	needNVRTC(t)
	for _, m := range modules {
		for _, arch := range testArchs() {
			ptx, _, err := jit.PTX(m.src, arch)
			if err != nil {
				t.Fatalf("%s, %s: %v", m.file, arch, err)
			}
			for _, k := range m.kernels {
				if !strings.Contains(ptx, ".entry "+k+"(") {
					t.Errorf("%s, %s: PTX lacks kernel %s", m.file, arch, k)
				}
			}
			if dir := os.Getenv("HPGRAPH_PTX_DIR"); dir != "" {
				name := strings.TrimSuffix(m.file, ".cu") + "." + arch + ".ptx"
				if err := os.WriteFile(filepath.Join(dir, name), []byte(ptx), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// defined is the number src #defines name as (0 where it does not).
func defined(src, name string) int {
	c := regexp.MustCompile(`#define ` + name + ` (\d+)`).FindStringSubmatch(src)
	if c == nil {
		return 0
	}
	v, _ := strconv.Atoi(c[1])
	return v
}

// TestPrebuiltCoversModules: PREPROCESS's modules, whose sources depend
// on no program, have an image for sm_90, so a change to one without
// a new image fails here instead of compiling at run time on every fresh
// machine (jit.CheckPrebuilt: HPGRAPH_CUDA_PREBUILD=DIR writes it).
func TestPrebuiltCoversModules(t *testing.T) {
	for _, m := range modules {
		if err := jit.CheckPrebuilt(m.src, "compute_90"); err != nil {
			t.Errorf("%s: %v", m.file, err)
		}
	}
}
