package serve

// The GPU backend is registered in the tests too, so that
// HPGRAPH_SERVE_TEST_BACKEND=cuda runs them on the device where there is
// one.
import _ "github.com/hpgraph/hpgraph/cuda"
