// Command hpgraph loads, generates, converts and inspects graphs, and runs
// and verifies hpgraph's algorithms on the CPU or a GPU.
package main

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"runtime/pprof"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/internal/pipeline"
	"github.com/spf13/cobra"
)

func main() {
	// HPGRAPH_CPUPROFILE=FILE profiles the whole command (go tool pprof
	// bin/hpgraph FILE): where a time to answer goes on the host.
	profiling := false
	if path := os.Getenv("HPGRAPH_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil && pprof.StartCPUProfile(f) == nil {
			profiling = true
		}
	}
	err := run()
	if profiling {
		pprof.StopCPUProfile()
	}
	if err != nil {
		os.Exit(exitCode(err))
	}
}

func run() error {
	err := newRoot().Execute()
	if err != nil {
		fmt.Fprintln(os.Stderr, "hpgraph:", describe(err))
	}
	return err
}

// optionFlags are the flags of the loading options the library's errors
// name (datasets.RenameOptions).
var optionFlags = pipeline.Renames(true)

// describe is err's message with the options it names as the command
// line's flags.
func describe(err error) string { return datasets.RenameOptions(err.Error(), optionFlags) }

// exitCode is the process's exit status for a command's error.
func exitCode(err error) int {
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 1
}

// exitError carries a specific exit code (verify's FAIL is 1, like any
// error, but is reported as a table rather than a message).
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "hpgraph",
		Short:         "Graph analytics as generalized sparse matrix-vector products, on GPU or CPU",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newVersion(), newInfo(), newGen(), newConvert(), newRun(), newVerify(), newBench(), newServe(), newLoadgen())
	return root
}

// version is the module version and VCS revision baked in by the Go tool.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v += " " + s.Value
		case "vcs.modified":
			if s.Value == "true" {
				v += "+dirty"
			}
		}
	}
	return v
}

func newVersion() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, the Go version and the backends built in",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			bi, _ := debug.ReadBuildInfo()
			gov := "unknown"
			if bi != nil {
				gov = bi.GoVersion
			}
			fmt.Fprintf(cmd.OutOrStdout(), "hpgraph %s (%s)\nbackends: %v", version(), gov, backendNames())
			if why := gpuUnavailable(); why != nil {
				fmt.Fprintf(cmd.OutOrStdout(), " (%v)", why)
			}
			fmt.Fprintln(cmd.OutOrStdout())
			return nil
		},
	}
}
