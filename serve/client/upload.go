package client

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
)

// Edges is a graph to upload (Upload): entry i is the arc Src[i] ->
// Dst[i] of a directed graph, or the edge {Src[i], Dst[i]} of an
// undirected one, between vertices 0..N-1.
type Edges struct {
	N        int
	Src, Dst []int32
	W        []float32 // one weight an entry, or nil
	Directed bool
	// Symmetric: an undirected graph whose entries list every edge in
	// both directions (the server checks that they do).
	Symmetric bool
	// IDs are the vertices' ids in requests and answers (distinct, >= 0);
	// nil: vertex v's id is IDBase+v.
	IDs    []int64
	IDBase int64
}

// Upload sends g to the server as graph name (PUT /v1/graphs/NAME, the
// edge-array body of serve's upload.go). Of opt, the cleaning options
// apply (Symmetrize, KeepLoops, KeepDuplicates, Weights, Seed, Relabel);
// the server refuses the others.
func (c *Client) Upload(ctx context.Context, name string, g Edges, opt LoadOptions) (*Graph, error) {
	b, err := g.MarshalBinary()
	if err != nil {
		return nil, err
	}
	q, err := uploadQuery(opt)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, "PUT", c.base+graphPath(name)+"?"+q, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	resp, err := c.send(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out Graph
	return &out, json.NewDecoder(resp.Body).Decode(&out)
}

// MarshalBinary encodes g as an upload's body.
func (g Edges) MarshalBinary() ([]byte, error) {
	if len(g.Dst) != len(g.Src) || (g.W != nil && len(g.W) != len(g.Src)) || (g.IDs != nil && len(g.IDs) != g.N) {
		return nil, errors.New("hpgraph client: Edges: Src, Dst, W and IDs differ in length")
	}
	var flags uint32
	for i, set := range []bool{g.Directed, g.W != nil, g.IDs != nil, g.Symmetric} {
		if set {
			flags |= 1 << i
		}
	}
	le := binary.LittleEndian
	b := append([]byte("HPGEDGES"), 1, 0, 0, 0)
	b = le.AppendUint32(b, flags)
	b = le.AppendUint64(b, uint64(g.N))
	b = le.AppendUint64(b, uint64(len(g.Src)))
	b = le.AppendUint64(b, uint64(g.IDBase))
	for _, s := range []any{g.IDs, g.Src, g.Dst, g.W} {
		var err error
		if b, err = binary.Append(b, le, s); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// uploadQuery is opt's set fields as query parameters, under their JSON names.
func uploadQuery(opt LoadOptions) (string, error) {
	j, err := json.Marshal(opt)
	if err != nil {
		return "", err
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber() // (a seed beyond 2^53)
	if err := dec.Decode(&m); err != nil {
		return "", err
	}
	q := url.Values{}
	for k, v := range m {
		switch x := v.(type) {
		case bool:
			q.Set(k, strconv.FormatBool(x))
		case json.Number:
			q.Set(k, x.String())
		case string:
			q.Set(k, x)
		}
	}
	return q.Encode(), nil
}
