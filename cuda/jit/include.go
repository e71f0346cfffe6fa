package jit

import (
	"embed"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
)

// headers are the device code every module may include (include/:
// scan.cuh, the warp and block scans; search.cuh, a binary search;
// radix.cuh, a radix sort's digit counts).
//
//go:embed include/*.cuh
var headers embed.FS

var includeRE = regexp.MustCompile(`^#include "([^"/]+\.cuh)"\s*$`)

// Expand returns src, the text of file name, with each line
// `#include "NAME.cuh"` replaced by that header: a layer's own (local,
// nil for none) or one of jit's (include/); each header once, the rest
// of a repeated one dropped. #line directives keep NVRTC's log naming
// the file and line of what it reports. A header not found is an error
// (the sources are embedded: a bug).
func Expand(name, src string, local fs.FS) (string, error) {
	var b strings.Builder
	done := map[string]bool{}
	var expand func(name, src string) error
	expand = func(name, src string) error {
		lines := strings.SplitAfter(src, "\n")
		for i, l := range lines {
			m := includeRE.FindStringSubmatch(strings.TrimRight(l, "\n"))
			if m == nil {
				b.WriteString(l)
				continue
			}
			h := m[1]
			if !done[h] {
				done[h] = true
				text, err := readHeader(h, local)
				if err != nil {
					return fmt.Errorf("jit: %s:%d: %w", name, i+1, err)
				}
				fmt.Fprintf(&b, "#line 1 %q\n", h)
				if err := expand(h, text); err != nil {
					return err
				}
				if !strings.HasSuffix(text, "\n") {
					b.WriteString("\n")
				}
			}
			fmt.Fprintf(&b, "#line %d %q\n", i+2, name)
		}
		return nil
	}
	if err := expand(name, src); err != nil {
		return "", err
	}
	return b.String(), nil
}

// MustExpand is Expand of embedded sources, which cannot fail but by a
// bug (a header missing): it panics then.
func MustExpand(name, src string, local fs.FS) string {
	s, err := Expand(name, src, local)
	if err != nil {
		panic(err)
	}
	return s
}

func readHeader(h string, local fs.FS) (string, error) {
	if local != nil {
		if b, err := fs.ReadFile(local, h); err == nil {
			return string(b), nil
		}
	}
	b, err := headers.ReadFile("include/" + h)
	if err != nil {
		return "", fmt.Errorf("no header %s", h)
	}
	return string(b), nil
}

// WithoutHeader drops a source part's header, its lines up to the first
// blank line: a source split in parts (each with a header saying what it
// holds) is compiled as its parts joined without theirs, the text it was
// as one file.
func WithoutHeader(part string) string {
	i := strings.Index(part, "\n\n")
	if i < 0 {
		panic("jit: a source part has no header")
	}
	return part[i+2:]
}
