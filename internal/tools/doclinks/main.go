// Command doclinks checks that the documentation's citations resolve:
// every `docs/<path>.md#<anchor>` named in the module's source files (Go,
// CUDA C, shell, Python, Makefile, Markdown...) and every relative link
// `[text](PATH.md#anchor)` of a Markdown file names a file that exists
// and, where it gives an anchor, a heading of that file whose GitHub
// anchor it is. Code cites performance notes this way
// (docs/perf/gpu-kernels.md#pull-coo-by-row-bins) instead of by section
// numbers that move when the notes are reorganised (issue 38).
//
//	go run ./internal/tools/doclinks [root]
//
// It prints each broken citation as file:line: citation: why, and exits 1
// when there is one. Its test runs it over the module.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	broken, err := check(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "doclinks:", err)
		os.Exit(2)
	}
	for _, b := range broken {
		fmt.Println(b)
	}
	if len(broken) > 0 {
		os.Exit(1)
	}
}

// Slug is the anchor GitHub gives a heading: lower case, every character
// but letters, digits, marks, spaces, '-' and '_' dropped, spaces as '-'.
func Slug(heading string) string {
	heading = mdLink.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Anchors are the anchors of a Markdown text's headings (ATX headings
// outside fenced code), a repeated one numbered as GitHub numbers it
// (name, name-1, name-2...).
func Anchors(md []byte) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fence := ""
	sc := bufio.NewScanner(bytes.NewReader(md))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		t := strings.TrimLeft(line, " ")
		if len(line)-len(t) <= 3 && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")) {
			switch {
			case fence == "":
				fence = t[:3]
			case strings.HasPrefix(t, fence):
				fence = ""
			}
			continue
		}
		if fence != "" || len(line)-len(t) > 3 {
			continue
		}
		level := len(t) - len(strings.TrimLeft(t, "#"))
		if level < 1 || level > 6 || (len(t) > level && t[level] != ' ') {
			continue
		}
		text := strings.TrimRight(strings.TrimSpace(t[level:]), "#")
		s := Slug(text)
		if n := seen[s]; n > 0 {
			out[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

var (
	mdLink = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	// A citation from anywhere: a path under docs/ to a Markdown file,
	// with an anchor or without.
	cited = regexp.MustCompile(`\bdocs/[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md(#[A-Za-z0-9_-]+)?`)
	// A Markdown link's target that is a file of the tree: no scheme.
	linked = regexp.MustCompile(`\]\(([^)\s:]*?\.md)?(#[^)\s]+)?\)`)
)

// self is this tool's folder, skipped: its tests cite missing files on
// purpose.
const self = "internal/tools/doclinks"

// skipDir: folders that hold no sources of the module.
var skipDir = map[string]bool{".git": true, "bin": true, "node_modules": true, ".peers": true, "__pycache__": true}

// check walks root and returns the broken citations, sorted.
func check(root string) ([]string, error) {
	anchors := map[string]map[string]bool{} // by path relative to root
	anchorsOf := func(rel string) (map[string]bool, bool) {
		if a, ok := anchors[rel]; ok {
			return a, a != nil
		}
		md, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			anchors[rel] = nil
			return nil, false
		}
		anchors[rel] = Anchors(md)
		return anchors[rel], true
	}
	var broken []string
	report := func(file string, line int, c, why string) {
		broken = append(broken, fmt.Sprintf("%s:%d: %s: %s", file, line, c, why))
	}
	resolve := func(file string, line int, c, target, anchor string) {
		a, ok := anchorsOf(target)
		switch {
		case !ok:
			report(file, line, c, "no such file")
		case anchor != "" && !a[anchor]:
			report(file, line, c, "no heading with this anchor in "+target)
		}
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			if p != root && (skipDir[d.Name()] || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || filepath.ToSlash(rel) == self) {
				return filepath.SkipDir
			}
			return nil
		}
		if info, err := d.Info(); err != nil || !info.Mode().IsRegular() || info.Size() > 4<<20 {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.IndexByte(data, 0) >= 0 {
			return nil // binary
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		isMD := strings.HasSuffix(rel, ".md")
		for i, line := range strings.Split(string(data), "\n") {
			for _, ix := range cited.FindAllStringIndex(line, -1) {
				c := line[ix[0]:ix[1]]
				if ix[0] > 0 && strings.ContainsRune("/.-_", rune(line[ix[0]-1])) {
					continue // docs/ of another tree (../shared/docs/...)
				}
				if isMD && ix[0] >= 2 && line[ix[0]-2:ix[0]] == "](" {
					continue // a relative link: below
				}
				target, anchor, _ := strings.Cut(c, "#")
				resolve(rel, i+1, c, target, anchor)
			}
			if !isMD {
				continue
			}
			for _, m := range linked.FindAllStringSubmatch(line, -1) {
				target, anchor := m[1], strings.TrimPrefix(m[2], "#")
				if target == "" && anchor == "" {
					continue
				}
				if target == "" {
					target = rel
				} else {
					target = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(rel), target)))
				}
				resolve(rel, i+1, strings.TrimSuffix(strings.TrimPrefix(m[0], "]("), ")"), target, anchor)
			}
		}
		return nil
	})
	sort.Strings(broken)
	return broken, err
}
