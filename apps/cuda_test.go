//go:build cuda

package apps_test

// With the cuda tag the GPU backend joins vptest's configurations, so every
// app test here also compares the GPU with the gonum reference.
import _ "github.com/hpgraph/hpgraph/cuda"
