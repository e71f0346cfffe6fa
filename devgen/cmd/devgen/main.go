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
// See docs/devgen.md for the Go subset it translates.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/hpgraph/hpgraph/devgen"
)

func main() {
	verbose := flag.Bool("v", false, "list the programs translated")
	out := flag.String("o", devgen.DefaultOutput, "the generated file's name, in each package's directory")
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
	}
	if failed {
		os.Exit(1)
	}
}
