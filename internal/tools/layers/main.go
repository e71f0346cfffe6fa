// Command layers measures how the packages below a folder stand (issue
// 38): in each package, which of its files import which (file A imports
// file B when A uses an identifier declared in B: a function, method,
// type, field, variable or constant), the floors its files stand on, the
// imports that run back up, and the source files over a size.
//
// Floors: a file that imports no other file of its package stands on
// floor 1, any other one floor above the highest file it imports; files
// that import each other (a cycle) stand on one floor together, and each
// import between them runs back up. A package of files that import
// nothing of each other stands on 1 floor.
//
//	go run ./internal/tools/layers [-max-floors 8] [-max-lines 700] [-check] [-v] [./cuda/...]
//
// With -check it exits 1 when a package has an import that runs back up,
// more floors than -max-floors, or a non-generated source file (Go, tests
// included, or CUDA C) longer than -max-lines lines, or when the device
// code (.cu, .cuh) of the packages writes more than one scan loop (a
// __shfl_up_sync in a loop doubling its offset: one block scan, built on
// one warp scan) or the module more than one NVRTC loader (Go files that
// look up nvrtcCreateProgram).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// listed is what go list says of a package.
type listed struct {
	ImportPath, Dir, Export string
	GoFiles, CgoFiles       []string
	TestGoFiles             []string
	XTestGoFiles            []string
	EmbedFiles              []string
	IgnoredGoFiles          []string
}

// report is one package's measurements.
type report struct {
	Path     string
	Files    int
	Lines    int
	Floors   int
	BackUps  []edge // imports that run back up (inside a cycle)
	Edges    int
	Long     []string // "file: lines" over the limit
	FloorsOf map[string]int
	Scans    []string // "file:line" of each scan loop in its device code
}

type edge struct{ From, To string }

func main() {
	maxFloors := flag.Int("max-floors", 8, "the most floors a package may stand on (-check)")
	maxLines := flag.Int("max-lines", 700, "the most lines of a non-generated source file (-check)")
	check := flag.Bool("check", false, "exit 1 when a package breaks a bound")
	verbose := flag.Bool("v", false, "list each package's files by floor and its imports that run back up")
	flag.Parse()
	patterns := flag.Args()
	if len(patterns) == 0 {
		patterns = []string{"./cuda/..."}
	}
	reps, err := measure(patterns, *maxLines)
	if err != nil {
		fmt.Fprintln(os.Stderr, "layers:", err)
		os.Exit(2)
	}
	loaders, err := nvrtcLoaders()
	if err != nil {
		fmt.Fprintln(os.Stderr, "layers:", err)
		os.Exit(2)
	}
	bad := write(os.Stdout, reps, loaders, *maxFloors, *verbose)
	if *check && bad {
		os.Exit(1)
	}
}

// write prints the reports and says whether one breaks a bound.
func write(w io.Writer, reps []report, loaders []string, maxFloors int, verbose bool) (bad bool) {
	tf, tl := 0, 0
	var scans []string
	for _, r := range reps {
		tf += r.Files
		tl += r.Lines
		scans = append(scans, r.Scans...)
		fmt.Fprintf(w, "%-40s %3d files %6d lines %3d imports %2d floors %3d back up", r.Path, r.Files, r.Lines, r.Edges, r.Floors, len(r.BackUps))
		if len(r.Long) > 0 {
			fmt.Fprintf(w, "  long: %s", strings.Join(r.Long, ", "))
		}
		fmt.Fprintln(w)
		if verbose {
			byFloor := map[int][]string{}
			for f, fl := range r.FloorsOf {
				byFloor[fl] = append(byFloor[fl], f)
			}
			for fl := r.Floors; fl >= 1; fl-- {
				sort.Strings(byFloor[fl])
				fmt.Fprintf(w, "    floor %2d: %s\n", fl, strings.Join(byFloor[fl], " "))
			}
			for _, e := range r.BackUps {
				fmt.Fprintf(w, "    back up: %s -> %s\n", e.From, e.To)
			}
		}
		if len(r.BackUps) > 0 || r.Floors > maxFloors || len(r.Long) > 0 {
			bad = true
		}
	}
	fmt.Fprintf(w, "%d packages, %d files, %d lines\n", len(reps), tf, tl)
	fmt.Fprintf(w, "device code: %d scan loops (%s); module: %d NVRTC loaders (%s)\n",
		len(scans), strings.Join(scans, " "), len(loaders), strings.Join(loaders, " "))
	return bad || len(scans) > 1 || len(loaders) > 1
}

// measure lists the packages of patterns and measures each.
func measure(patterns []string, maxLines int) ([]report, error) {
	pkgs, err := goList(append([]string{"-deps", "-export"}, patterns...))
	if err != nil {
		return nil, err
	}
	exports := map[string]string{}
	for _, p := range pkgs {
		exports[p.ImportPath] = p.Export
	}
	roots, err := goList(patterns)
	if err != nil {
		return nil, err
	}
	var reps []report
	for _, p := range roots {
		r, err := measurePackage(p, exports, maxLines)
		if err != nil {
			return nil, err
		}
		reps = append(reps, r)
	}
	return reps, nil
}

