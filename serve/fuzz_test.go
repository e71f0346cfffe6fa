package serve

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// FuzzHandlers feeds arbitrary methods, paths and bodies to the API: no
// request may crash the server or get a 5xx, but 504 (a query that asks
// for more work than its timeout, which the fuzzer's parameters may) and
// 507 (a graph over the budget).
func FuzzHandlers(f *testing.F) {
	ts := newTestServer(f, func(c *Config) {
		c.QueryTimeout = 2 * time.Second
		c.MaxBodyBytes = 4096
		c.MaxResultBytes = 1 << 20
	})
	ts.load(f, "g", "sparse.el", nil)
	h := ts.Handler()
	seeds := []struct {
		method uint8
		path   string
		body   string
	}{
		{0, "v1/health", ""},
		{0, "v1/graphs", ""},
		{0, "v1/graphs/g", ""},
		{0, "metrics", ""},
		{1, "v1/graphs", `{"name":"h","path":"sparse.el","weights":"random:1-9","symmetrize":true}`},
		{1, "v1/graphs", `{"name":"x","path":"../etc/passwd"}`},
		{1, "v1/graphs", `{"name":"x","path":"sparse.el","weighted":"no"}`},
		{1, "v1/graphs/g/run", `{"algo":"bfs","params":{"src":5004}}`},
		{1, "v1/graphs/g/run", `{"algo":"bfs","params":{"src":5004},"output":"ndjson"}`},
		{1, "v1/graphs/g/run", `{"algo":"sssp","params":{"src":5000,"delta":0},"output":"csv"}`},
		{1, "v1/graphs/g/run", `{"algo":"pagerank","params":{"damping":0.5,"tolerance":0.01,"max_iter":3}}`},
		{1, "v1/graphs/g/run", `{"algo":"pagerank-ldbc","params":{"iterations":2,"precision":"float32"}}`},
		{1, "v1/graphs/g/run", `{"algo":"tc","params":{"per_vertex":true},"output":"ndjson"}`},
		{1, "v1/graphs/g/run", `{"algo":"cc","params":{"max_iter":1}}`},
		{1, "v1/graphs/g/run", `{"algo":"lcc","output":"csv"}`},
		{1, "v1/graphs/g/run", `{"algo":"cdlp","params":{"iterations":3},"output":"ndjson"}`},
		{1, "v1/graphs/g/run", `{"algo":"wcc","params":{"iterations":null}}`},
		{1, "v1/graphs/g/run", `{"algo":"cc","params":{"src":[1,2]}}`},
		{1, "v1/graphs/g/run", `{"algo":"bfs","params":null}`},
		{1, "v1/graphs/g/run", `{"algo":"bfs","params":{"src":-9223372036854775808}}`},
		{1, "v1/graphs/g/run", `{"algo":"bfs","params":{"src":5004},"output":"binary","columns":["depth"],"reached_only":true}`},
		{1, "v1/graphs/g/run", `{"algo":"sssp","output":"csv","columns":["dist","dist"],"reached_only":true}`},
		{1, "v1/graphs/g/run", `{"algo":"cc","output":"groups","columns":["component"]}`},
		{1, "v1/graphs/g/run", `{"algo":"bfs","output":"groups","reached_only":true}`},
		{1, "v1/graphs/g/run", `{"algo":"pagerank","output":"groups","columns":[]}`},
		{1, "v1/graphs/g/run", `{"algo":"cc","output":"ndjson","columns":null,"reached_only":false}`},
		{1, "v1/graphs/g/run", `[`},
		{1, "v1/graphs/nope/run", `{}`},
		{2, "v1/graphs/h", ""},
		{3, "v1/graphs/g", "{}"},
		{1, "v1/graphs/g/run", `{"algo":"cc","params":{"x":"` + strings.Repeat("a", 5000) + `"}}`},
	}
	for _, s := range seeds {
		f.Add(s.method, s.path, s.body)
	}
	methods := []string{"GET", "POST", "DELETE", "PUT", "HEAD", "PATCH", "OPTIONS"}
	f.Fuzz(func(t *testing.T, method uint8, path, body string) {
		u, err := url.ParseRequestURI("/" + path)
		if err != nil {
			return
		}
		req := &http.Request{Method: methods[int(method)%len(methods)], URL: u, RequestURI: u.RequestURI(), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: http.Header{"Content-Type": {"application/json"}}, Body: httpBody(body), Host: "127.0.0.1", RemoteAddr: "127.0.0.1:1"}
		req = req.WithContext(t.Context())
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if c := rec.Code; c >= 500 && c != http.StatusGatewayTimeout && c != http.StatusInsufficientStorage {
			t.Fatalf("%s /%s %q: %d %s", req.Method, path, body, c, rec.Body.String())
		}
	})
}

type nopCloser struct{ *strings.Reader }

func (nopCloser) Close() error { return nil }

func httpBody(s string) nopCloser { return nopCloser{strings.NewReader(s)} }

// FuzzAuthorization: any Authorization header is answered without a
// crash, and lets a request in exactly when it is the scheme "Bearer" in
// any case, spaces, and the token.
func FuzzAuthorization(f *testing.F) {
	ts := newTestServer(f, func(c *Config) { c.Token = "s3cret" })
	h := ts.Handler()
	for _, s := range []string{"Bearer s3cret", "bearer s3cret", "BEARER  s3cret", "Bearer", "Basic s3cret", "", " Bearer s3cret ", "Bearer s3cret x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		req := httptest.NewRequest("GET", "/v1/graphs", nil)
		req.Header.Set("Authorization", header)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		scheme, tok, _ := strings.Cut(strings.TrimSpace(req.Header.Get("Authorization")), " ")
		want := strings.EqualFold(scheme, "bearer") && strings.TrimLeft(tok, " ") == "s3cret"
		if got := rec.Code == http.StatusOK; got != want || (rec.Code != http.StatusOK && rec.Code != http.StatusUnauthorized) {
			t.Fatalf("Authorization %q: %d, want let in %v", header, rec.Code, want)
		}
	})
}
