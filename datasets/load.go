package datasets

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hpgraph/hpgraph/internal/par"
)

// Progress receives how far the reading of a file has got: bytesRead of
// totalBytes, both counted in bytes of the file as stored (compressed bytes
// for a gzip file), so bytesRead reaches totalBytes at the end.
type Progress func(bytesRead, totalBytes int64)

// LoadOption changes how Load and LoadEdgeList read a file.
type LoadOption func(*loadConfig)

type loadConfig struct {
	progress Progress
	input    Input
}

const (
	progressEvery = 200 * time.Millisecond
	// progressStep caps a single read so that reading a large cache file
	// still reports progress.
	progressStep = 64 << 20
)

// WithProgress makes Load and LoadEdgeList call p while they read the
// file, at most about five times a second, and once more at the end of a
// successful load with bytesRead == totalBytes. p is called from the
// goroutines that read the file (one call at a time, bytesRead never
// decreasing), so it must be quick and safe to call concurrently with the
// caller.
func WithProgress(p Progress) LoadOption {
	return func(c *loadConfig) { c.progress = p }
}

// WithInput makes LoadEdgeList read the file as in says (Load takes it
// from Options.Input).
func WithInput(in Input) LoadOption {
	return func(c *loadConfig) { c.input = in }
}

// Load reads a graph file and builds it with opt. The format is
// opt.Input.Format, or detected: an LDBC graph (a path ending in .v, .e
// or .properties names its files, see FindLDBCFiles; an LDBC adjacency
// list is read only when Input.Format says so), an hpgraph cache (.hpg,
// by its magic bytes), Matrix Market (a %%MatrixMarket banner, or the
// extension .mtx or .mm), a GAP serialized graph (.sg or .wsg, as GAP's
// converter writes them with -b and -wb), otherwise an edge list (.txt, .el, .edgelist,
// .csv, .tsv, .snap, ..., and a .e file that starts with the header
// WriteEdgeList writes). Any of them may be gzip-compressed (recognized
// by its magic bytes; a .gz suffix is ignored when looking at the
// extension).
//
// A cache holds a graph already built, so only the options that change
// the graph are applied to it, by rebuilding it from its arcs: Symmetrize
// on a directed graph, WeightsNone on a weighted one, WeightsRandom. The
// cleaning it was built with stays: self loops dropped or duplicates
// merged then cannot be restored.
func Load(path string, opt Options, options ...LoadOption) (*Graph, error) {
	if format := LDBCFormat(path, opt.Input); format != FormatAuto {
		el, err := loadLDBC(path, format, opt.Input, options)
		if err != nil {
			return nil, err
		}
		return Build(el, opt)
	}
	in, err := openInput(path, options)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	format, err := in.format(path, opt.Input)
	if err != nil {
		return nil, err
	}
	var g *Graph
	if format == formatCache {
		if g, err = in.readCache(path); err == nil {
			g, err = applyToCache(g, opt)
		}
	} else if format == formatGAP {
		g, err = readGAPGraph(source{r: in.r, name: path, size: in.size}, gapWeighted(path), opt)
	} else {
		var el *EdgeList
		if el, err = in.readText(path, format); err == nil {
			g, err = Build(el, opt)
		}
	}
	if err != nil {
		return nil, err
	}
	in.finish()
	return g, nil
}

// LoadEdgeList reads a graph file as Load does, without building it; a
// cache gives its arcs (Graph.EdgeList).
func LoadEdgeList(path string, options ...LoadOption) (*EdgeList, error) {
	var cfg loadConfig
	for _, o := range options {
		o(&cfg)
	}
	if format := LDBCFormat(path, cfg.input); format != FormatAuto {
		return loadLDBC(path, format, cfg.input, options)
	}
	in, err := openInput(path, options)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	format, err := in.format(path, cfg.input)
	if err != nil {
		return nil, err
	}
	var el *EdgeList
	if format == formatCache {
		var g *Graph
		if g, err = in.readCache(path); err == nil {
			el = g.EdgeList()
		}
	} else {
		el, err = in.readText(path, format)
	}
	if err != nil {
		return nil, err
	}
	in.finish()
	return el, nil
}

