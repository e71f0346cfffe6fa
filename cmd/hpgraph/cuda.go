//go:build cuda

package main

// Built with the cuda tag, the command line registers the GPU backend.
import _ "github.com/hpgraph/hpgraph/cuda"
