package serve

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/hpgraph/hpgraph/datasets"
)

// An upload (PUT /v1/graphs/{name}) sends a graph in the request body,
// with no file in the data directory: edge arrays, all little-endian,
// which a client writes straight from its own arrays (the Python package
// from a networkx graph, serve/client from Go slices):
//
//	offset  size  contents
//	0       8     magic "HPGEDGES"
//	8       4     format version (uploadVersion)
//	12      4     flags: 1 directed, 2 weighted, 4 has ids, 8 symmetric
//	16      8     N, the number of vertices (1 to 2^31-1)
//	24      8     M, the number of entries
//	32      8     IDBase: the id of vertex 0 when there are no ids (>= 0)
//	40      8N    ids (int64, distinct, >= 0), if it has ids
//	        4M    src (int32, in [0, N))
//	        4M    dst (int32, in [0, N))
//	        4M    weights (float32, finite), if weighted
//
// Entry i is the arc src[i] -> dst[i] of a directed graph, or the edge
// {src[i], dst[i]} of an undirected one. Symmetric (not with directed)
// says that the entries list every edge of an undirected graph in both
// directions, as a networkx graph's adjacency holds it: the server builds
// them as arcs and checks that every arc has its reverse, of the same
// weight. The load options that concern cleaning (symmetrize, keep_loops,
// keep_duplicates, weights, seed, relabel) come as query parameters, and
// the entries are cleaned and checked as a file's are (datasets.Build).
// The body is bounded by Config.MaxUploadBytes (413).
const (
	uploadMagic     = "HPGEDGES"
	uploadVersion   = 1
	uploadHeaderLen = 40
)

// The flags of an upload's header.
const (
	uploadDirected uint32 = 1 << iota
	uploadWeighted
	uploadIDs
	uploadSymmetric
	uploadFlags = uploadDirected | uploadWeighted | uploadIDs | uploadSymmetric
)

// bodyLimit is the size limit of r's body: an upload's is MaxUploadBytes.
func (s *Server) bodyLimit(r *http.Request) int64 {
	if r.Method == http.MethodPut && strings.HasPrefix(r.URL.Path, "/v1/graphs/") {
		return s.cfg.MaxUploadBytes
	}
	return s.cfg.MaxBodyBytes
}

func (s *Server) uploadGraph(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	o, e := uploadOptions(r.URL.Query())
	if e == nil {
		e = checkName(name)
	}
	var opt datasets.Options
	if e == nil {
		opt, e = datasetOptions(o)
	}
	if e == nil && r.ContentLength > s.cfg.MaxUploadBytes {
		e = uploadTooLarge(r.ContentLength, s.cfg.MaxUploadBytes)
	}
	if e != nil {
		s.fail(w, e)
		return
	}
	lg, e := s.install(name, "", o, opt, func(opt datasets.Options) (*datasets.Graph, *apiError) {
		return buildUpload(r.Body, r.ContentLength, s.cfg.MaxUploadBytes, "upload "+name, opt)
	})
	if e != nil {
		s.fail(w, e)
		return
	}
	s.mu.RLock()
	info := s.info(lg)
	s.mu.RUnlock()
	writeJSON(w, http.StatusCreated, info)
}

// uploadTooLarge is the 413 of an upload of size bytes (-1: unknown).
func uploadTooLarge(size, limit int64) *apiError {
	what := "larger than"
	if size >= 0 {
		what = fmt.Sprintf("%d bytes, over", size)
	}
	return &apiError{code: http.StatusRequestEntityTooLarge, field: "body",
		msg: fmt.Sprintf("body: %s the server's upload limit of %d bytes (--max-upload)", what, limit)}
}

// uploadOptions reads an upload's load options from its query: those of
// a load that concern cleaning, under the same names.
func uploadOptions(q url.Values) (LoadOptions, *apiError) {
	var o LoadOptions
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if len(q[k]) != 1 {
			return o, badField(k, "given %d times; give it once", len(q[k]))
		}
		v := q[k][0]
		flag := func(dst *bool) *apiError {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return badField(k, "%q: want true or false", v)
			}
			*dst = b
			return nil
		}
		var e *apiError
		switch k {
		case "symmetrize":
			e = flag(&o.Symmetrize)
		case "keep_loops":
			e = flag(&o.KeepLoops)
		case "keep_duplicates":
			e = flag(&o.KeepDuplicates)
		case "weights":
			o.Weights = v
		case "relabel":
			o.Relabel = v
		case "seed":
			seed, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				e = badField(k, "%q: want a non-negative integer", v)
			}
			o.Seed = seed
		case "path", "format", "directed", "undirected", "weighted":
			e = badField(k, "does not apply to an upload: the body's header says whether the graph is directed and weighted")
		default:
			e = badField(k, "unknown field")
		}
		if e != nil {
			return o, e
		}
	}
	return o, nil
}

