package main

// bench's progress lines and its table.

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

func progressLine(r benchResult) string {
	head := fmt.Sprintf("%s %s %s:", r.Graph, r.Algorithm, r.Backend)
	switch {
	case r.Error != "":
		return head + " FAIL: " + r.Error
	case r.Skipped != "":
		return head + " SKIP: " + r.Skipped
	}
	line := fmt.Sprintf("%s median %.3f ms, %d supersteps, %.1f MTEPS", head, r.MedianMS, r.Iterations[0], r.MTEPS)
	switch a := r.Answer; {
	case a == nil:
	case a.Error != "":
		line += "; time to answer FAIL: " + a.Error
	default:
		line += fmt.Sprintf("; time to answer %.1f ms (fresh process, median)", a.MedianMS)
	}
	return line
}

func gbs(bytesPerS float64) string { return fmt.Sprintf("%.1f GB/s", bytesPerS/1e9) }

func printBench(out io.Writer, rec *benchRecord) {
	commit := rec.Commit
	if commit == "" {
		commit = "unknown commit"
	} else if rec.Modified {
		commit += "+dirty"
	}
	fmt.Fprintf(out, "hpgraph bench %s (%s), %s\n", rec.Version, commit, rec.Date)
	h := rec.Host
	fmt.Fprintf(out, "host: %s, %s, %d CPUs, GOMAXPROCS %d, %s\n", h.Hostname, h.CPUModel, h.CPUs, h.GOMAXPROCS, h.Go)
	for _, b := range rec.Settings.Backends {
		d := rec.Devices[b]
		if d.Error != "" {
			fmt.Fprintf(out, "device %s: %s: %s (no copy bandwidth: no %%copy)\n", b, d.Name, d.Error)
			continue
		}
		desc := d.Name
		if d.Driver != "" {
			desc += ", driver " + d.Driver
		}
		if d.ComputeCapability != "" {
			desc += ", compute " + d.ComputeCapability
		}
		if d.SMs > 0 {
			desc += fmt.Sprintf(", %d SMs", d.SMs)
		}
		if d.Cores > 0 {
			desc += fmt.Sprintf(", %d cores used", d.Cores)
		}
		if d.MemoryBytes > 0 {
			desc += fmt.Sprintf(", %.1f GiB", float64(d.MemoryBytes)/(1<<30))
		}
		fmt.Fprintf(out, "device %s: %s; copy bandwidth %s (%s)\n", b, desc, gbs(d.CopyBandwidth), d.CopyMethod)
	}
	s := rec.Settings
	fmt.Fprintf(out, "edges: %s\n", edgesCounted)
	fmt.Fprintf(out, "times: 1 warm-up + %d timed runs; median [min, max] of the compute time (superstep loop; load, PREPROCESS and the copy-back of results apart: finish_ms in --json); ms/step = compute/supersteps\n", s.Runs)
	fmt.Fprintf(out, "GB/s: bytes that must move (lower-bound model, bytes_model in --json) / median time; %%copy = GB/s / the device's copy bandwidth\n")
	fmt.Fprintf(out, "bfs/sssp source: %s\n", s.SourceRule)
	for _, g := range rec.Graphs {
		if g.Error != "" {
			fmt.Fprintf(out, "graph %s: FAIL: %s\n", g.Name, g.Error)
			continue
		}
		from := "read from " + g.File
		if g.Kind == "generator" {
			from = "generated: " + g.Generator
		}
		kind := "undirected"
		if g.Directed {
			kind = "directed"
		}
		fmt.Fprintf(out, "graph %s: %d vertices, %d edges, %d stored arcs (%s); load %.1f ms (%s); vertex order %s (%.1f ms)",
			g.Name, g.Vertices, g.Edges, g.NNZ, kind, g.LoadMS, from, g.Relabel, g.RelabelMS)
		if g.Weights != "" {
			fmt.Fprintf(out, "; sssp weights %s", g.Weights)
		}
		fmt.Fprintln(out)
	}
	fmt.Fprintln(out)
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "graph\talgo\tbackend\tmedian ms\tmin\tmax\tgpu ms\tsteps\tms/step\tMTEPS\tGB/s\t%%copy\tprep first ms\tprep ms\ttransfer ms\tnnz\t\n")
	var notes []string
	for _, r := range rec.Results {
		verdict := ""
		switch {
		case r.Skipped != "":
			verdict = "SKIP"
			notes = append(notes, fmt.Sprintf("SKIP %s %s %s: %s", r.Graph, r.Algorithm, r.Backend, r.Skipped))
		case r.Error != "":
			verdict = "FAIL"
			notes = append(notes, fmt.Sprintf("FAIL %s %s %s: %s", r.Graph, r.Algorithm, r.Backend, r.Error))
		}
		if r.Runs == 0 {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s%s\n", r.Graph, r.Algorithm, r.Backend, verdict, strings.Repeat("\t-", 12)+"\t")
			continue
		}
		pct := "-"
		if r.CopyFraction > 0 {
			pct = fmt.Sprintf("%.1f%%", 100*r.CopyFraction)
		}
		gpu := "-"
		if r.DeviceMedianMS > 0 {
			gpu = fmt.Sprintf("%.3f", r.DeviceMedianMS)
		}
		steps := fmt.Sprint(r.Iterations[0])
		if lo, hi := slices.Min(r.Iterations), slices.Max(r.Iterations); lo != hi {
			steps = fmt.Sprintf("%d-%d", lo, hi)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%.3f\t%.3f\t%.3f\t%s\t%s\t%.4f\t%.1f\t%.2f\t%s\t%.2f\t%.3f\t%.3f\t%d\t\n",
			r.Graph, r.Algorithm, r.Backend, r.MedianMS, r.MinMS, r.MaxMS, gpu, steps, r.MSPerStep, r.MTEPS, r.GBs, pct,
			r.PreprocessFirstMS, r.PreprocessMedianMS, r.TransferMedianMS, r.NNZ)
	}
	w.Flush()
	for _, n := range notes {
		fmt.Fprintln(out, n)
	}
	for _, r := range rec.Results {
		if len(r.Parts) == 0 {
			continue
		}
		fmt.Fprintf(out, "%s %s %s%s, per part and run:", r.Graph, r.Algorithm, r.Backend, wholeNote(r.WholeBytes, r.Backend))
		printParts(out, r.Parts)
	}
	if rec.Settings.Validate {
		ok := 0
		for _, r := range rec.Results {
			if r.Validated {
				ok++
			}
		}
		fmt.Fprintf(out, "validation: %d of %d results PASS against the gonum reference\n", ok, len(rec.Results))
	}
}

// printParts ends a line with each part's arcs, compute, exchange and
// bytes received (bench's and run's).
func printParts(out io.Writer, parts []partJSON) {
	for _, p := range parts {
		fmt.Fprintf(out, " [%d: %d arcs, compute %.3f ms, exchange %.3f ms, %.1f MB in]", p.Index, p.Arcs, p.ComputeMS, p.ExchangeMS, float64(p.Bytes)/1e6)
	}
	fmt.Fprintln(out)
}

// wholeNote says, for a partitioned run whose parts each read the whole
// graph's orientation (whole bytes of it), where its copies are.
func wholeNote(whole int64, backend string) string {
	if whole <= 0 {
		return ""
	}
	where := "a copy on each part's device"
	if backend == "cpu" {
		where = "one copy on the host, which every part reads"
	}
	return fmt.Sprintf(" (each part reads the whole graph's orientation, %.1f MB: %s)", float64(whole)/1e6, where)
}