// Open opens a file for reading, decompressing it when it holds gzip data
// (recognized by its magic bytes, whatever its name). Truncated or corrupt
// compressed data makes Read fail with an error naming the file.
func Open(path string) (io.ReadCloser, error) {
	in, err := openInput(path, nil)
	if err != nil {
		return nil, err
	}
	if in.gz != nil {
		in.gz.name = path
	}
	return in, nil
}

func applyToCache(g *Graph, opt Options) (*Graph, error) {
	reweigh := opt.Weights != WeightsKeep && (g.W != nil || opt.Weights != WeightsNone)
	if (opt.Symmetrize && g.Directed) || (reweigh && !keepsCleaning(g, opt)) {
		return Build(g.EdgeList(), opt)
	}
	if reweigh {
		// New weights only: in place on the cache's arcs, as Build would
		// weigh them (random weights are a function of the arc's ends),
		// without rebuilding the graph from its edge list (kron21 with
		// --weights random: 1.2 s and 4.6 times the file, for what one
		// pass over the arcs makes).
		var err error
		if g, err = reweighed(g, opt); err != nil {
			return nil, err
		}
	}
	return g.Relabel(opt.Relabel), nil
}

// keepsCleaning says whether building g's arcs again with opt would keep
// every one of them: no parallel arcs to merge (g is RepeatFree, or opt
// keeps duplicates) and no self loops to drop.
func keepsCleaning(g *Graph, opt Options) bool {
	if !g.RepeatFree && !opt.KeepDuplicates {
		return false
	}
	if opt.KeepSelfLoops {
		return true
	}
	loops := make([]bool, par.Workers())
	par.Blocks(g.N, func(w, lo, hi int) {
		for u := int32(lo); u < int32(hi); u++ {
			if _, ok := slices.BinarySearch(g.Neighbors(u), u); ok {
				loops[w] = true
				return
			}
		}
	})
	return !slices.Contains(loops, true)
}

// reweighed is g with the weights opt asks for (none, or random) in place
// of its own: its arcs shared, the weights filled on every core.
func reweighed(g *Graph, opt Options) (*Graph, error) {
	weight, err := weigher(opt, nil)
	if err != nil {
		return nil, err
	}
	h := *g
	h.W = nil
	if weight != nil {
		h.W = make([]float32, len(g.Col))
		bounds := par.Split(g.N, 4*par.Workers(), func(i int) int64 { return g.RowPtr[i] + int64(i) })
		par.Parts(bounds, func(_, lo, hi int) {
			for u := int32(lo); u < int32(hi); u++ {
				for i := g.RowPtr[u]; i < g.RowPtr[u+1]; i++ {
					h.W[i] = weight(int(i), u, g.Col[i])
				}
			}
		})
	}
	return &h, nil
}

// EdgeList returns the arcs of g as an edge list: every arc of a directed
// graph, each edge of an undirected graph once (u -> v with u <= v), so
// that Build turns it back into g (with options that keep what g kept).
// W, IDs and IDBase are g's; W and IDs share storage with g.
func (g *Graph) EdgeList() *EdgeList {
	first := func(u int32) int64 {
		if g.Directed {
			return g.RowPtr[u]
		}
		k, _ := slices.BinarySearch(g.Neighbors(u), u)
		return g.RowPtr[u] + int64(k)
	}
	off := make([]int64, g.N+1)
	par.Blocks(g.N, func(_, lo, hi int) {
		for u := lo; u < hi; u++ {
			off[u+1] = g.RowPtr[u+1] - first(int32(u))
		}
	})
	for u := range g.N {
		off[u+1] += off[u]
	}
	m := off[g.N]
	el := &EdgeList{
		N: g.N, Src: make([]int32, m), Dst: make([]int32, m),
		Directed: g.Directed, IDs: g.IDs, IDBase: g.IDBase, Name: g.Name,
	}
	if g.W != nil {
		el.W = make([]float32, m)
	}
	par.Blocks(g.N, func(_, lo, hi int) {
		for u := int32(lo); u < int32(hi); u++ {
			k := off[u]
			for i := first(u); i < g.RowPtr[u+1]; i++ {
				el.Src[k], el.Dst[k] = u, g.Col[i]
				if g.W != nil {
					el.W[k] = g.W[i]
				}
				k++
			}
		}
	})
	return el
}