func goList(args []string) ([]listed, error) {
	cmd := exec.Command("go", append([]string{"list", "-json"}, args...)...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var pkgs []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			return nil, err
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// measurePackage type-checks p's files (cgo's C names left unchecked)
// and measures them.
func measurePackage(p listed, exports map[string]string, maxLines int) (report, error) {
	r := report{Path: p.ImportPath, FloorsOf: map[string]int{}}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range append(append([]string{}, p.GoFiles...), p.CgoFiles...) {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return r, err
		}
		files = append(files, f)
	}
	// Sizes: every source file of the folder (Go, tests included, and
	// the CUDA C it embeds).
	var all []string
	all = append(all, p.GoFiles...)
	all = append(all, p.CgoFiles...)
	all = append(all, p.TestGoFiles...)
	all = append(all, p.XTestGoFiles...)
	all = append(all, p.IgnoredGoFiles...)
	for _, e := range p.EmbedFiles {
		if strings.HasSuffix(e, ".cu") || strings.HasSuffix(e, ".cuh") || strings.HasSuffix(e, ".h") {
			all = append(all, e)
		}
	}
	sort.Strings(all)
	for i, name := range all {
		if i > 0 && all[i-1] == name {
			continue
		}
		n, generated, err := lines(filepath.Join(p.Dir, name))
		if err != nil {
			return r, err
		}
		if strings.HasSuffix(name, ".cu") || strings.HasSuffix(name, ".cuh") {
			at, err := scanLoops(filepath.Join(p.Dir, name))
			if err != nil {
				return r, err
			}
			for _, l := range at {
				r.Scans = append(r.Scans, fmt.Sprintf("%s:%d", filepath.Base(p.Dir)+"/"+name, l))
			}
		}
		if !strings.HasSuffix(name, "_test.go") && !strings.HasSuffix(name, ".cu") && !strings.HasSuffix(name, ".cuh") {
			r.Files++
			r.Lines += n
		} else if strings.HasSuffix(name, ".cu") || strings.HasSuffix(name, ".cuh") {
			r.Files++
			r.Lines += n
		}
		if !generated && n > maxLines {
			r.Long = append(r.Long, fmt.Sprintf("%s: %d", name, n))
		}
	}
	if len(files) == 0 {
		return r, nil
	}
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		e := exports[path]
		if e == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(e)
	})
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: imp, FakeImportC: true, Error: func(error) {}}
	pkg, _ := conf.Check(p.ImportPath, fset, files, info)

	fileOf := func(pos token.Pos) string {
		if !pos.IsValid() {
			return ""
		}
		return filepath.Base(fset.Position(pos).Filename)
	}
	names := map[string]bool{}
	for _, f := range files {
		names[filepath.Base(fset.Position(f.Pos()).Filename)] = true
	}
	uses := map[string]map[string]bool{}
	for n := range names {
		uses[n] = map[string]bool{}
	}
	note := func(at token.Pos, obj types.Object) {
		if obj == nil || obj.Pkg() != pkg {
			return
		}
		from, to := fileOf(at), fileOf(obj.Pos())
		if from != to && names[from] && names[to] {
			uses[from][to] = true
		}
	}
	for id, obj := range info.Uses {
		note(id.Pos(), obj)
	}
	for sel, s := range info.Selections {
		note(sel.Sel.Pos(), s.Obj())
	}
	// Methods a type gets from its declarations elsewhere count where a
	// value of the type is used through them (above); a file that
	// declares a method of a type imports the type's file.
	for _, f := range files {
		from := fileOf(f.Pos())
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil {
				continue
			}
			ast.Inspect(fd.Recv, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok {
					note(id.Pos(), info.Uses[id])
				}
				return true
			})
			_ = from
		}
	}
	floors, back := layer(uses)
	r.FloorsOf = floors
	for _, fl := range floors {
		r.Floors = max(r.Floors, fl)
	}
	r.BackUps = back
	for _, to := range uses {
		r.Edges += len(to)
	}
	return r, nil
}

