//go:build cgo

package cuda

import (
	"fmt"
	"io"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/gen"
	"github.com/hpgraph/hpgraph/cuda/run"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/huge"
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

// GenerateRows makes rows [lo, hi) of g on b's device, as o says (a
// renumbering: gen.Options.IDs, Orig), and returns them on the host
// (datasets.BuildStreamRows's graph: every other row empty), then frees
// the device's copy: a process of a run over several makes only its own
// rows (vertexprog.GatherRows), on its own device.
func (b *Backend) GenerateRows(g *gen.Graph, o gen.Options, lo, hi int) (*datasets.Graph, error) {
	dev, err := b.device()
	if err != nil {
		return nil, err
	}
	var h *datasets.Graph
	err = dev.Do(fmt.Sprintf("making rows [%d, %d) of %s", lo, hi, g.Name), func() error {
		d := gen.NewDevice(dev.Device.Device)
		p, err := g.Build(d, lo, hi, o)
		if err != nil {
			return err
		}
		defer p.Free(d)
		h, err = g.Host(d, p)
		return err
	})
	return h, err
}

// GenerateParts makes g on the devices a partitioned run uses (--devices,
// one part a device, as StartParts): rows [bounds[i], bounds[i+1]) on the
// i-th, all at once, as o says (a renumbering: gen.Options.IDs, Orig),
// and returns the whole graph on the host, each part downloaded into its
// place of one CSR (its stats the parts' added). A part's columns and
// weights stay on its device as that piece of the graph's
// (build.AdoptPiece), which its part's run and the whole graph's copies
// take there instead of from the host (kron:27 in two parts: 412-636 ms
// a part's columns); the rest of its memory is freed. A graph too large
// for one device's generator, made in one process with several GPUs.
func (b *Backend) GenerateParts(g *gen.Graph, o gen.Options, bounds []int) (*datasets.Graph, error) {
	np := len(bounds) - 1
	devs, err := b.partDevices(np)
	if err != nil {
		return nil, err
	}
	parts := make([]*gen.Part, np)
	defer func() {
		for i, p := range parts {
			if p != nil {
				_ = devs[i].Do("freeing a generated part", func() error { p.Free(gen.NewDevice(devs[i].Device.Device)); return nil })
			}
		}
	}()
	err = run.EachDevice(devs, func(i int, d *run.Device) error {
		return d.Do(fmt.Sprintf("making rows [%d, %d) of %s", bounds[i], bounds[i+1], g.Name), func() error {
			var err error
			parts[i], err = g.Build(gen.NewDevice(d.Device.Device), bounds[i], bounds[i+1], o)
			return err
		})
	})
	if err != nil {
		return nil, err
	}
	h := &datasets.Graph{Name: g.Name, N: g.N, RowPtr: huge.Make[int64](g.N + 1), RepeatFree: !g.Options.KeepDuplicates}
	base := make([]int64, np+1)
	for i, p := range parts {
		base[i+1] = base[i] + p.NNZ
		h.Stats.Entries = p.Stats.Entries
		h.Stats.SelfLoops += p.Stats.SelfLoops
		h.Stats.Duplicates += p.Stats.Duplicates
	}
	h.Col = huge.Make[int32](int(base[np]))
	if parts[0].W != 0 {
		h.W = huge.Make[float32](int(base[np]))
	}
	h.RowPtr[g.N] = base[np] // (HostInto writes each part's rows but the end)
	err = run.EachDevice(devs, func(i int, d *run.Device) error {
		return d.Do("copying a generated part to the host", func() error {
			gd, p := gen.NewDevice(d.Device.Device), parts[i]
			g.HostInto(gd, p, h, base[i])
			var keep []cu.DevicePtr
			for _, q := range p.Bufs {
				if p.NNZ > 0 && (q == p.Col || q == p.W && h.W != nil) {
					keep = append(keep, cu.DevicePtr(q))
				} else {
					gd.Free(q)
				}
			}
			p.Bufs = nil
			if len(keep) > 0 {
				var w []float32
				var wp cu.DevicePtr
				if h.W != nil {
					w, wp = h.W[base[i]:base[i+1]], cu.DevicePtr(p.W)
				}
				d.AdoptPiece(h.Col[base[i]:base[i+1]], cu.DevicePtr(p.Col), w, wp, keep)
			}
			return nil
		})
	})
	return h, err
}
