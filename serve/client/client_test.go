package client_test

import (
	"context"
	"errors"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/hpgraph/hpgraph/serve"
	"github.com/hpgraph/hpgraph/serve/client"
)

func TestClient(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "g.el"), []byte("100 200\n200 300\n300 100\n400 500\n"), 0o644)
	s, err := serve.New(serve.Config{DataDir: dir, Backend: "cpu", Token: "tok", Logf: func(string, ...any) {}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	ctx := context.Background()

	var e *client.Error
	if _, err := client.New(hs.URL, "wrong").Graphs(ctx); !errors.As(err, &e) || e.Status != 401 {
		t.Fatalf("wrong token: %v", err)
	}
	c := client.New(hs.URL+"/", "tok")
	if h, err := c.Health(ctx); err != nil || h["status"] != "ok" {
		t.Fatalf("health: %v %v", h, err)
	}
	if _, err := c.Load(ctx, "g", "g.el", client.LoadOptions{Symmetrize: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Load(ctx, "g", "g.el", client.LoadOptions{}); !errors.As(err, &e) || e.Status != 409 || e.Field != "name" {
		t.Fatalf("second load: %v", err)
	}
	gs, err := c.Graphs(ctx)
	if err != nil || len(gs) != 1 || gs[0].Vertices != 5 || gs[0].IDs != "sparse" {
		t.Fatalf("graphs: %+v %v", gs, err)
	}
	sum, err := c.Run(ctx, "g", client.RunRequest{Algo: "tc"})
	if err != nil || sum.Summary != "1 triangles" {
		t.Fatalf("tc: %+v %v", sum, err)
	}
	rows, err := c.RunRows(ctx, "g", client.RunRequest{Algo: "bfs", Params: client.Params{Src: client.Ptr[int64](400)}})
	if err != nil {
		t.Fatal(err)
	}
	depth := map[int64]float64{}
	for rows.Next() {
		depth[rows.Row().ID] = rows.Row().Values["depth"]
	}
	rows.Close()
	if rows.Err() != nil || len(depth) != 5 || depth[400] != 0 || depth[500] != 1 || depth[100] != -1 {
		t.Fatalf("bfs rows %v (%s): %v", depth, rows.Summary, rows.Err())
	}
	rows, err = c.RunRows(ctx, "g", client.RunRequest{Algo: "sssp", Params: client.Params{Src: client.Ptr[int64](400)}})
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		if r := rows.Row(); r.ID == 100 && !math.IsInf(r.Values["dist"], 1) {
			t.Fatalf("unreached: %v", r)
		}
	}
	rows.Close()
	if err := c.Drop(ctx, "g"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Graph(ctx, "g"); !errors.As(err, &e) || e.Status != 404 {
		t.Fatalf("dropped: %v", err)
	}
}
