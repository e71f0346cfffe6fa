package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Every flag's help shows the flag as it is used: pflag takes a
// `backquoted` word of the usage for the value's name, so a boolean whose
// help quoted a command line printed "--answer hpgraph run ALGO FILE
// --backend B", as if it took arguments.
func TestFlagHelpShowsNoValueForBooleans(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			name, _ := pflag.UnquoteUsage(f)
			if f.Value.Type() == "bool" && name != "" {
				t.Errorf("%s --%s: its help shows a value %q", c.CommandPath(), f.Name, name)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot())
}

// A flag the algorithm does not take is refused, with what it takes
// (serve refuses the same parameter); verify and bench refuse a flag none
// of their algorithms takes. verify checks all its inputs before running any
// and the parameters, so a bad one fails at once.
func TestUnusedFlagsRefused(t *testing.T) {
	g := filepath.Join("..", "..", "datasets", "testdata", "karate.mtx")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "bfs", g, "--damping", "0.5"}, "bfs takes no --damping (it takes --src and --max-iter)"},
		{[]string{"run", "bfs", g, "--precision", "float32"}, "bfs takes no --precision"},
		{[]string{"run", "cc", g, "--iterations", "3"}, "cc takes no --iterations"},
		{[]string{"run", "pagerank-ldbc", g, "--iterations", "0"}, "--iterations 0: want 1 or more"},
		{[]string{"verify", "--algo", "bfs,cc", g, "--damping", "0.5"}, "--damping: none of bfs and cc takes it"},
		{[]string{"verify", "--algo", "pagerank-ldbc", g, "--iterations", "0"}, "--iterations 0: want 1 or more"},
		{[]string{"verify", g, filepath.Join(t.TempDir(), "missing.mtx")}, "missing.mtx"},
		{[]string{"bench", "--algo", "bfs", "--backend", "cpu", g, "--tolerance", "0.1"}, "bfs takes no --tolerance"},
	} {
		out, code := hpgraph(t, c.args...)
		if code == 0 || !strings.Contains(out, c.want) {
			t.Errorf("hpgraph %s: exit %d, want an error with %q:\n%s", strings.Join(c.args, " "), code, c.want, out)
		}
		if c.args[0] == "verify" && strings.Contains(out, "PASS") {
			t.Errorf("hpgraph %s ran algorithms before failing:\n%s", strings.Join(c.args, " "), out)
		}
	}
	for _, args := range [][]string{
		{"run", "pagerank", g, "--damping", "0.5", "--tolerance", "0.001", "--backend", "cpu"},
		{"run", "cdlp", g, "--iterations", "0", "--backend", "cpu"},
		{"verify", "--algo", "bfs,pagerank", g, "--damping", "0.5", "--backend", "cpu"},
	} {
		if out, code := hpgraph(t, args...); code != 0 {
			t.Errorf("hpgraph %s: exit %d:\n%s", strings.Join(args, " "), code, out)
		}
	}
}

// Where no GPU can run, run and verify on --backend auto say why (the GPU
// backend's reason), and run reports no device set-up rather than the
// time of one that never opened a device.
func TestAutoSaysWhyNoGPU(t *testing.T) {
	if len(vertexprog.Backends()) > 1 {
		t.Skip("a GPU runs here: auto uses it")
	}
	why := gpuUnavailable()
	if why == nil {
		t.Fatal("one backend, and the GPU's says it is available")
	}
	g := filepath.Join("..", "..", "datasets", "testdata", "karate.mtx")
	out, code := hpgraph(t, "run", "bfs", g)
	if code != 0 || !strings.Contains(out, "no device set-up (--backend auto: the GPU is not used: "+why.Error()+")") || strings.Contains(out, ", device set-up") {
		t.Errorf("run: exit %d, no reason (%v) or a device set-up:\n%s", code, why, out)
	}
	out, code = hpgraph(t, "verify", "--algo", "bfs", g)
	if code != 0 || !strings.HasPrefix(out, "backend auto runs on the cpu: the GPU is not used: "+why.Error()) {
		t.Errorf("verify: exit %d, no reason first:\n%s", code, out)
	}
}

// The library's errors name its options (Input.Directed,
// Options.Weights), not the command line's flags, which a Go program has
// none of; the command line names its flags in their place (describe),
// so every option an error of datasets, apps or vertexprog names has a
// flag here.
func TestLibraryErrorsNameOptionsNotFlags(t *testing.T) {
	flag := regexp.MustCompile(`--[a-z]`)
	option := regexp.MustCompile(`\b(?:Input|Options)\.[A-Z][A-Za-z]*\b`)
	for _, dir := range []string{"datasets", "apps", "vertexprog", "hyb", "gonumgraph"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", dir, "*.go"))
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				if fn, ok := call.Fun.(*ast.SelectorExpr); !ok || (fn.Sel.Name != "Errorf" && fn.Sel.Name != "New" && fn.Sel.Name != "errorf") {
					return true
				}
				for _, arg := range call.Args {
					lit, ok := arg.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					if flag.MatchString(lit.Value) {
						t.Errorf("%s: an error names a flag: %s", path, lit.Value)
					}
					for _, opt := range option.FindAllString(lit.Value, -1) {
						if optionFlags[opt] == "" {
							t.Errorf("%s: an error names %s, which has no flag in optionFlags", path, opt)
						}
					}
				}
				return true
			})
		}
	}
	err := fmt.Errorf("x.e: say it with Input.Directed, or drop duplicates (Options.KeepDuplicates)")
	if got, want := describe(err), "x.e: say it with --directed or --undirected, or drop duplicates (--keep-duplicates)"; got != want {
		t.Errorf("describe: %q, want %q", got, want)
	}
}
