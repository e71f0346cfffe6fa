//go:build cgo

package build

import (
	"embed"
	"encoding/binary"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/jit"
	"github.com/hpgraph/hpgraph/cuda/rt"
)

//go:embed hybbuild.cu
var hybBuildCU string

// The PREPROCESS modules' sources, their headers spliced in (jit.Expand).
var (
	hybBuildSource  = jit.MustExpand("hybbuild.cu", hybBuildCU, headers)
	transposeSource = jit.MustExpand("transpose.cu", transposeCU, headers)
	tilesDevSource  = jit.MustExpand("tilesdev.cu", tilesDevCU+jit.WithoutHeader(tilesDevGroupsCU), headers)
)

// headers are the layer's own headers (rows.cuh).
//
//go:embed *.cuh
var headers embed.FS

var hybBuildKernels = []string{"hb_ell", "hb_coo", "hb_restore", "hb_bin_count", "hb_bin_scan", "hb_bin_place", "hb_degrees",
	"hb_or_deg", "hb_or_count", "hb_or_scan1", "hb_or_scan2", "hb_or_scan3", "hb_or_fill",
	"hb_rk_iota", "hb_rk_rank", "hb_rk_counts", "hb_rk_records", "hb_rk_adj", "hb_rk_both", "hb_sy_deg", "hb_sy_mask", "hb_sy_rows", "hb_sy_fill"}

// hybBuildModule compiles (or finds in the caches) and loads the
// kernels of hybbuild.cu. Inside Do.
func (d *Device) hybBuildModule() *rt.Module { return d.Module(hybBuildSource, hybBuildKernels) }

//go:embed transpose.cu
var transposeCU string

var transposeKernels = []string{"tr_src", "tr_hist", "tr_scan1", "tr_scan2", "tr_scatter", "tr_rowptr", "tr_fix", "tr_place", "tr_advance", "tr_check", "tr_rl_keys", "tr_rl_newid", "tr_rl_map"}

// transposeModule compiles (or finds in the caches) and loads the kernels
// of transpose.cu. Inside Do.
func (d *Device) transposeModule() *rt.Module {
	return d.Module(transposeSource, transposeKernels)
}

//go:embed tilesdev.cu
var tilesDevCU string

//go:embed tilesdev_groups.cu
var tilesDevGroupsCU string

var tilesDevKernels = []string{"tl_plan", "tl_vrow", "tl_assign", "tl_rec_ell", "tl_rec_coo", "tl_streams", "tl_group", "tl_fill", "tl_expand"}

// tilesDevModule loads the kernels of tilesdev.cu. Inside Do.
func (d *Device) tilesDevModule() *rt.Module { return d.Module(tilesDevSource, tilesDevKernels) }

// Restore copies bytes from src to dst on the device with hb_restore (see
// hybbuild.cu) and waits for it. Inside Do.
func (d *Device) Restore(dst, src cu.DevicePtr, bytes int64) {
	a := make([]byte, 24)
	le := binary.LittleEndian
	le.PutUint64(a, uint64(src))
	le.PutUint64(a[8:], uint64(dst))
	le.PutUint64(a[16:], uint64(bytes))
	d.hybBuildModule().Launch2("hb_restore", min(rt.Blocks((bytes+15)/16, rt.BlockSize), int64(d.SMs)*16), d.Stream(), a, make([]byte, 4))
	d.Sync()
}
