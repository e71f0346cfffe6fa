package main

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// A process of a run over several (--world, or mpirun's) reads only its
// parts' rows of an undirected .hpg where that is sound (docs/parts.md):
// the graph then need not fit one host's memory. Rank 0 still holds every
// vertex's results (it writes them), and every process the whole row
// offsets and ids (8 bytes a vertex each).

// rowsApps are the apps whose run in parts reads no row but its parts'
// (vertexprog.NewGraphRows): the others (tc, lcc: an orientation of the
// whole graph) read the whole file.
var rowsApps = []string{"bfs", "sssp", "pagerank", "pagerank-ldbc", "cc", "cdlp"}

// readsRows says whether this process reads only its parts' rows: a run
// over several processes of an app of rowsApps on an undirected .hpg
// taken as it is (no --weights none or random, no --relabel degree, no
// --validate, whose reference needs the whole graph), with --read rows,
// or --read auto on the CPU backend (a device's parts on held rows have
// not yet run on a GPU: there auto reads the whole file).
func (j *runJob) readsRows() bool {
	if j.read == "whole" || j.opt.Comm == nil || j.opt.Comm.Size() <= 1 || j.validate || !slices.Contains(rowsApps, j.alg.Name) {
		return false
	}
	// (after the cheap tests: a run of one process must not wait here for
	// a device to open, which Backends does, while it races the CPU)
	if j.read == "auto" && j.opt.Backend != "cpu" && (j.opt.Backend != "" && j.opt.Backend != "auto" || slices.ContainsFunc(vertexprog.Backends(), func(b string) bool { return b != "cpu" })) {
		return false
	}
	if (j.lf.Format != "auto" && j.lf.Format != "hpg") || j.lf.Weights != "keep" || j.lf.Relabel == "degree" {
		return false
	}
	in, err := j.lf.input()
	if err != nil || datasets.LDBCFormat(j.graph, in) != datasets.FormatAuto {
		return false
	}
	info, err := datasets.ReadCacheInfo(j.graph) // (not a cache, or a compressed one: read whole)
	return err == nil && !info.Directed
}

// readRows reads this process's parts' rows of the graph and wraps them
// (vertexprog.NewGraphRows, which verifies the file's checksum with the
// other processes); j.d becomes the graph's shape: its vertices, whole
// row offsets and ids, but no arcs, which is what the sources and the
// run's record read of it.
func (j *runJob) readRows() (*vertexprog.Graph, error) {
	comm := j.opt.Comm
	pr := newProgress("loading " + j.graph + " (this process's rows)")
	t0 := time.Now()
	rows, err := datasets.ReadCacheRows(j.graph, func(rowPtr []int64) (int32, int32, error) {
		return vertexprog.RowsOf(rowPtr, j.opt.Parts, comm.Size(), comm.Rank())
	})
	pr.done()
	if err != nil {
		return nil, err
	}
	g, err := vertexprog.NewGraphRows(rows, comm)
	if err != nil {
		if errors.Is(err, vertexprog.ErrRowsNotHeld) {
			err = fmt.Errorf("%w (--read whole reads every row)", err)
		}
		return nil, err
	}
	d := rows.Graph
	j.d = &datasets.Graph{Name: d.Name, N: d.N, RowPtr: rows.RowPtr, Directed: d.Directed, IDs: d.IDs, IDBase: d.IDBase, Stats: d.Stats}
	j.at.read = time.Since(t0)
	j.at.load = j.at.read
	j.at.rowsRead = fmt.Sprintf("rows %d to %d of %d: %.1f of the file's %.1f MiB", rows.Lo, rows.Hi, d.N,
		float64(rows.Bytes)/(1<<20), float64(fileBytes(j.graph))/(1<<20))
	j.at.readBytes = rows.Bytes
	return g, nil
}
