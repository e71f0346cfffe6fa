package apps_test

// The GPU backend joins vptest's configurations where it is available (a
// driver and a GPU), so every app test here also compares the GPU with the
// gonum reference there.
import _ "github.com/hpgraph/hpgraph/cuda"
