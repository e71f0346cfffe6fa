package main

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/registry"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/spf13/cobra"
)

func newVerify() *cobra.Command {
	var (
		lf    loadFlags
		ef    engineFlags
		prm   params
		algos string
	)
	cmd := &cobra.Command{
		Use:   "verify GRAPH...",
		Short: "Run every algorithm on each graph and compare with the gonum reference; print a PASS/FAIL table",
		Long: `Run each algorithm (default: all) on each graph and compare the result with the
independent CPU reference built on gonum. Exits non-zero if any run fails,
including a graph that cannot be loaded.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var selected []*apps.App
			for _, name := range strings.Split(algos, ",") {
				a, err := findAlgorithm(strings.TrimSpace(name))
				if err != nil {
					return err
				}
				// (by default a named device verifies what it can run; lcc
				// asked for by name there fails with the reason)
				if !cmd.Flags().Changed("algo") && !a.Device() && ef.backend != "cpu" && ef.backend != "auto" {
					continue
				}
				selected = append(selected, a)
			}
			if err := checkParamFlags(cmd.Flags(), selected); err != nil {
				return err
			}
			// The parameters are every run's: a bad one fails before any
			// run, not as each app's refusal (a SKIP, for input an app is
			// not defined on).
			for _, a := range selected {
				if err := a.CheckParams(&prm.Params); err != nil {
					return flagError(err)
				}
			}
			// Every input is found before the first runs: a missing last
			// file fails at once, not after the others ran.
			if err := checkInputs(args, &lf); err != nil {
				return err
			}
			opt, err := ef.options()
			if err != nil {
				return err
			}
			if why := noDevice(ef.backend); why != "" {
				fmt.Fprintf(cmd.OutOrStdout(), "backend auto runs on the cpu: %s\n", why)
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintln(w, "graph\talgorithm\tbackend\tsupersteps\ttime\tresult\tverdict")
			failed, skipped := 0, 0
			row := func(graph, alg, backend string, steps any, took string, result, verdict string) {
				fmt.Fprintf(w, "%s\t%s\t%s\t%v\t%s\t%s\t%s\n", graph, alg, backend, steps, took, result, verdict)
			}
			for _, path := range args {
				ld, err := lf.load(path, ef.backend, vertexprog.PartsOf(opt))
				if err != nil {
					failed++
					row(path, "(load)", "-", "-", "-", "-", "FAIL: "+describe(err))
					continue
				}
				g := vertexprog.NewGraph(ld.Data)
				for _, a := range selected {
					o, err := runApp(a, g, prm, opt)
					if err == nil {
						err = o.check()
					}
					if errors.Is(err, apps.ErrInvalidInput) {
						// The algorithm is not defined on this input (say, SSSP
						// on a stiffness matrix's negative values): that is a
						// correct refusal, not a failure.
						skipped++
						row(path, a.Name, "-", "-", "-", "-", "SKIP: "+describe(err))
						continue
					}
					if err != nil {
						failed++
						row(path, a.Name, "-", "-", "-", "-", "FAIL: "+describe(err))
						continue
					}
					row(path, a.Name, o.run.Backend, o.run.Iterations,
						fmt.Sprintf("%.2f ms", ms(o.run.Compute)), o.summary, "PASS")
				}
				w.Flush()
			}
			w.Flush()
			if failed > 0 {
				return exitError{1, fmt.Sprintf("verify: %d FAIL", failed)}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "verify: all PASS (%d skipped: algorithm not defined on the input)\n", skipped)
			return nil
		},
	}
	lf.register(cmd.Flags())
	ef.register(cmd)
	prm.register(cmd.Flags())
	cmd.Flags().StringVar(&algos, "algo", strings.Join(registry.Names(), ","), "comma-separated algorithms to verify")
	return cmd
}
