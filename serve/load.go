package serve

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/internal/pipeline"
	"github.com/hpgraph/hpgraph/serve/wire"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// LoadOptions are the cleaning options of a load: the CLI's load flags
// under JSON names, one type with the client's and one parser with the
// command line's (wire.LoadOptions, pipeline.ParseLoadOptions).
type LoadOptions = wire.LoadOptions

// optionFields are the fields of LoadOptions that name the loading
// options the library's errors name (datasets.RenameOptions).
var optionFields = pipeline.Renames(false)

// describe is err's message with the options it names as the API's
// fields.
func describe(err error) string { return datasets.RenameOptions(err.Error(), optionFields) }

// loadRequest is POST /v1/graphs's body.
type loadRequest = wire.LoadRequest

// datasetOptions parses o as the command line parses its load flags
// (pipeline.ParseLoadOptions); a bad value is an apiError naming its
// field.
func datasetOptions(o LoadOptions) (datasets.Options, *apiError) {
	opt, err := pipeline.ParseLoadOptions(o)
	if err != nil {
		e := &apiError{code: http.StatusBadRequest, msg: err.Error()}
		if oe, ok := err.(*pipeline.OptionError); ok {
			e.field = oe.Field
		}
		return opt, e
	}
	return opt, nil
}

// resolvePath returns the absolute path of rel, a path under the data
// directory: no absolute path, no '..', nothing (symlinks included) that
// leads out of it. LDBC files load their siblings (NAME.v, NAME.e,
// NAME.properties); those must stay inside too.
func (s *Server) resolvePath(rel string) (string, *apiError) {
	bad := func(format string, args ...any) (string, *apiError) {
		return "", badField("path", format, args...)
	}
	if rel == "" {
		return bad("required: a path under the data directory")
	}
	if strings.ContainsRune(rel, 0) || strings.ContainsRune(rel, '\\') {
		return bad("%q: contains a NUL or a backslash", rel)
	}
	if filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") {
		return bad("%q: absolute paths are refused; give a path relative to the data directory", rel)
	}
	if slices.Contains(strings.Split(rel, "/"), "..") || !filepath.IsLocal(rel) {
		return bad("%q: '..' is refused; give a path inside the data directory", rel)
	}
	full := filepath.Join(s.dataDir, filepath.FromSlash(rel))
	paths := []string{full}
	if ext := filepath.Ext(full); ext == ".v" || ext == ".e" || ext == ".properties" {
		base := strings.TrimSuffix(full, ext)
		paths = append(paths, base+".v", base+".e", base+".properties")
	}
	for i, p := range paths {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			if i == 0 {
				if errors.Is(err, os.ErrNotExist) {
					return "", &apiError{code: http.StatusNotFound, msg: fmt.Sprintf("path %q: no such file in the data directory", rel), field: "path"}
				}
				return bad("%q: %v", rel, stripDir(err.Error(), s.dataDir))
			}
			continue // a sibling that does not exist
		}
		if r, err := filepath.Rel(s.dataDir, real); err != nil || !filepath.IsLocal(r) {
			return bad("%q: leads out of the data directory (a symlink)", rel)
		}
		if i == 0 {
			if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() {
				return bad("%q: not a regular file", rel)
			}
		}
	}
	return full, nil
}

// stripDir keeps the data directory's absolute path out of messages.
func stripDir(msg, dir string) string {
	return strings.ReplaceAll(msg, dir+string(filepath.Separator), "")
}

// graphBytes estimates what a loaded graph takes on the backend: the
// adjacency (and its transpose or symmetric copy, which pull and
// undirected programs build), the HYB matrices of a pull and a push
// (about the nonzeros' column and value with ELL padding: 1.5x), and
// eight words of per-vertex state.
func graphBytes(d *datasets.Graph) int64 {
	nnz := d.NNZ()
	n := int64(d.N)
	csr := 8*(n+1) + 4*nnz
	if d.W != nil {
		csr += 4 * nnz
	}
	hybs := 2 * (nnz * 8 * 3 / 2)
	return 2*csr + hybs + 64*n
}

// budget returns the bytes the backend may hold for graphs (0: no limit).
func (s *Server) budget() int64 {
	if s.cfg.DeviceBudget > 0 {
		return s.cfg.DeviceBudget
	}
	if s.device {
		if _, total, ok := vertexprog.DeviceMemory(deviceName(s.cfg.Backend)); ok {
			return total
		}
	}
	return 0
}

