package serve

// The API's requests: graphs loaded and dropped, paths, tokens, bad
// requests and their errors, limits.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestGraphLifecycle(t *testing.T) {
	ts := newTestServer(t, nil)
	ts.load(t, "g", "sparse.el", map[string]any{"weights": "none"})
	code, _, body := ts.do(t, "POST", "/v1/graphs", `{"name":"g","path":"sparse.el"}`)
	wantError(t, code, body, http.StatusConflict, "name")
	code, _, body = ts.do(t, "GET", "/v1/graphs/g", nil)
	var info GraphInfo
	if code != 200 || json.Unmarshal(body, &info) != nil || info.Vertices != 80 || info.Weighted || info.IDs != "sparse" {
		t.Fatalf("describe: %d %s", code, body)
	}
	code, _, body = ts.do(t, "GET", "/v1/graphs", nil)
	if code != 200 || !strings.Contains(string(body), `"name": "g"`) {
		t.Fatalf("list: %d %s", code, body)
	}
	if code, _, body = ts.do(t, "DELETE", "/v1/graphs/g", nil); code != 200 {
		t.Fatalf("drop: %d %s", code, body)
	}
	code, _, body = ts.do(t, "GET", "/v1/graphs/g", nil)
	wantError(t, code, body, http.StatusNotFound, "name")
	code, _, body = ts.do(t, "POST", "/v1/graphs/g/run", `{"algo":"cc"}`)
	wantError(t, code, body, http.StatusNotFound, "name")
	if code, _, _ = ts.do(t, "GET", "/v1/health", nil); code != 200 {
		t.Fatal("health", code)
	}
}

func TestDataDirEscapes(t *testing.T) {
	ts := newTestServer(t, nil)
	outside := t.TempDir()
	writeTestGraph(t, outside, "secret.el")
	if err := os.Symlink(filepath.Join(outside, "secret.el"), filepath.Join(ts.dir, "link.el")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ts.dir, "linkdir")); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(ts.dir, "sub"), 0o755)
	rel, _ := filepath.Rel(ts.dir, filepath.Join(outside, "secret.el"))
	for _, p := range []string{"../secret.el", rel, filepath.Join(outside, "secret.el"), "/etc/passwd", "sub/../../secret.el",
		"link.el", "linkdir/secret.el", "sub", "", "a\x00b"} {
		code, _, body := ts.do(t, "POST", "/v1/graphs", map[string]any{"name": "x", "path": p})
		if code != 400 {
			t.Errorf("path %q: %d %s", p, code, body)
			continue
		}
		wantError(t, code, body, 400, "path")
		if !strings.Contains(p, outside) && strings.Contains(string(body), outside) {
			t.Errorf("path %q: the message shows a path outside: %s", p, body)
		}
	}
	code, _, body := ts.do(t, "POST", "/v1/graphs", `{"name":"x","path":"missing.el"}`)
	wantError(t, code, body, 404, "path")
	// A symlink that stays inside is fine.
	os.Symlink("sparse.el", filepath.Join(ts.dir, "inside.el"))
	ts.load(t, "inside", "inside.el", nil)
}

func TestListenNeedsTokenAndFlag(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		cfg Config
		ok  bool
	}{
		{Config{Listen: "127.0.0.1:8080"}, true},
		{Config{Listen: "localhost:8080"}, true},
		{Config{Listen: "[::1]:8080"}, true},
		{Config{Listen: "0.0.0.0:8080"}, false},
		{Config{Listen: ":8080"}, false},
		{Config{Listen: "0.0.0.0:8080", AllowRemote: true}, false},
		{Config{Listen: "0.0.0.0:8080", Token: "t"}, false},
		{Config{Listen: "0.0.0.0:8080", AllowRemote: true, Token: "t"}, true},
	} {
		c.cfg.DataDir, c.cfg.Backend = dir, "cpu"
		s, err := New(c.cfg)
		if (err == nil) != c.ok {
			t.Errorf("%+v: error %v", c.cfg, err)
		}
		if s != nil {
			s.Shutdown(context.Background())
		}
	}
	if _, err := New(Config{Backend: "cpu"}); err == nil {
		t.Error("no data directory: no error")
	}
}

