// Command devgen writes the device code of the vertex programs in the
// package in the current directory (or the directories given): for each
// type implementing vertexprog.Program, a Device method whose CUDA C is
// translated from the Go methods. Use it from go generate:
//
//	//go:generate go run github.com/hpgraph/hpgraph/devgen/cmd/devgen
//
// -type names the programs to translate where others in the package keep
// hand-written device code, and the instantiations of generic programs
// to translate (-type 'Program[float32],Program[float64]').
//
// -check also compiles the generated CUDA with NVRTC for compute_80 and
// compute_90, as the GPU backend compiles it, on a machine without a GPU:
// it needs libnvrtc ($HPGRAPH_NVRTC names it; CUDA's lib64 has one, and
// the hpgraph repository's scripts/nvrtc.sh fetches one) and fails,
// saying so, where there is none.
//
// See docs/devgen.md for the Go subset it translates.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/hpgraph/hpgraph/devgen"
)

func main() {
	verbose := flag.Bool("v", false, "list the programs translated")
	out := flag.String("o", devgen.DefaultOutput, "the generated file's name, in each package's directory")
	check := flag.Bool("check", false, "also compile the generated CUDA with NVRTC for compute_80 and compute_90 (needs libnvrtc: $HPGRAPH_NVRTC)")
	typeList := flag.String("type", "", "comma-separated names of the programs to translate, instantiations T[float32] of generic ones among them (default: every non-generic program of the package)")
	flag.Parse()
	var names []string
	if *typeList != "" {
		names = devgen.SplitTypes(*typeList)
	}
	dirs := flag.Args()
	if len(dirs) == 0 {
		dirs = []string{"."}
	}
	failed := false
	for _, d := range dirs {
		progs, err := devgen.RunTypes(d, *out, names)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			failed = true
			continue
		}
		for _, p := range progs {
			if !*verbose {
				break
			}
			fmt.Fprintf(os.Stderr, "devgen: %s: %s\n", d, p)
		}
		if !*check {
			continue
		}
		checked, err := devgen.CompileCheckDir(d, names)
		if errors.Is(err, devgen.ErrNoNVRTC) {
			fmt.Fprintf(os.Stderr, "devgen -check: %v (CUDA's lib64 has one; hpgraph's scripts/nvrtc.sh fetches one without CUDA)\n", err)
			os.Exit(2)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			failed = true
			continue
		}
		if *verbose {
			fmt.Fprintf(os.Stderr, "devgen: %s: %d programs compile for %v\n", d, len(checked), devgen.CompileArchs)
		}
	}
	if failed {
		os.Exit(1)
	}
}
