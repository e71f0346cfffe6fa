package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/spf13/cobra"
)

type hybFlags struct {
	relativeSpeed float64
	breakeven     int
	cmd           *cobra.Command
}

func (h *hybFlags) register(cmd *cobra.Command) {
	d := hyb.DefaultOptions()
	h.cmd = cmd
	cmd.Flags().Float64Var(&h.relativeSpeed, "relative-speed", d.RelativeSpeed, "HYB K rule: relative speed of ELL over COO; giving this or --breakeven replaces each backend's own split (CUSP's rule on a GPU, all COO on the CPU)")
	cmd.Flags().IntVar(&h.breakeven, "breakeven", d.Breakeven, "HYB K rule: rows below which ELL stops growing (0 puts small graphs in ELL too)")
}

// options is the split the flags ask for: the zero value (each backend's
// default) when neither flag was given, else CUSP's rule with the given
// constants.
func (h *hybFlags) options() hyb.Options {
	if !h.cmd.Flags().Changed("relative-speed") && !h.cmd.Flags().Changed("breakeven") {
		return hyb.Options{}
	}
	return hyb.Options{RelativeSpeed: h.relativeSpeed, Breakeven: h.breakeven}
}

// gpuOptions is options() with the zero value resolved to CUSP's rule,
// for commands that show the split (info).
func (h *hybFlags) gpuOptions() hyb.Options {
	if o := h.options(); o != (hyb.Options{}) {
		return o
	}
	return hyb.DefaultOptions()
}

func newInfo() *cobra.Command {
	var lf loadFlags
	var hf hybFlags
	cmd := &cobra.Command{
		Use:   "info FILE",
		Short: "Load a graph and print its size, cleaning counts, degrees and HYB split",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ld, err := lf.load(args[0], "cpu", 1)
			if err != nil {
				return err
			}
			g, took := ld.Data, ld.LoadTime()
			m, err := hyb.FromGraph(g, hf.gpuOptions())
			if err != nil {
				return err
			}
			printInfo(cmd, g, m, hf.gpuOptions(), took, lf.describeOrder(g))
			return nil
		},
	}
	lf.register(cmd.Flags())
	hf.register(cmd)
	return cmd
}

func printInfo(cmd *cobra.Command, g *datasets.Graph, m *hyb.Matrix, opt hyb.Options, took fmt.Stringer, order string) {
	s := m.Stats()
	kind := "undirected"
	if g.Directed {
		kind = "directed"
	}
	weights := "unweighted"
	if g.W != nil {
		weights = "weighted"
	}
	w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
	row := func(k string, f string, a ...any) { fmt.Fprintf(w, "%s\t"+f+"\n", append([]any{k}, a...)...) }
	row("graph", "%s (%s, %s)", g.Name, kind, weights)
	row("vertices", "%d", g.N)
	row("edges", "%d (%s)", g.Edges(), edgeCountRule(g))
	row("stored arcs (nnz)", "%d", g.NNZ())
	row("input entries", "%d", g.Stats.Entries)
	row("self loops removed", "%d", g.Stats.SelfLoops)
	row("self loops kept", "%d", g.SelfLoops())
	row("duplicates removed", "%d arcs", g.Stats.Duplicates)
	row("out-degree min/avg/max", "%d / %.2f / %d (%d empty rows)", s.MinRow, s.AvgRow, s.MaxRow, s.EmptyRows)
	row("HYB K", "%d (relative speed %g, breakeven %d)", s.K, opt.RelativeSpeed, opt.Breakeven)
	row("ELL entries", "%d of %d slots (fill %.1f%%, %d padding)", s.EllEntries, s.EllSlots, 100*s.EllFill, s.EllPadding)
	row("COO entries", "%d (%.1f%% of nnz)", s.CooEntries, 100*s.CooShare)
	row("bytes", "ELL %s, COO %s, CSR %s", mib(s.EllBytes), mib(s.CooBytes), mib(csrBytes(g)))
	row("vertex order", "%s", order)
	row("load time", "%v", took)
	w.Flush()
}

func edgeCountRule(g *datasets.Graph) string {
	if g.Directed {
		return "arcs"
	}
	return "each undirected edge once"
}

func csrBytes(g *datasets.Graph) int64 {
	b := int64(len(g.RowPtr))*8 + int64(len(g.Col))*4
	if g.W != nil {
		b += int64(len(g.W)) * 4
	}
	return b
}