func TestToken(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.Token = "s3cret" })
	code, h, body := ts.do(t, "GET", "/v1/graphs", nil)
	if code != 401 || h.Get("WWW-Authenticate") == "" {
		t.Fatalf("no token: %d %s", code, body)
	}
	if code, _, _ = ts.do(t, "GET", "/v1/graphs", nil, "Authorization", "Bearer wrong"); code != 401 {
		t.Fatalf("wrong token: %d", code)
	}
	if code, _, _ = ts.do(t, "GET", "/metrics", nil); code != 401 {
		t.Fatalf("metrics without token: %d", code)
	}
	if code, _, _ = ts.do(t, "GET", "/v1/graphs", nil, "Authorization", "Bearer s3cret"); code != 200 {
		t.Fatalf("right token: %d", code)
	}
	if code, _, _ = ts.do(t, "GET", "/v1/health", nil); code != 200 {
		t.Fatalf("health needs no token: %d", code)
	}
}

func TestBadRequests(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.MaxBodyBytes = 1024; c.MaxResultBytes = 2000 })
	ts.load(t, "g", "sparse.el", nil)
	for _, c := range []struct {
		body  string
		code  int
		field string
	}{
		{`{"algo":`, 400, "body"},
		{`not json`, 400, "body"},
		{``, 400, "body"},
		{`{"algo":"cc"} {}`, 400, "body"},
		{`{"algo":"dijkstra"}`, 400, "algo"},
		{`{}`, 400, "algo"},
		{`{"algo":7}`, 400, "algo"},
		{`{"algo":"bfs","params":{"src":"12"}}`, 400, "params.src"},
		{`{"algo":"bfs","params":{"src":1.5}}`, 400, "params.src"},
		{`{"algo":"bfs","params":{"src":5001}}`, 400, "params.src"},
		{`{"algo":"bfs","params":{"src":-3}}`, 400, "params.src"},
		{`{"algo":"bfs","params":{"src":99999999999999999999}}`, 400, "params.src"},
		{`{"algo":"pagerank","params":{"src":5000}}`, 400, "params.src"},
		{`{"algo":"pagerank","params":{"damping":1.5}}`, 400, "params.damping"},
		{`{"algo":"pagerank","params":{"damping":"x"}}`, 400, "params.damping"},
		{`{"algo":"pagerank","params":{"precision":"float32"}}`, 400, "params.precision"},
		{`{"algo":"pagerank-ldbc","params":{"iterations":-1}}`, 400, "params.iterations"},
		{`{"algo":"pagerank-ldbc","params":{"iterations":0}}`, 400, "params.iterations"},
		{`{"algo":"cc","params":{"max_iter":-1}}`, 400, "params.max_iter"},
		{`{"algo":"sssp","params":{"delta":-2}}`, 400, "params.delta"},
		{`{"algo":"tc","params":{"per_vertex":1}}`, 400, "params.per_vertex"},
		{`{"algo":"pagerank-ldbc","params":{"iterations":2000000}}`, 400, "params.iterations"},
		{`{"algo":"cc","params":{"max_iter":2000000}}`, 400, "params.max_iter"},
		{`{"algo":"pagerank","params":{"tolerance":-1}}`, 400, "params.tolerance"},
		{`{"algo":"pagerank-ldbc","params":{"precision":"half"}}`, 400, "params.precision"},
		{`{"algo":"lcc","params":{"iterations":3}}`, 400, "params.iterations"},
		{`{"algo":"lcc","params":{"src":5000}}`, 400, "params.src"},
		{`{"algo":"lcc","params":{"max_iter":"x"}}`, 400, "params.max_iter"},
		{`{"algo":"cdlp","params":{"iterations":-1}}`, 400, "params.iterations"},
		{`{"algo":"cdlp","params":{"iterations":"3"}}`, 400, "params.iterations"},
		{`{"algo":"cdlp","params":{"damping":0.5}}`, 400, "params.damping"},
		{`{"algo":"cdlp","params":{"max-iter":2}}`, 400, "max-iter"},
		{`{"algo":"cc","params":{"bogus":1}}`, 400, "bogus"},
		{`{"algo":"cc","output":"xml"}`, 400, "output"},
		{`{"algo":"cc","output":"ndjson"}`, 413, "output"},
		{`{"algo":"cc","timeout_ms":-5}`, 400, "timeout_ms"},
		{`{"algo":"cc","params":{"x":"` + strings.Repeat("a", 2000) + `"}}`, 413, "body"},
	} {
		code, _, body := ts.do(t, "POST", "/v1/graphs/g/run", c.body)
		t.Run(c.body[:min(len(c.body), 40)], func(t *testing.T) { wantError(t, code, body, c.code, c.field) })
	}
	for _, c := range []struct {
		body  string
		field string
	}{
		{`{"name":"bad name","path":"sparse.el"}`, "name"},
		{`{"name":"x","path":"sparse.el","weights":"random:9-1"}`, "weights"},
		{`{"name":"x","path":"sparse.el","format":"xml"}`, "format"},
		{`{"name":"x","path":"sparse.el","relabel":"random"}`, "relabel"},
		{`{"name":"x","path":"sparse.el","symmetrize":"yes"}`, "symmetrize"},
		{`{"name":"x","path":"sparse.el","directed":true,"undirected":true}`, "undirected"},
	} {
		code, _, body := ts.do(t, "POST", "/v1/graphs", c.body)
		wantError(t, code, body, 400, c.field)
	}
}