// buildUpload reads an upload's body (size bytes when not -1, at most
// limit) and builds its graph with opt.
func buildUpload(body io.Reader, size, limit int64, name string, opt datasets.Options) (*datasets.Graph, *apiError) {
	el, symmetric, err := readUpload(body, size, limit, name)
	if err != nil {
		var mbe *http.MaxBytesError
		var e *apiError
		switch {
		case errors.As(err, &e):
			return nil, e
		case errors.As(err, &mbe):
			return nil, uploadTooLarge(size, mbe.Limit)
		}
		return nil, badField("body", "%v", err)
	}
	d, err := datasets.Build(el, opt)
	if err != nil {
		return nil, badField("body", "%v", err)
	}
	if symmetric && d.Directed {
		if err := checkSymmetric(d); err != nil {
			return nil, badField("body", "%v", err)
		}
		d.Directed = false
	}
	return d, nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// readUpload decodes an upload's body into an edge list (Directed also
// when symmetric, which it reports). It checks the header's sizes against
// size (when not -1) and limit before it allocates, and every id; Build
// checks the entries.
func readUpload(body io.Reader, size, limit int64, name string) (*datasets.EdgeList, bool, error) {
	le := binary.LittleEndian
	r := &countingReader{r: body}
	var hdr [uploadHeaderLen]byte
	if n, err := io.ReadFull(r, hdr[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, false, fmt.Errorf("expected a %d-byte header, found %d bytes", uploadHeaderLen, n)
		}
		return nil, false, err
	}
	if string(hdr[:8]) != uploadMagic {
		return nil, false, fmt.Errorf("expected magic %q, found %q (an upload is edge arrays, see docs/serve-openapi.yaml)", uploadMagic, hdr[:8])
	}
	if v := le.Uint32(hdr[8:]); v != uploadVersion {
		return nil, false, fmt.Errorf("expected format version %d, found %d", uploadVersion, v)
	}
	flags := le.Uint32(hdr[12:])
	if flags&^uploadFlags != 0 {
		return nil, false, fmt.Errorf("unknown flags %#x", flags&^uploadFlags)
	}
	if flags&uploadDirected != 0 && flags&uploadSymmetric != 0 {
		return nil, false, errors.New("flags directed and symmetric: a symmetric upload is an undirected graph; give one")
	}
	n, m, idBase := le.Uint64(hdr[16:]), le.Uint64(hdr[24:]), int64(le.Uint64(hdr[32:]))
	hasIDs, weighted := flags&uploadIDs != 0, flags&uploadWeighted != 0
	switch {
	case n == 0:
		return nil, false, datasets.ErrEmptyGraph
	case n > math.MaxInt32:
		return nil, false, fmt.Errorf("expected 1 to %d vertices, found %d", math.MaxInt32, n)
	case m > 1<<56: // (keeps the size below from overflowing)
		return nil, false, fmt.Errorf("%d entries: more than the body can hold", m)
	case !hasIDs && (idBase < 0 || idBase > math.MaxInt64-int64(n)):
		return nil, false, fmt.Errorf("id base %d: want ids from 0 to %d", idBase, int64(math.MaxInt64))
	}
	total := int64(uploadHeaderLen + 8*m)
	if hasIDs {
		total += 8 * int64(n)
	}
	if weighted {
		total += 4 * int64(m)
	}
	if total > limit {
		return nil, false, uploadTooLarge(total, limit)
	}
	if size >= 0 && size != total {
		return nil, false, fmt.Errorf("expected %d bytes as the header describes, found %d", total, size)
	}
	short := func(err error) error {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("expected %d bytes as the header describes, found %d", total, r.n)
		}
		return err
	}
	el := &datasets.EdgeList{N: int(n), Directed: flags&(uploadDirected|uploadSymmetric) != 0, IDBase: idBase, Name: name}
	if hasIDs {
		el.IDs = make([]int64, n)
		if err := readSection(r, el.IDs); err != nil {
			return nil, false, short(err)
		}
		if err := checkIDs(el.IDs); err != nil {
			return nil, false, err
		}
		el.IDBase = 0
	}
	el.Src, el.Dst = make([]int32, m), make([]int32, m)
	if err := readSection(r, el.Src); err != nil {
		return nil, false, short(err)
	}
	if err := readSection(r, el.Dst); err != nil {
		return nil, false, short(err)
	}
	if weighted {
		el.W = make([]float32, m)
		if err := readSection(r, el.W); err != nil {
			return nil, false, short(err)
		}
	}
	if k, err := io.ReadFull(r, make([]byte, 1)); k > 0 {
		return nil, false, fmt.Errorf("expected %d bytes as the header describes, found more", total)
	} else if err != io.EOF {
		return nil, false, err // (past the limit, or the connection failed)
	}
	return el, flags&uploadSymmetric != 0, nil
}

// readSection fills s from r, little-endian, a block at a time (so that
// no second copy of the section is held).
func readSection[T int32 | int64 | float32](r io.Reader, s []T) error {
	const block = 1 << 16
	for lo := 0; lo < len(s); lo += block {
		if err := binary.Read(r, binary.LittleEndian, s[lo:min(lo+block, len(s))]); err != nil {
			return err
		}
	}
	return nil
}

// checkIDs checks that ids are distinct and not negative, as a file's are.
func checkIDs(ids []int64) error {
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	if len(sorted) > 0 && sorted[0] < 0 {
		return fmt.Errorf("id %d: ids must be non-negative", sorted[0])
	}
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			return fmt.Errorf("id %d is given to two vertices", sorted[i])
		}
	}
	return nil
}

// checkSymmetric reports the first arc of d without its reverse of the
// same weight.
func checkSymmetric(d *datasets.Graph) error {
	t := d.Transpose()
	for v := int32(0); v < int32(d.N); v++ {
		out, in := d.Neighbors(v), t.Neighbors(v)
		ow, iw := d.Weights(v), t.Weights(v)
		for k := 0; k < max(len(out), len(in)); k++ {
			switch {
			case k < len(out) && (k == len(in) || out[k] < in[k] || (out[k] == in[k] && ow != nil && ow[k] != iw[k])):
				return fmt.Errorf("flag symmetric, but arc %d -> %d has no reverse of the same weight", d.OriginalID(v), d.OriginalID(out[k]))
			case k == len(out) || in[k] < out[k]:
				return fmt.Errorf("flag symmetric, but arc %d -> %d has no reverse of the same weight", d.OriginalID(in[k]), d.OriginalID(v))
			}
		}
	}
	return nil
}
