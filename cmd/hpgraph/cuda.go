package main

// The command line registers the GPU backend (importing cuda does); it
// runs where an NVIDIA driver and GPU are, and says why not elsewhere.
import (
	"errors"
	"fmt"

	"github.com/hpgraph/hpgraph/cuda"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
	"github.com/spf13/pflag"
)

func init() {
	// bench's device record: the backend describes its GPU (name, driver,
	// SMs, measured copy bandwidth) through driver.Describer.
	deviceDescribers["cuda"] = func() (driver.DeviceInfo, error) {
		var b any = cuda.Registered()
		d, ok := b.(driver.Describer)
		if !ok {
			return driver.DeviceInfo{}, errors.New("this build's cuda backend does not implement driver.Describer")
		}
		return d.Describe()
	}
}

// gpuUnavailable is why the GPU backend cannot run here (no driver, no
// device, too old a GPU or driver, a build without cgo), or nil.
func gpuUnavailable() error { return cuda.Registered().Available() }

// cudaFlags are the GPU backend's devices and options (cuda.Options) as
// flags of the commands that run programs (run, bench, verify, serve).
type cudaFlags struct {
	devices         string
	texture, graphs bool
	tiles           string
	loop            int
}

func (c *cudaFlags) register(f *pflag.FlagSet) {
	d := cuda.DefaultOptions()
	f.StringVar(&c.devices, "devices", "0", "GPU: the devices to use, by ordinal: 0, 0,1 or all (a run uses the first)")
	f.BoolVar(&c.texture, "cuda-texture", d.Texture, "GPU: read the frontier bitmasks and X through texture objects (false: __ldg loads; kernels other than the prebuilt ones)")
	f.BoolVar(&c.graphs, "cuda-graphs", d.Graphs, "GPU: replay supersteps from captured CUDA graphs (false: launch every kernel, as a profiler may want)")
	f.StringVar(&c.tiles, "cuda-tiles", d.Tiles.String(), "GPU: pull by column-sorted tiles (programs that gather from every neighbour): auto (when the graph stays loaded: bench, serve, several sources), always or never")
	f.IntVar(&c.loop, "cuda-loop", d.LoopCluster, fmt.Sprintf("GPU: blocks of the cluster that runs small push frontiers in one launch, 0 (none) to %d", cuda.MaxLoopCluster))
}

// options are the flags as cuda.Options.
func (c *cudaFlags) options() (cuda.Options, error) {
	tiles, err := cuda.ParseTileMode(c.tiles)
	if err != nil {
		return cuda.Options{}, fmt.Errorf("--cuda-tiles %q: want auto, always or never", c.tiles)
	}
	o := cuda.Options{Texture: c.texture, Graphs: c.graphs, Tiles: tiles, LoopCluster: c.loop}
	if o.LoopCluster < 0 || o.LoopCluster > cuda.MaxLoopCluster {
		return o, fmt.Errorf("--cuda-loop %d: want 0 (none) to %d", c.loop, cuda.MaxLoopCluster)
	}
	return o, o.Validate()
}

// apply sets the GPU backend's devices and options for the runs started
// afterwards.
func (c *cudaFlags) apply() error {
	o, err := c.options()
	if err != nil {
		return err
	}
	devs, err := cuda.ParseDeviceList(c.devices)
	if err != nil {
		return fmt.Errorf("--devices: %w", err)
	}
	return cuda.Configure(devs, o)
}