func TestDeviceBudget(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.DeviceBudget = 1000 })
	code, _, body := ts.do(t, "POST", "/v1/graphs", `{"name":"g","path":"sparse.el"}`)
	wantError(t, code, body, http.StatusInsufficientStorage, "path")
	var e struct {
		Needed    int64 `json:"bytes_needed"`
		Available int64 `json:"bytes_available"`
	}
	json.Unmarshal(body, &e)
	if e.Needed <= 1000 || e.Available != 1000 {
		t.Fatalf("needed %d, available %d: %s", e.Needed, e.Available, body)
	}
}

// TestRowsInFileOrder: a graph renumbered by degree lists its per-vertex
// rows as one loaded in the file's order does (the ids increasing), so
// that the two answers diff clean but for what the order of a sum or a
// parent's choice changes.
func TestRowsInFileOrder(t *testing.T) {
	ts := newTestServer(t, nil)
	ts.load(t, "plain", "sparse.el", map[string]any{"relabel": "none"})
	ts.load(t, "degree", "sparse.el", map[string]any{"relabel": "degree"})
	for _, output := range []string{"csv", "ndjson"} {
		for _, algo := range []string{"sssp", "cc", "cdlp", "tc"} {
			body := map[string]any{"algo": algo, "output": output, "params": map[string]any{}}
			if algo == "tc" {
				body["params"] = map[string]any{"per_vertex": true}
			}
			var answers [2][]string
			for i, g := range []string{"plain", "degree"} {
				code, _, out := ts.do(t, "POST", "/v1/graphs/"+g+"/run", body)
				if code != http.StatusOK {
					t.Fatalf("%s %s on %s: %d %s", algo, output, g, code, out)
				}
				answers[i] = strings.Split(strings.TrimSpace(string(out)), "\n")
			}
			if strings.Join(answers[0], "\n") != strings.Join(answers[1], "\n") {
				t.Errorf("%s %s: renumbered by degree, the rows differ from the file's order's:\n%v\n%v", algo, output, answers[0][:4], answers[1][:4])
			}
			var last int64 = -1
			for _, line := range answers[0] {
				var id int64
				if output == "csv" {
					if strings.HasPrefix(line, "id,") {
						continue
					}
					id, _ = strconv.ParseInt(strings.SplitN(line, ",", 2)[0], 10, 64)
				} else {
					fmt.Sscanf(line, `{"id":%d`, &id)
				}
				if id <= last {
					t.Fatalf("%s %s: id %d after %d: rows not in the ids' order", algo, output, id, last)
				}
				last = id
			}
		}
	}
}

