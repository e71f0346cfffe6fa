package main

import (
	"bufio"
	"compress/gzip"
	"io"
	"os"
)

type writer = io.Writer

// writeText creates path and writes through a buffer (and gzip when asked),
// reporting the first error of any layer.
func writeText(path string, gz bool, fn func(w writer) error) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	var w io.Writer = bw
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(bw)
		w = zw
	}
	if err = fn(w); err != nil {
		return err
	}
	if zw != nil {
		if err = zw.Close(); err != nil {
			return err
		}
	}
	return bw.Flush()
}
