package client_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"

	"github.com/hpgraph/hpgraph/serve"
	"github.com/hpgraph/hpgraph/serve/client"
)

func Example() {
	// A server on the CPU with a data directory holding one small graph:
	// an edge list whose ids are not 0..N-1.
	dir, _ := os.MkdirTemp("", "hpgraph-example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "road.el"), []byte("10 20 4\n20 30 1\n10 30 7\n30 40 2\n50 60 1\n"), 0o644)
	s, err := serve.New(serve.Config{DataDir: dir, Backend: "cpu", Logf: func(string, ...any) {}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Shutdown(context.Background())
	hs := httptest.NewServer(s.Handler()) // `hpgraph serve --data-dir DIR` listens on 127.0.0.1:8080
	defer hs.Close()

	ctx := context.Background()
	c := client.New(hs.URL, "")
	g, err := c.Load(ctx, "road", "road.el", client.LoadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %d vertices, %d edges, weighted %v\n", g.Name, g.Vertices, g.Edges, g.Weighted)

	sum, err := c.Run(ctx, "road", client.RunRequest{Algo: "bfs", Params: client.Params{Src: client.Ptr[int64](10)}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sum.Summary)

	rows, err := c.RunRows(ctx, "road", client.RunRequest{Algo: "sssp", Params: client.Params{Src: client.Ptr[int64](10)}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		r := rows.Row()
		lines = append(lines, fmt.Sprintf("vertex %d: distance %v", r.ID, r.Values["dist"]))
	}
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Println(l)
	}

	_, err = c.Run(ctx, "road", client.RunRequest{Algo: "bfs", Params: client.Params{Src: client.Ptr[int64](11)}})
	if e, ok := err.(*client.Error); ok {
		fmt.Println(e.Status, e.Field)
	}
	// Output:
	// road: 6 vertices, 5 edges, weighted true
	// source 10: reached 4 vertices, depth 2
	// vertex 10: distance 0
	// vertex 20: distance 4
	// vertex 30: distance 5
	// vertex 40: distance 7
	// vertex 50: distance +Inf
	// vertex 60: distance +Inf
	// 400 params.src
}
