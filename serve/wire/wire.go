// Package wire holds the types both sides of `hpgraph serve`'s HTTP API
// agree on — the load options every front end takes, and the bodies of
// the requests and answers — written once for the server (package serve)
// and its Go client (package serve/client). It depends on the standard
// library only, so that the client stays light: the parsing of the load
// options into the engine's terms is internal/pipeline's.
package wire

import "time"

// DefaultSeed seeds --weights random:LO-HI when no seed is given (seed
// 0 or none): GAP's seed.
const DefaultSeed = 27491095

// MaxRandomWeight is the highest weight random:LO-HI may draw: weights
// are float32, whose integers are exact up to 2^24.
const MaxRandomWeight = 1 << 24

// LoadOptions are the cleaning options of a load: the CLI's load flags
// (--symmetrize, --keep-loops, --keep-duplicates, --weights, --seed,
// --format, --directed, --undirected, --weighted, --relabel) under JSON
// names (a flag's dashes are the field's underscores), parsed by one
// parser (pipeline.ParseLoadOptions) for every front end. The zero value
// is the defaults: the file's weights, seed DefaultSeed, the format by
// content and name, and relabel auto. (`hpgraph run`'s --relabel auto
// renumbers for one answer only where that pays; a served graph stays
// loaded, so renumbering a skewed one by degree pays, as in bench:
// kron21's PageRank iteration 0.35 -> 0.2 ms on the H200.) Ids in
// requests and answers stay the file's, and the default source is the
// same vertex either way (apps.DefaultSource).
type LoadOptions struct {
	Symmetrize     bool   `json:"symmetrize,omitempty"`
	KeepLoops      bool   `json:"keep_loops,omitempty"`
	KeepDuplicates bool   `json:"keep_duplicates,omitempty"`
	Weights        string `json:"weights,omitempty"` // keep (default), none, random:LO-HI (0 <= LO <= HI <= MaxRandomWeight)
	Seed           uint64 `json:"seed,omitempty"`    // 0: DefaultSeed
	Format         string `json:"format,omitempty"`  // auto (default), mtx, edgelist, hpg, ldbc, ldbc-adj, gap
	Directed       bool   `json:"directed,omitempty"`
	Undirected     bool   `json:"undirected,omitempty"`
	Weighted       *bool  `json:"weighted,omitempty"`
	Relabel        string `json:"relabel,omitempty"` // auto (default), degree, none
}

// LoadRequest is POST /v1/graphs's body.
type LoadRequest struct {
	Name string `json:"name"`
	Path string `json:"path"` // relative to the server's data directory
	LoadOptions
}

// Graph describes a loaded graph (GET /v1/graphs/{name}).
type Graph struct {
	Name      string      `json:"name"`
	Path      string      `json:"path"` // "" for an upload
	Vertices  int         `json:"vertices"`
	Edges     int64       `json:"edges"`
	NNZ       int64       `json:"nnz"`
	Directed  bool        `json:"directed"`
	Weighted  bool        `json:"weighted"`
	IDs       string      `json:"ids"` // "contiguous from N" or "sparse"
	LoadMS    float64     `json:"load_ms"`
	LoadedAt  time.Time   `json:"loaded_at"`
	Bytes     int64       `json:"bytes"` // the estimate charged to the device budget
	Queries   int64       `json:"queries"`
	Options   LoadOptions `json:"options"`
	Backend   string      `json:"backend"`
	SelfLoops int64       `json:"self_loops_dropped"`
}

// Summary is a query's answer (output summary, the default): what
// `hpgraph run` prints, times included.
type Summary struct {
	Graph      string             `json:"graph"`
	Algo       string             `json:"algo"`
	Backend    string             `json:"backend"`
	Params     map[string]any     `json:"params"`
	Summary    string             `json:"summary"`
	Result     map[string]any     `json:"result"`
	Iterations int                `json:"iterations"`
	Vertices   int                `json:"vertices"`
	Edges      int64              `json:"edges"`
	TimesMS    map[string]float64 `json:"times_ms"`
	MTEPS      float64            `json:"mteps"`
}

// SummaryHeader carries a per-vertex answer's summary line.
const SummaryHeader = "X-Hpgraph-Summary"
