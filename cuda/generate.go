//go:build cgo

package cuda

import (
	"fmt"
	"io"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/gen"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/hyb"
)

// Generate makes all of g on b's device (cuda/gen) and returns it on the
// host, the graph datasets.BuildStream builds from the host generator,
// for the engine, which reads it there; its CSR stays on the device as
// that graph's copy, so the runs that follow build their matrices from
// it without an upload. The host's copy costs the graph's CSR in host
// memory and one download (rowPtr, col and weights).
func (b *Backend) Generate(g *gen.Graph) (*datasets.Graph, error) {
	dev, err := b.device()
	if err != nil {
		return nil, err
	}
	var h *datasets.Graph
	err = dev.Do("making "+g.Name, func() error {
		d := gen.NewDevice(dev.Device.Device)
		p, err := g.Build(d, 0, g.N, gen.Options{})
		if err != nil {
			return err
		}
		if h, err = g.Host(d, p); err != nil {
			p.Free(d)
			return err
		}
		bufs := make([]cu.DevicePtr, len(p.Bufs))
		for i, q := range p.Bufs {
			bufs[i] = cu.DevicePtr(q)
		}
		dev.AdoptCSR(hyb.CSR{RowPtr: h.RowPtr, Col: h.Col, Val: h.W}, cu.DevicePtr(p.RowPtr), cu.DevicePtr(p.Col), cu.DevicePtr(p.W), bufs)
		return nil
	})
	return h, err
}

// WriteGenerated makes all of g on b's device and writes it to w as a
// .hpg file (gen.Graph.WriteCache: the host holds its row offsets and a
// few pieces of its arcs, never the graph), then frees it. It returns the
// graph's arcs and cleaning counts.
func (b *Backend) WriteGenerated(g *gen.Graph, w io.Writer) (nnz int64, stats datasets.BuildStats, err error) {
	dev, err := b.device()
	if err != nil {
		return 0, stats, err
	}
	err = dev.Do("making "+g.Name, func() error {
		d := gen.NewDevice(dev.Device.Device)
		p, err := g.Build(d, 0, g.N, gen.Options{})
		if err != nil {
			return err
		}
		defer p.Free(d)
		nnz, stats = p.NNZ, p.Stats
		return g.WriteCache(d, p, w)
	})
	return nnz, stats, err
}

// GenerateCounts returns g's row offsets before duplicates are merged
// (gen.Graph.Counts), from one count pass on b's device, and with
// shuffle GAP's vertex of each drawn id (gen.Graph.Shuffle; nil for a
// uniform graph): how a run over several processes splits and renumbers
// the rows before each makes its own.
func (b *Backend) GenerateCounts(g *gen.Graph, shuffle bool) (rowPtr []int64, ids []int32, err error) {
	dev, err := b.device()
	if err != nil {
		return nil, nil, err
	}
	err = dev.Do("counting "+g.Name+"'s rows", func() error {
		d := gen.NewDevice(dev.Device.Device)
		if rowPtr, err = g.Counts(d); err != nil || !shuffle {
			return err
		}
		ids, err = g.Shuffle(d)
		return err
	})
	return rowPtr, ids, err
}

// GenerateRows makes rows [lo, hi) of g on b's device, with ids
// renumbering them where not nil (gen.Options.IDs), and returns them on
// the host (datasets.BuildStreamRows's graph: every other row empty),
// then frees the device's copy: a process of a run over several makes
// only its own rows (vertexprog.GatherRows), on its own device.
func (b *Backend) GenerateRows(g *gen.Graph, ids []int32, lo, hi int) (*datasets.Graph, error) {
	dev, err := b.device()
	if err != nil {
		return nil, err
	}
	var h *datasets.Graph
	err = dev.Do(fmt.Sprintf("making rows [%d, %d) of %s", lo, hi, g.Name), func() error {
		d := gen.NewDevice(dev.Device.Device)
		p, err := g.Build(d, lo, hi, gen.Options{IDs: ids})
		if err != nil {
			return err
		}
		defer p.Free(d)
		h, err = g.Host(d, p)
		return err
	})
	return h, err
}
