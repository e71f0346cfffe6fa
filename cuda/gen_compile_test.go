//go:build cgo

package cuda

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/cuda/gen"
)

// TestCompileGen: the kernels that make GAP's graphs on the device
// (cuda/gen) compile for every target, and the module defines each
// kernel gen.Kernels names.
func TestCompileGen(t *testing.T) {
	needNVRTC(t)
	for _, arch := range testArchs() {
		ptx, _, err := compile(gen.Source, arch)
		if err != nil {
			t.Fatalf("%s: %v", arch, err)
		}
		if dir := os.Getenv("HPGRAPH_PTX_DIR"); dir != "" {
			if err := os.WriteFile(filepath.Join(dir, "gen."+arch+".ptx"), []byte(ptx), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, k := range gen.Kernels {
			if !strings.Contains(ptx, ".entry "+k+"(") {
				t.Errorf("%s: kernel %s is not in the PTX", arch, k)
			}
		}
	}
}