// deviceName is the registered backend a device run uses.
func deviceName(backend string) string {
	if backend == "auto" || backend == "" {
		for _, b := range vertexprog.Backends() {
			if b != "cpu" {
				return b
			}
		}
	}
	return backend
}

// LoadGraph loads the graph at relPath (under the data directory) as name.
func (s *Server) LoadGraph(name, relPath string, o LoadOptions) error {
	_, e := s.load(loadRequest{Name: name, Path: relPath, LoadOptions: o})
	if e != nil {
		return e
	}
	return nil
}

func (s *Server) load(req loadRequest) (*loadedGraph, *apiError) {
	if e := checkName(req.Name); e != nil {
		return nil, e
	}
	opt, e := datasetOptions(req.LoadOptions)
	if e != nil {
		return nil, e
	}
	full, e := s.resolvePath(req.Path)
	if e != nil {
		return nil, e
	}
	return s.install(req.Name, req.Path, req.LoadOptions, opt, func(opt datasets.Options) (*datasets.Graph, *apiError) {
		d, err := datasets.Load(full, opt)
		if err != nil {
			return nil, &apiError{code: http.StatusBadRequest, msg: "loading " + req.Path + ": " + stripDir(describe(err), s.dataDir), field: "path"}
		}
		return d, nil
	})
}

// checkName checks a graph's name.
func checkName(name string) *apiError {
	if !nameRE.MatchString(name) {
		return badField("name", "%q: want 1 to 64 of A-Z a-z 0-9 . _ - (starting with a letter or digit)", name)
	}
	return nil
}

// install reserves name, builds the graph (build gets opt without its
// relabeling, which install applies on the backend) and adds it to the
// registry if it fits the budget. path is the file under the data
// directory, "" for an upload.
func (s *Server) install(name, path string, o LoadOptions, opt datasets.Options, build func(datasets.Options) (*datasets.Graph, *apiError)) (*loadedGraph, *apiError) {
	s.mu.Lock()
	_, loaded := s.graphs[name]
	_, busy := s.loading[name]
	if loaded || busy {
		s.mu.Unlock()
		return nil, &apiError{code: http.StatusConflict, msg: fmt.Sprintf("a graph named %q is loaded already (drop it first)", name), field: "name"}
	}
	s.loading[name] = 0
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.loading, name)
		s.mu.Unlock()
	}()
	ld, err := pipeline.Load(func(opt datasets.Options) (*datasets.Graph, error) {
		d, e := build(opt)
		if e != nil {
			return nil, e
		}
		return d, nil
	}, opt, s.cfg.Backend) // (renumbered on the GPU where the server runs there)
	if err != nil {
		var e *apiError
		if !errors.As(err, &e) {
			e = &apiError{code: http.StatusInternalServerError, msg: err.Error()}
		}
		return nil, e
	}
	d, took := ld.Data, ld.LoadTime()
	what := path
	if what == "" {
		what = "an upload"
	}
	lg := &loadedGraph{name: name, path: path, g: vertexprog.NewGraph(d), d: d, opts: o,
		loadTime: took, loadedAt: time.Now(), bytes: graphBytes(d), edges: d.Edges()}
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.budget(); b > 0 {
		var used int64
		for _, g := range s.graphs {
			used += g.bytes
		}
		if avail := b - used; lg.bytes > avail {
			field := "path"
			if path == "" {
				field = "body"
			}
			return nil, &apiError{code: http.StatusInsufficientStorage, field: field,
				msg: fmt.Sprintf("%s: graph %s does not fit the %s backend's budget: needs about %d bytes, %d available (%d budget, %d held by %d loaded graphs)",
					field, what, s.cfg.Backend, lg.bytes, max(avail, 0), b, used, len(s.graphs)),
				extra: map[string]any{"bytes_needed": lg.bytes, "bytes_available": max(avail, 0)}}
		}
	}
	s.graphs[name] = lg
	s.metrics.graphs.Inc()
	s.metrics.graphBytes.Add(float64(lg.bytes))
	s.cfg.Logf("serve: loaded graph %s from %s: %d vertices, %d edges in %.1f ms", name, what, d.N, lg.edges, ms(took))
	return lg, nil
}

func (s *Server) loadGraph(w http.ResponseWriter, r *http.Request) {
	var req loadRequest
	if e := decodeJSON(r, &req); e != nil {
		s.fail(w, e)
		return
	}
	lg, e := s.load(req)
	if e != nil {
		s.fail(w, e)
		return
	}
	s.mu.RLock()
	info := s.info(lg)
	s.mu.RUnlock()
	writeJSON(w, http.StatusCreated, info)
}