// A client that sends its whole body before it reads the answer (Python's
// http.client) gets the 413 of a body over --max-body, or the 400 of one
// that is no JSON, not a connection reset under it while it still sends:
// the server reads the rest of the body (up to drainBytes) before it
// answers (and, past the limit, closes).
func TestOversizedBodyGets413(t *testing.T) {
	ts := newTestServer(t, nil)
	ts.load(t, "g", "sparse.el", nil)
	for _, c := range []struct {
		size       int
		json       bool // the body's start is JSON (413), or not (400)
		code       int
		field      string
		closesConn bool
	}{{1 << 20, true, http.StatusRequestEntityTooLarge, "body", true}, {64 << 20, true, http.StatusRequestEntityTooLarge, "body", true},
		{64 << 20, false, http.StatusBadRequest, "body", false}} {
		size := c.size
		conn, err := net.Dial("tcp", strings.TrimPrefix(ts.url, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(60 * time.Second))
		body := `{"algo":"cc","params":{"x":"` + strings.Repeat("a", size) + `"}}`
		if !c.json {
			body = strings.Repeat("x", size)
		}
		req := fmt.Sprintf("POST /v1/graphs/g/run HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
		if _, err := io.WriteString(conn, req+body); err != nil {
			t.Fatalf("%d bytes: sending the body: %v (the server closed while the client still sent)", size, err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%d bytes: reading the answer: %v", size, err)
		}
		out, _ := io.ReadAll(resp.Body)
		conn.Close()
		wantError(t, resp.StatusCode, out, c.code, c.field)
		if resp.Close != c.closesConn {
			t.Errorf("%d bytes: %d closes the connection: %v, want %v", size, c.code, resp.Close, c.closesConn)
		}
	}
}

// The scheme of Authorization is case-insensitive (RFC 7235): bearer,
// BEARER and Bearer carry the token alike; the token is not.
func TestBearerSchemeAnyCase(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.Token = "s3cret" })
	for _, h := range []string{"Bearer s3cret", "bearer s3cret", "BEARER s3cret", "bEaReR  s3cret"} {
		if code, _, body := ts.do(t, "GET", "/v1/graphs", nil, "Authorization", h); code != 200 {
			t.Errorf("%q: %d %s", h, code, body)
		}
	}
	for _, h := range []string{"Bearer S3CRET", "Basic s3cret", "Bearers3cret", "s3cret", "Bearer"} {
		if code, _, _ := ts.do(t, "GET", "/v1/graphs", nil, "Authorization", h); code != 401 {
			t.Errorf("%q: %d, want 401", h, code)
		}
	}
}

// A load error names the request's fields, not the CLI's flags nor the
// library's options: an LDBC graph of unknown direction asks for
// "directed" or "undirected".
func TestLoadErrorNamesFields(t *testing.T) {
	ts := newTestServer(t, nil)
	for name, body := range map[string]string{"x.v": "1\n2\n", "x.e": "1 2\n"} {
		if err := os.WriteFile(filepath.Join(ts.dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, _, body := ts.do(t, "POST", "/v1/graphs", map[string]any{"name": "x", "path": "x.e"})
	if code != http.StatusBadRequest || !strings.Contains(string(body), `say it with \"directed\": true or \"undirected\": true`) ||
		strings.Contains(string(body), "--") || strings.Contains(string(body), "Input.") {
		t.Fatalf("%d %s", code, body)
	}
	ts.load(t, "x", "x.e", map[string]any{"undirected": true})
}
