//go:build cgo

package gen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/cuda/internal/gputest"
	"github.com/hpgraph/hpgraph/cuda/jit"
	"github.com/hpgraph/hpgraph/cuda/rt"
)

// TestCompileGen: the kernels compile with NVRTC for the device, or
// without one for Ampere and Hopper (make cuda-compile, in CI), and each
// kernel Kernels names is in the module (with HPGRAPH_PTX_DIR, the PTX
// goes there for make cuda-regs).
func TestCompileGen(t *testing.T) {
	gputest.NeedNVRTC(t, jit.Load())
	archs := []string{"compute_80", "compute_90"}
	if d, err := rt.Open(0); err == nil {
		archs = []string{d.Arch()}
	}
	for _, arch := range archs {
		ptx, _, err := jit.PTX(Source, arch)
		if err != nil {
			t.Fatalf("%s: %v", arch, err)
		}
		if dir := os.Getenv("HPGRAPH_PTX_DIR"); dir != "" {
			if err := os.WriteFile(filepath.Join(dir, "gen."+arch+".ptx"), []byte(ptx), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, k := range Kernels {
			if !strings.Contains(ptx, ".entry "+k+"(") {
				t.Errorf("%s: kernel %s is not in the PTX", arch, k)
			}
		}
	}
}
