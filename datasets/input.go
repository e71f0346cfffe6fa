package datasets

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// Format is a graph file format Load can be told to read, where detection
// (by content, then by name) would pick another or cannot tell: LDBC's
// adjacency lists have no extension of their own, and a plain edge list
// may be named .e like LDBC's edge files.
type Format int

const (
	// FormatAuto detects the format (see Load).
	FormatAuto Format = iota
	FormatMatrixMarket
	FormatEdgeList
	FormatCache
	// FormatLDBC is an LDBC Graphalytics graph: a vertex file (.v), an
	// edge file (.e) and optionally its .properties (FindLDBCFiles).
	FormatLDBC
	// FormatLDBCAdjacency is an LDBC adjacency list, "v n1 n2 ..." per
	// line (ReadLDBCAdjacency).
	FormatLDBCAdjacency
	// FormatGAP is a GAP serialized graph (.sg, .wsg: gap.go).
	FormatGAP
)

var formatNames = []string{"auto", "mtx", "edgelist", "hpg", "ldbc", "ldbc-adj", "gap"}

func (f Format) String() string {
	if int(f) >= 0 && int(f) < len(formatNames) {
		return formatNames[f]
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// ParseFormat reads a format's name: auto, mtx, edgelist, hpg, ldbc,
// ldbc-adj or gap.
func ParseFormat(s string) (Format, error) {
	for i, name := range formatNames {
		if s == name {
			return Format(i), nil
		}
	}
	return FormatAuto, fmt.Errorf("format %q: want %s", s, strings.Join(formatNames, ", "))
}

// Override is a yes or no that the caller may leave to the file.
type Override int8

const (
	// FromFile leaves the answer to the file (or its .properties).
	FromFile Override = iota
	OverrideYes
	OverrideNo
)

// Input says how Load reads a file where the file itself does not say.
// Directed and Weighted concern the formats that do not carry them: LDBC
// graphs (over their .properties) and adjacency lists; every other format
// declares both itself, and setting them for one is an error.
type Input struct {
	Format Format
	// Directed says whether each edge of an LDBC graph is an arc (yes) or
	// an undirected edge listed once (no).
	Directed Override
	// Weighted says whether the third column of an LDBC edge file is the
	// edge's weight (yes) or the file has two columns (no).
	Weighted Override
}

// given reports whether in overrides what the file says.
func (in Input) given() bool { return in.Directed != FromFile || in.Weighted != FromFile }

// extOf is the lower-case extension of path, a trailing ".gz" aside.
func extOf(path string) string {
	lower := strings.ToLower(path)
	return filepath.Ext(strings.TrimSuffix(lower, ".gz"))
}

// optionName is how this package's errors (and apps') name an option a
// caller can set: Input.Directed, Options.Symmetrize, ...
var optionName = regexp.MustCompile(`\b(?:Input|Options)\.[A-Z][A-Za-z]*\b`)

// RenameOptions rewrites the options an error message names (as
// Input.Directed, Options.Weights: the library's fields) with a front
// end's names for them (--directed or --undirected, a JSON field); one
// that names lacks is left as it is.
func RenameOptions(msg string, names map[string]string) string {
	return optionName.ReplaceAllStringFunc(msg, func(opt string) string {
		if n, ok := names[opt]; ok {
			return n
		}
		return opt
	})
}
