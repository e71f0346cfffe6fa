# hpgraph — see README.md. `make run` is the main job, `make test` the tests.
GO      ?= go
BIN     := bin
SHARED  ?= ../shared/datasets
GRAPHS  := $(BIN)/graphs
# Binaries carry the git revision they were built from (bench records
# report it) where git can tell, whatever GOFLAGS says.
VCS     := -buildvcs=auto

.PHONY: all build run test python-test vet nocgo devgen-check fmt-check bench fuzz clean gpu-bins cuda-test cuda-compile cuda-regs

all: build

# One binary for every machine: it opens the NVIDIA driver (libcuda.so.1)
# at run time and uses the GPU where there is one; nothing CUDA is needed
# to build it.
build:
	$(GO) build $(VCS) -o $(BIN)/hpgraph ./cmd/hpgraph

# The main job: generate graphs, run every algorithm on the generated graphs
# and the shipped ones, and check each against the gonum reference.
# --backend auto uses the GPU where an NVIDIA driver and GPU are, else
# the CPU; verify's backend column and run's first line say which ran,
# and where the GPU is not used, verify's first line and run's time to
# answer say why.
run: build
	@mkdir -p $(GRAPHS)
	$(BIN)/hpgraph gen kron --scale 16 -o $(GRAPHS)/kron16.hpg
	$(BIN)/hpgraph gen uniform --scale 16 -o $(GRAPHS)/urand16.hpg
	$(BIN)/hpgraph gen grid --rows 300 --cols 300 -o $(GRAPHS)/grid300.hpg
	$(BIN)/hpgraph verify --backend auto $(GRAPHS)/kron16.hpg $(GRAPHS)/urand16.hpg $(GRAPHS)/grid300.hpg
	$(BIN)/hpgraph verify --backend auto --weights random:1-64 --algo sssp $(GRAPHS)/kron16.hpg $(GRAPHS)/grid300.hpg
	@if [ -d $(SHARED) ]; then \
	  $(BIN)/hpgraph verify --backend auto $$(ls $(SHARED)/tiny/*.mtx $(SHARED)/tiny/*.edgelist $(SHARED)/small/*); \
	else echo "($(SHARED) not found: skipping the shipped graphs)"; fi
	$(BIN)/hpgraph run bfs $(GRAPHS)/kron16.hpg --runs 5 --validate

# Uncached, with a count of the tests passed, failed and skipped and why
# each skipped (scripts/test.sh), then the Python package's.
test: fmt-check vet nocgo devgen-check
	GO=$(GO) ./scripts/test.sh
	$(MAKE) python-test

# The Python package (python/) against a real hpgraph serve on loopback;
# installs python3's test packages with apt-get where missing
# (scripts/python-test.sh).
python-test: build
	HPGRAPH_BIN=$(CURDIR)/$(BIN)/hpgraph ./scripts/python-test.sh

# The device code devgen generates from Go vertex programs is up to date
# (go generate, then git diff).
devgen-check:
	GO=$(GO) ./scripts/devgen-check.sh

# Everything, the CUDA backend and its tests included.
vet:
	$(GO) vet ./...

# The module also builds without cgo (the GPU backend then reports that it
# is not available).
nocgo:
	CGO_ENABLED=0 $(GO) build ./...
	CGO_ENABLED=0 $(GO) vet ./cuda/... ./cmd/...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# Test binaries to run on a GPU machine (carry bin/ there; it needs no Go):
# bin/cuda.test for ./cuda, bin/cuda-LAYER.test for each layer
# ./cuda/LAYER, bin/apps-NAME.test for each app folder apps/NAME and
# the registry (scripts/gpu-tests.sh runs them all), and
# bin/vertexprog.test (the engine's host passes' benchmarks:
# scripts/device-sssp.sh).
CUDA_LAYERS := rt jit build run gen nccl
cuda-test:
	$(GO) test -c -o $(BIN)/cuda.test ./cuda/
	for l in $(CUDA_LAYERS); do $(GO) test -c -o $(BIN)/cuda-$$l.test ./cuda/$$l || exit 1; done
	for d in $$(ls -d apps/*/ | grep -v -e internal -e reference); do $(GO) test -c -o $(BIN)/apps-$$(basename $$d).test ./$$d || exit 1; done
	$(GO) test -c -o $(BIN)/cu.test ./cuda/cu
	$(GO) test -c -o $(BIN)/vertexprog.test ./vertexprog
	for p in widest reach khop hoppath mintag; do $(GO) test -c -o $(BIN)/ex-$$p.test ./examples/$$p || exit 1; done

