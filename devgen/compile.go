package devgen

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hpgraph/hpgraph/cuda/jit"
)

// CompileArchs are the architectures CompileCheck compiles for: the
// oldest and the newest the CUDA backend's kernels are built for.
var CompileArchs = []string{"compute_80", "compute_90"}

// ErrNoNVRTC is wrapped by CompileCheck's error where NVRTC (libnvrtc,
// the CUDA runtime compiler) cannot be opened: $HPGRAPH_NVRTC names its
// library (CUDA's lib64/libnvrtc.so*; the hpgraph repository's
// scripts/nvrtc.sh fetches one without a GPU or CUDA).
var ErrNoNVRTC = jit.ErrNoNVRTC

// CompileCheck compiles each program's device code with NVRTC for
// CompileArchs, as the backend compiles it (the same options), with what
// the backend's prelude gives device code and a kernel that calls every
// function of the contract: the generated CUDA compiles, checked on a
// machine without a GPU. Its error names the program and the
// architecture, with NVRTC's log.
func CompileCheck(progs []*Program) error {
	for _, p := range progs {
		for _, arch := range CompileArchs {
			if _, err := jit.Compile(compileSource(p), jit.Options(arch), false); err != nil {
				if errors.Is(err, jit.ErrNoNVRTC) {
					return err
				}
				return fmt.Errorf("devgen: %s: %s: %w", p.Name, arch, err)
			}
		}
	}
	return nil
}

// CompileCheckDir is CompileCheck of the programs RunTypes(dir, out,
// names) generates (without writing them).
func CompileCheckDir(dir string, names []string) ([]string, error) {
	pkg, err := Load(dir)
	if err != nil {
		return nil, err
	}
	_, progs, err := GenerateTypes(pkg, names)
	if err != nil {
		return nil, err
	}
	var checked []string
	for _, p := range progs {
		checked = append(checked, p.Name)
	}
	return checked, CompileCheck(progs)
}

// compileSource is p's device code as CompileCheck compiles it.
func compileSource(p *Program) string { return stub + p.Source + kernel(p) }

// stub is what the backend's prelude gives device code (Step), enough
// to compile a program's snippet alone, and a kernel that calls every
// function of the contract.
const stub = `struct Step {
  int iteration;
  const double* prev;
  double* acc;
  __device__ double aggregate(int i) const { return prev[i]; }
  __device__ void add(int i, double v) { acc[i] += v; }
};
`

func kernel(p *Program) string {
	var b strings.Builder
	b.WriteString(`extern "C" __global__ void vp_test(A_t* a, X_t* x, State s, Step st, int* out) {
  A_t acc = vp_identity();
  acc = vp_gather(acc, threadIdx.x, 1, x[1], 1.0f, s);
  acc = vp_reduce(acc, a[threadIdx.x]);
  a[threadIdx.x] = acc;
  out[threadIdx.x] = vp_update(threadIdx.x, acc, x + threadIdx.x, s, st);
`)
	if p.HasWants {
		b.WriteString("  out[1] = vp_wants(threadIdx.x, s);\n")
	}
	if p.HasDone {
		b.WriteString("  out[2] = vp_done(acc);\n")
	}
	if p.Init {
		b.WriteString("  out[4] = vp_init(threadIdx.x, x + threadIdx.x, s, st);\n")
	}
	if p.HasPriority {
		b.WriteString("  out[5] = vp_priority(threadIdx.x, x[threadIdx.x], s) < 1.0f;\n")
	}
	b.WriteString("#ifdef VP_FOLD_ATOMIC\n  out[3] = vp_fold_atomic(a, threadIdx.x, 1, x[1], 1.0f, s);\n#endif\n}\n")
	return b.String()
}