type fileFormat int

const (
	formatEdgeList fileFormat = iota
	formatMatrixMarket
	formatCache
	formatGAP
)

// input is an open graph file, decompressed if need be.
type input struct {
	f       *os.File
	r       *bufio.Reader // the content, decompressed
	size    int64         // bytes r delivers, or -1 when unknown (gzip, pipes)
	gz      *gzipReader   // nil unless the file is gzip data
	counter *progressReader
}

func openInput(path string, options []LoadOption) (*input, error) {
	var cfg loadConfig
	for _, o := range options {
		o(&cfg)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s: is a directory, expected a graph file", path)
	}
	in := &input{f: f, size: -1}
	var raw io.Reader = f
	if cfg.progress != nil {
		in.counter = &progressReader{r: f, total: st.Size(), fn: cfg.progress}
		raw = in.counter
	}
	br := bufio.NewReaderSize(raw, 64<<10)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		z, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", path, gzipError(err))
		}
		in.gz = &gzipReader{z: z}
		in.r = bufio.NewReaderSize(in.gz, 64<<10)
		return in, nil
	}
	in.r = br
	if st.Mode().IsRegular() {
		in.size = st.Size()
	}
	return in, nil
}

// readCache reads a cache: a plain regular file with positional reads on
// all cores, from its start (whatever detect buffered), compressed data
// and pipes as a stream.
func (in *input) readCache(path string) (*Graph, error) {
	if in.gz == nil && in.size >= 0 {
		return readCacheFile(in.f, 0, in.size, path, in.counter)
	}
	return readCache(in.r, path, in.size)
}

func (in *input) Read(p []byte) (int, error) { return in.r.Read(p) }

func (in *input) Close() error { return in.f.Close() }

// finish reports the end of a successful read to the progress callback.
func (in *input) finish() {
	if c := in.counter; c != nil {
		c.fn(c.total, c.total)
	}
}

// LDBCFormat returns the LDBC format that Load reads path in (FormatLDBC
// or FormatLDBCAdjacency), or FormatAuto for the other formats: a .v or
// .properties path names an LDBC graph, and so does a .e path, unless the
// file is an edge list WriteEdgeList wrote (whose header says so).
func LDBCFormat(path string, in Input) Format {
	switch in.Format {
	case FormatLDBC, FormatLDBCAdjacency:
		return in.Format
	case FormatAuto:
		switch extOf(path) {
		case ".v", ".properties":
			return FormatLDBC
		case ".e":
			if !hasEdgeListHeader(path) {
				return FormatLDBC
			}
		}
	}
	return FormatAuto
}

// hasEdgeListHeader reports whether the leading comment lines of the file
// at path hold the header of WriteEdgeList.
func hasEdgeListHeader(path string) bool {
	r, err := Open(path)
	if err != nil {
		return false
	}
	defer r.Close()
	br := bufio.NewReaderSize(r, 64<<10)
	for range 64 {
		line, err := br.ReadSlice('\n')
		t := bytes.TrimSpace(line)
		if hasTag(t, elHeaderTag) {
			return true
		}
		if err != nil || (len(t) > 0 && t[0] != '#' && t[0] != '%') {
			return false
		}
	}
	return false
}

// format is the format in says, or the one detected; the directedness
// and weights of in are for LDBC files only.
func (in *input) format(path string, i Input) (fileFormat, error) {
	var f fileFormat
	switch i.Format {
	case FormatMatrixMarket:
		f = formatMatrixMarket
	case FormatEdgeList:
		f = formatEdgeList
	case FormatCache:
		f = formatCache
	case FormatGAP:
		f = formatGAP
	default:
		f = in.detect(path)
	}
	if i.given() {
		what := map[fileFormat]string{formatMatrixMarket: "a Matrix Market file", formatEdgeList: "an edge list", formatCache: "an hpgraph cache", formatGAP: "a GAP serialized graph"}[f]
		return f, fmt.Errorf("%s is %s, which says itself whether it is directed and weighted: Input.Directed and Input.Weighted are for LDBC graphs (.v/.e, Input.Format ldbc or ldbc-adj); Options.Symmetrize makes any graph undirected", path, what)
	}
	return f, nil
}

