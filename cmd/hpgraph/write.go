package main

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/hpgraph/hpgraph/datasets"
)

type writer = io.Writer

// Every file the tool writes goes to a temporary file in the same
// directory and is renamed over its name only once complete, so a reader
// never finds half a file under it; on an error, SIGINT or SIGTERM the
// temporary is removed and nothing is left behind.

// pending holds the temporaries being written, for the signal handler.
var pending struct {
	sync.Mutex
	files map[string]bool
	once  sync.Once
}

// interrupted removes the pending temporaries and exits as a process
// killed by sig would (128 + its number).
func interrupted(sig os.Signal) {
	pending.Lock()
	for name := range pending.files {
		os.Remove(name)
	}
	pending.Unlock()
	code := 130
	if sig == syscall.SIGTERM {
		code = 143
	}
	fmt.Fprintf(os.Stderr, "hpgraph: %v: stopped; no partial output left\n", sig)
	os.Exit(code)
}

// createTemp makes the temporary for path, known to the signal handler.
func createTemp(path string) (*os.File, error) {
	pending.once.Do(func() {
		pending.files = map[string]bool{}
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		go func() { interrupted(<-ch) }()
	})
	// (under the lock: a signal between the file's creation and its
	// registration would leave it behind)
	pending.Lock()
	defer pending.Unlock()
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, err
	}
	pending.files[f.Name()] = true
	return f, nil
}

func forget(name string) {
	pending.Lock()
	delete(pending.files, name)
	pending.Unlock()
}

// writeFile writes path through fn atomically (see above).
func writeFile(path string, fn func(w io.Writer) error) (err error) {
	if quietRank {
		return nil
	}
	f, err := createTemp(path)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
		forget(f.Name())
	}()
	if err = fn(f); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// writeText writes path through a buffer (and gzip when asked),
// atomically, reporting the first error of any layer.
func writeText(path string, gz bool, fn func(w writer) error) error {
	return writeFile(path, func(f io.Writer) error {
		bw := bufio.NewWriterSize(f, 1<<20)
		var w io.Writer = bw
		var zw *gzip.Writer
		if gz {
			zw = gzip.NewWriter(bw)
			w = zw
		}
		if err := fn(w); err != nil {
			return err
		}
		if zw != nil {
			if err := zw.Close(); err != nil {
				return err
			}
		}
		return bw.Flush()
	})
}

// writeResults is writeText (no compression) to path, or to stdout where
// path is "-".
func writeResults(stdout io.Writer, path string, fn func(w writer) error) error {
	if path != "-" {
		return writeText(path, false, fn)
	}
	if quietRank {
		return nil
	}
	bw := bufio.NewWriterSize(stdout, 1<<20)
	if err := fn(bw); err != nil {
		return err
	}
	return bw.Flush()
}

// checkOutput fails before any work when path cannot be written: its
// directory missing or not writable, path a directory, or path a file the
// command reads (writing onto one's own input: the input, or a file of
// the LDBC graph it names).
func checkOutput(flag, path string, inputs ...string) error {
	if path == "" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s %s: is a directory", flag, path)
	}
	for _, input := range inputs {
		for _, in := range datasets.InputFiles(input) {
			a, errA := os.Stat(in)
			b, errB := os.Stat(path)
			if errA == nil && errB == nil && os.SameFile(a, b) {
				if in != input {
					return fmt.Errorf("%s %s: is %s, a file of the input graph; write to another file", flag, path, in)
				}
				return fmt.Errorf("%s %s: is the input file; write to another file", flag, path)
			}
		}
	}
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s %s: directory %s does not exist", flag, path, dir)
	}
	f, err := os.CreateTemp(dir, ".hpgraph-check*")
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("%s %s: cannot write in %s: %v", flag, path, dir, err)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}
