package devgen

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// DefaultOutput is the generated file's name.
const DefaultOutput = "zz_device_gen.go"

// Run generates the device code of the package in dir into dir/out and
// returns a line per program translated. A package without programs gets
// no file (a stale one is removed); a file that exists and was not
// written by devgen is never overwritten. An untranslatable program is
// an error and leaves the file as it was.
func Run(dir, out string) ([]string, error) { return RunTypes(dir, out, nil) }

// RunTypes is Run for the programs named (all when names is empty).
func RunTypes(dir, out string, names []string) ([]string, error) {
	pkg, err := Load(dir)
	if err != nil {
		return nil, err
	}
	src, progs, err := GenerateTypes(pkg, names)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(pkg.Dir, out)
	old, err := os.ReadFile(path)
	if err == nil && !isGenerated(old) {
		return nil, fmt.Errorf("devgen: %s exists and was not written by devgen", path)
	}
	if src == nil {
		if err == nil {
			return nil, os.Remove(path)
		}
		return nil, nil
	}
	var lines []string
	for _, p := range progs {
		l := p.Name
		if p.FoldAtomic != "" {
			l += " (atomic " + p.FoldAtomic + " fold"
			if p.NonNegative {
				l += ", nonnegative"
			}
			l += ")"
		}
		if p.HasPriority {
			l += " (vp_priority)"
		}
		if p.Init {
			l += " (vp_init)"
		}
		if p.ReduceAdd != "" {
			l += " (atomicAdd reduce)"
		}
		lines = append(lines, l)
	}
	if bytes.Equal(old, src) {
		return lines, nil
	}
	return lines, os.WriteFile(path, src, 0o644)
}