// layer orders the files so that as few imports as it can find run
// back up (from a file to one at or above its own floor: a cycle has at
// least one), gives each file its floor over the other imports, and
// returns the ones that run back up. Without cycles none does and the
// floors are the longest chains of imports.
func layer(uses map[string]map[string]bool) (map[string]int, []edge) {
	var nodes []string
	for n := range uses {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	order := feedbackOrder(nodes, uses)
	pos := map[string]int{}
	for i, n := range order {
		pos[n] = i
	}
	// order: imported files first; an import of a file later in the
	// order runs back up.
	floors := map[string]int{}
	var back []edge
	for _, v := range order {
		fl := 1
		for _, w := range sorted(uses[v]) {
			if pos[w] >= pos[v] {
				back = append(back, edge{v, w})
				continue
			}
			fl = max(fl, floors[w]+1)
		}
		floors[v] = fl
	}
	sort.Slice(back, func(i, j int) bool {
		if back[i].From != back[j].From {
			return back[i].From < back[j].From
		}
		return back[i].To < back[j].To
	})
	return floors, back
}

// feedbackOrder orders nodes, imported ones first, so that few imports
// go forward (a heuristic for the minimum feedback arc set: Eades, Lin
// and Smyth's greedy order, then moves of single files while one lowers
// the count). Deterministic.
func feedbackOrder(nodes []string, uses map[string]map[string]bool) []string {
	users := map[string]map[string]bool{}
	for _, n := range nodes {
		users[n] = map[string]bool{}
	}
	for v, ws := range uses {
		for w := range ws {
			users[w][v] = true
		}
	}
	left := map[string]bool{}
	for _, n := range nodes {
		left[n] = true
	}
	outIn := func(v string) (out, in int) {
		for w := range uses[v] {
			if left[w] {
				out++
			}
		}
		for w := range users[v] {
			if left[w] {
				in++
			}
		}
		return
	}
	// head: files that import nothing left (they go first); tail: files
	// nothing left imports (last).
	var head, tail []string
	for len(left) > 0 {
		progress := true
		for progress {
			progress = false
			for _, n := range nodes {
				if !left[n] {
					continue
				}
				out, in := outIn(n)
				if out == 0 {
					head = append(head, n)
					delete(left, n)
					progress = true
				} else if in == 0 {
					tail = append(tail, n)
					delete(left, n)
					progress = true
				}
			}
		}
		if len(left) == 0 {
			break
		}
		// The file that imports least and is imported most goes first.
		best, bestD := "", 0
		for _, n := range nodes {
			if !left[n] {
				continue
			}
			out, in := outIn(n)
			if d := in - out; best == "" || d > bestD {
				best, bestD = n, d
			}
		}
		head = append(head, best)
		delete(left, best)
	}
	order := head
	for i := len(tail) - 1; i >= 0; i-- {
		order = append(order, tail[i])
	}
	cost := func(o []string) int {
		pos := map[string]int{}
		for i, n := range o {
			pos[n] = i
		}
		c := 0
		for v, ws := range uses {
			for w := range ws {
				if pos[w] >= pos[v] {
					c++
				}
			}
		}
		return c
	}
	best := cost(order)
	for improved := true; improved; {
		improved = false
		for i := range order {
			for j := range order {
				if i == j {
					continue
				}
				o := append([]string{}, order[:i]...)
				o = append(o, order[i+1:]...)
				o = append(o[:j:j], append([]string{order[i]}, o[j:]...)...)
				if c := cost(o); c < best {
					order, best, improved = o, c, true
				}
			}
		}
	}
	return order
}

func sorted(m map[string]bool) []string {
	var s []string
	for k := range m {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}

// lines counts a file's lines and says whether it is generated (a line
// "// Code generated ... DO NOT EDIT." before its package clause).
func lines(name string) (int, bool, error) {
	f, err := os.Open(name)
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n, generated := 0, false
	for sc.Scan() {
		n++
		l := sc.Text()
		if strings.HasPrefix(l, "// Code generated ") && strings.HasSuffix(l, " DO NOT EDIT.") {
			generated = true
		}
	}
	return n, generated, sc.Err()
}

// scanLoops are the lines of a CUDA file where a scan loop shuffles up:
// a __shfl_up_sync within two lines of a loop doubling its offset
// ("<<= 1)"), comments aside.
func scanLoops(name string) ([]int, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	ls := strings.Split(string(b), "\n")
	var at []int
	for i, l := range ls {
		code, _, _ := strings.Cut(l, "//")
		if !strings.Contains(code, "__shfl_up_sync(") {
			continue
		}
		for j := max(0, i-2); j < i; j++ {
			if c, _, _ := strings.Cut(ls[j], "//"); strings.Contains(c, "<<= 1)") {
				at = append(at, i+1)
				break
			}
		}
	}
	return at, nil
}

// nvrtcLoaders are the module's Go files that look up NVRTC's entry
// points themselves (the string nvrtcCreateProgram, in a cgo preamble).
func nvrtcLoaders() ([]string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		return nil, fmt.Errorf("go list -m: %v", err)
	}
	root := strings.TrimSpace(string(out))
	var found []string
	err = filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && (strings.HasPrefix(e.Name(), ".") || e.Name() == "bin") && path != root {
			return filepath.SkipDir
		}
		if e.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(`"nvrtc`+`CreateProgram"`)) { // (split: this file is no loader)
			rel, _ := filepath.Rel(root, path)
			found = append(found, rel)
		}
		return nil
	})
	return found, err
}
