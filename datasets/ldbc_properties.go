package datasets

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// LDBCProperties holds the keys "graph.NAME.KEY = value" of an LDBC
// .properties file, by KEY: directed, edge-properties.names,
// bfs.source-vertex, pr.damping-factor, and so on.
type LDBCProperties struct {
	File   string
	Name   string // the graph's NAME in the keys
	values map[string]string
	lines  map[string]int64
}

// ReadLDBCProperties reads an LDBC .properties file.
func ReadLDBCProperties(path string) (*LDBCProperties, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return parseLDBCProperties(f, path, base)
}

// parseLDBCProperties reads Java properties ("key = value", "key: value"
// or "key value"; '#' and '!' comments; a trailing backslash continues a
// line) and keeps the keys of graph name, or of the one graph the file
// describes when it names another.
func parseLDBCProperties(r io.Reader, file, name string) (*LDBCProperties, error) {
	type entry struct {
		key, value string // key without "graph."
		line       int64
	}
	var entries []entry
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var n, start int64
	var logical string
	for sc.Scan() {
		n++
		line := strings.TrimLeft(sc.Text(), " \t\f")
		if logical == "" {
			start = n
			if line == "" || line[0] == '#' || line[0] == '!' {
				continue
			}
		}
		if strings.HasSuffix(line, `\`) && !strings.HasSuffix(line, `\\`) {
			logical += strings.TrimSuffix(line, `\`)
			continue
		}
		logical += line
		key, value := splitProperty(logical)
		logical = ""
		if rest, ok := strings.CutPrefix(key, "graph."); ok {
			entries = append(entries, entry{rest, value, start})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{File: file, Line: n + 1, Msg: "reading failed: " + err.Error(), Err: err}
	}
	// The keys of the graph named like the file; else of the one graph
	// the file describes (a name without dots).
	prefix := name + "."
	if !slices.ContainsFunc(entries, func(e entry) bool { return strings.HasPrefix(e.key, prefix) }) {
		graphs := map[string]bool{}
		for _, e := range entries {
			if g, _, ok := strings.Cut(e.key, "."); ok {
				graphs[g] = true
			}
		}
		names := make([]string, 0, len(graphs))
		for g := range graphs {
			names = append(names, g)
		}
		slices.Sort(names)
		if len(names) > 1 {
			return nil, &ParseError{File: file, Line: 1, Msg: fmt.Sprintf("expected the keys of graph %q, found those of %s", name, strings.Join(names, ", "))}
		}
		if len(names) == 1 {
			name, prefix = names[0], names[0]+"."
		}
	}
	p := &LDBCProperties{File: file, Name: name, values: map[string]string{}, lines: map[string]int64{}}
	for _, e := range entries {
		if k, ok := strings.CutPrefix(e.key, prefix); ok && k != "" {
			p.values[k], p.lines[k] = e.value, e.line
		}
	}
	return p, nil
}

// splitProperty splits a properties line at its first unescaped '=', ':'
// or whitespace.
func splitProperty(line string) (key, value string) {
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '=', ':', ' ', '\t', '\f':
			key, value = line[:i], strings.TrimLeft(line[i:], " \t\f")
			if value != "" && (value[0] == '=' || value[0] == ':') {
				value = strings.TrimLeft(value[1:], " \t\f")
			}
			return key, strings.TrimSpace(value)
		}
	}
	return line, ""
}

// Key is the full name of key in the file ("graph.NAME.key").
func (p *LDBCProperties) Key(key string) string { return "graph." + p.Name + "." + key }

// Get returns the value of key ("bfs.source-vertex") and whether it is set.
func (p *LDBCProperties) Get(key string) (string, bool) {
	v, ok := p.values[key]
	return v, ok
}

func (p *LDBCProperties) errorf(key, format string, args ...any) error {
	return &ParseError{File: p.File, Line: p.lines[key], Msg: p.Key(key) + ": " + fmt.Sprintf(format, args...)}
}

// Int returns key's value as an integer, whether it is set, and an error
// naming the file and line when it is not an integer.
func (p *LDBCProperties) Int(key string) (int64, bool, error) {
	v, ok := p.values[key]
	if !ok {
		return 0, false, nil
	}
	x, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, true, p.errorf(key, "expected an integer, found %q", v)
	}
	return x, true, nil
}

// Float returns key's value as a finite number, like Int.
func (p *LDBCProperties) Float(key string) (float64, bool, error) {
	v, ok := p.values[key]
	if !ok {
		return 0, false, nil
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, true, p.errorf(key, "expected a number, found %q", v)
	}
	return x, true, nil
}

// Bool returns key's value as true or false, like Int.
func (p *LDBCProperties) Bool(key string) (bool, bool, error) {
	v, ok := p.values[key]
	if !ok {
		return false, false, nil
	}
	switch strings.ToLower(v) {
	case "true":
		return true, true, nil
	case "false":
		return false, true, nil
	}
	return false, true, p.errorf(key, "expected true or false, found %q", v)
}

// list splits a comma-separated value.
func (p *LDBCProperties) list(key string) []string {
	var out []string
	for _, s := range strings.Split(p.values[key], ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