# Everything the GPU machine runs: bin/gpu/hpgraph (the same binary as
# make build's) and the test binaries.
gpu-bins: cuda-test
	$(GO) build $(VCS) -o $(BIN)/gpu/hpgraph ./cmd/hpgraph

# Every kernel compiled by NVRTC for compute_80 and compute_90, on a
# machine without a GPU (scripts/nvrtc.sh fetches NVRTC once).
# (bin/cuda-compile.test: the run layer's, which compiles the apps'
# kernels; scripts/ptxas-report.sh runs it for their PTX.)
cuda-compile:
	$(GO) test -c -o $(BIN)/cuda-compile.test ./cuda/run
	$(GO) test -c -o $(BIN)/cuda-jit-compile.test ./cuda/jit
	$(GO) test -c -o $(BIN)/cuda-build-compile.test ./cuda/build
	$(GO) test -c -o $(BIN)/cuda-gen-compile.test ./cuda/gen
	nv=$$(./scripts/nvrtc.sh) && export LD_LIBRARY_PATH=$$nv HPGRAPH_NVRTC=$$(ls $$nv/libnvrtc.so.* | head -1) HPGRAPH_REQUIRE_NVRTC=1 && \
	  $(BIN)/cuda-jit-compile.test && \
	  $(BIN)/cuda-build-compile.test -test.run 'TestCompile|TestPrebuilt' && \
	  $(BIN)/cuda-gen-compile.test -test.run 'TestCompile' && \
	  $(BIN)/cuda-compile.test -test.run 'TestCompile|TestTemplateConstants|TestKernelNames|TestPrebuilt|TestDiffering'

# Registers and spills of each kernel of the built-in apps as ptxas
# assembles it for sm_80 and sm_90, without a GPU (fetches ptxas once):
# make cuda-regs KERNELS='vp_pull_tiles|vp_apply_pull'
KERNELS ?= .
cuda-regs:
	./scripts/ptxas-report.sh '$(KERNELS)'

# The benchmarks' light tier: graphs a few times smaller than docs/perf/'s
# quotes and the gonum references that take seconds (minutes in all on a
# 2-core machine). make bench HEAVY=1: the heavy tier, docs/perf/'s sizes
# and every reference (an hour or more on 2 cores; internal/benchtier).
bench:
	HPGRAPH_BENCH=$(if $(HEAVY),heavy,light) $(GO) test -run '^$$' -bench . -benchtime 3x -timeout $(if $(HEAVY),0,10m) ./...

# Short fuzzing of every parser and the server's handlers (go test -fuzz
# runs one target at a time).
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzReadMatrixMarket -fuzztime 30s ./datasets
	$(GO) test -run '^$$' -fuzz FuzzReadEdgeList -fuzztime 30s ./datasets
	$(GO) test -run '^$$' -fuzz '^FuzzReadCache$$' -fuzztime 30s ./datasets
	$(GO) test -run '^$$' -fuzz FuzzReadCacheRows -fuzztime 30s ./datasets
	$(GO) test -run '^$$' -fuzz FuzzReadLDBC -fuzztime 30s ./datasets
	$(GO) test -run '^$$' -fuzz FuzzReadLDBCAdjacency -fuzztime 30s ./datasets
	$(GO) test -run '^$$' -fuzz FuzzLDBCProperties -fuzztime 30s ./datasets
	$(GO) test -run '^$$' -fuzz FuzzReadGAP -fuzztime 30s ./datasets
	$(GO) test -run '^$$' -fuzz FuzzHandlers -fuzztime 30s ./serve
	$(GO) test -run '^$$' -fuzz FuzzParseDeviceList -fuzztime 30s ./cuda
	$(GO) test -run '^$$' -fuzz FuzzUpload -fuzztime 30s ./serve
	$(GO) test -run '^$$' -fuzz FuzzAuthorization -fuzztime 30s ./serve
	$(GO) test -run '^$$' -fuzz FuzzParseLoadOptions -fuzztime 30s ./internal/pipeline

clean:
	rm -rf $(BIN)