// detect tells the format by the content first, then by the extension.
func (in *input) detect(path string) fileFormat {
	head, _ := in.r.Peek(64)
	if bytes.HasPrefix(head, []byte(cacheMagic)) {
		return formatCache
	}
	if t := bytes.TrimLeft(trimBOM(head), " \t\r\n"); len(t) >= 14 && strings.EqualFold(string(t[:14]), "%%MatrixMarket") {
		return formatMatrixMarket
	}
	lower := strings.ToLower(path)
	switch filepath.Ext(strings.TrimSuffix(lower, ".gz")) {
	case ".hpg":
		return formatCache
	case ".mtx", ".mm":
		return formatMatrixMarket
	case ".sg", ".wsg":
		return formatGAP
	}
	return formatEdgeList
}

func (in *input) readText(path string, format fileFormat) (*EdgeList, error) {
	src := source{r: in.r, name: path, size: in.size}
	switch format {
	case formatMatrixMarket:
		return readMatrixMarket(src)
	case formatGAP:
		return readGAP(src, gapWeighted(path))
	}
	return readEdgeList(src)
}

// gapWeighted says whether a GAP serialized graph's name says it is
// weighted (.wsg: 1) or not (.sg: 0); -1: its size must tell.
func gapWeighted(path string) int {
	switch extOf(path) {
	case ".sg":
		return 0
	case ".wsg":
		return 1
	}
	return -1
}

// gzipReader turns the errors of compressed data into plain words.
type gzipReader struct {
	z    *gzip.Reader
	name string // prefixed to errors when set (Open's callers get no line numbers)
}

func (g *gzipReader) Read(p []byte) (int, error) {
	n, err := g.z.Read(p)
	if err != nil && err != io.EOF {
		err = gzipError(err)
		if g.name != "" {
			err = fmt.Errorf("%s: %w", g.name, err)
		}
	}
	return n, err
}

func gzipError(err error) error {
	var corrupt flate.CorruptInputError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return fmt.Errorf("gzip data is truncated (the file ends inside the compressed stream): %w", err)
	case errors.Is(err, gzip.ErrChecksum):
		return fmt.Errorf("gzip data is corrupt (checksum mismatch): %w", err)
	case errors.Is(err, gzip.ErrHeader):
		return fmt.Errorf("gzip data is corrupt (invalid header): %w", err)
	case errors.As(err, &corrupt):
		return fmt.Errorf("gzip data is corrupt: %w", err)
	}
	return err
}

// progressReader counts the bytes read from the file for a Progress. The
// parallel reading of a cache file reports through add from several
// goroutines; the lock keeps the calls of fn one at a time and in order.
type progressReader struct {
	r     io.Reader
	total int64
	fn    Progress
	mu    sync.Mutex
	n     int64
	last  time.Time
}

func (c *progressReader) Read(p []byte) (int, error) {
	if len(p) > progressStep {
		p = p[:progressStep]
	}
	n, err := c.r.Read(p)
	c.add(int64(n))
	return n, err
}

// add counts n more bytes read and calls fn if it has not been called for
// progressEvery.
func (c *progressReader) add(n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n += n
	if now := time.Now(); now.Sub(c.last) >= progressEvery {
		c.last = now
		c.fn(c.n, c.total)
	}
}

// restart counts from zero again: the file is read again from its start
// (the parallel read of a cache after detect's look at its first bytes).
func (c *progressReader) restart() {
	c.mu.Lock()
	c.n = 0
	c.mu.Unlock()
}

// sizeOf returns how many bytes r will deliver when r can tell (byte and
// string readers, regular files), or -1.
func sizeOf(r io.Reader) int64 {
	switch r := r.(type) {
	case interface{ Len() int }:
		return int64(r.Len())
	case *os.File:
		st, err := r.Stat()
		if err != nil || !st.Mode().IsRegular() {
			return -1
		}
		off, err := r.Seek(0, io.SeekCurrent)
		if err != nil {
			return -1
		}
		return st.Size() - off
	}
	return -1
}
