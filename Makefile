# hpgraph — see README.md. `make run` is the main job, `make test` the tests.
GO      ?= go
BIN     := bin
SHARED  ?= ../shared/datasets
GRAPHS  := $(BIN)/graphs
# Where cuda.h and the libcuda stub are (fetched once by the script when
# there is no CUDA toolkit); only the cuda targets need it.
CUDA_HDRS = $(shell ./scripts/cuda-headers.sh)

CUDA_ENV = CGO_CFLAGS=-I$(CUDA_HDRS)/include CGO_LDFLAGS=-L$(CUDA_HDRS)/stubs
# Binaries carry the git revision they were built from (bench records
# report it) where git can tell, whatever GOFLAGS says.
VCS     := -buildvcs=auto

.PHONY: all build run test vet fmt-check bench fuzz clean cuda cuda-test cuda-check cuda-compile cuda-regs

all: build

build:
	$(GO) build $(VCS) -o $(BIN)/hpgraph ./cmd/hpgraph

# The main job: generate graphs, run every algorithm on the generated graphs
# and the shipped ones, and check each against the gonum reference.
# --backend auto uses a GPU when the binary has one, else the CPU.
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
# each skipped (scripts/test.sh).
test: fmt-check vet
	GO=$(GO) ./scripts/test.sh

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# The GPU build: bin/hpgraph with the CUDA backend (needs libcuda.so.1 from
# an NVIDIA driver to start; kernels compile at run time with NVRTC).
cuda:
	@./scripts/cuda-headers.sh >/dev/null
	$(CUDA_ENV) $(GO) build $(VCS) -tags cuda -o $(BIN)/hpgraph ./cmd/hpgraph

# Test binaries to run on a GPU machine (carry bin/ there).
cuda-test:
	@./scripts/cuda-headers.sh >/dev/null
	$(CUDA_ENV) $(GO) test -c -tags cuda -o $(BIN)/cuda.test ./cuda/
	$(CUDA_ENV) $(GO) test -c -tags cuda -o $(BIN)/apps-cuda.test ./apps/

# What CI can do without a GPU: compile and vet everything under the tag.
cuda-check:
	@./scripts/cuda-headers.sh >/dev/null
	$(CUDA_ENV) $(GO) build -tags cuda ./...
	$(CUDA_ENV) $(GO) vet -tags cuda ./...
	$(CUDA_ENV) $(GO) test -tags cuda -c -o /dev/null ./cuda/
	$(CUDA_ENV) $(GO) test -tags cuda -c -o /dev/null ./apps/

# Every kernel compiled by NVRTC for compute_80 and compute_90, on a
# machine without a GPU (scripts/nvrtc.sh fetches NVRTC once).
cuda-compile:
	@./scripts/cuda-headers.sh >/dev/null
	$(CUDA_ENV) $(GO) test -c -tags cuda -o $(BIN)/cuda-compile.test ./cuda/
	nv=$$(./scripts/nvrtc.sh) && LD_LIBRARY_PATH=$$nv HPGRAPH_NVRTC=$$(ls $$nv/libnvrtc.so.* | head -1) HPGRAPH_REQUIRE_NVRTC=1 \
	  $(BIN)/cuda-compile.test -test.run 'TestCompile|TestTemplateConstants|TestKernelNames|TestPrebuilt|TestWritePrebuilt|TestDiffering'

# Registers and spills of each kernel of the built-in apps as ptxas
# assembles it for sm_80 and sm_90, without a GPU (fetches ptxas once):
# make cuda-regs KERNELS='vp_pull_tiles|vp_apply_pull'
KERNELS ?= .
cuda-regs:
	./scripts/ptxas-report.sh '$(KERNELS)'

bench:
	$(GO) test -run '^$$' -bench . -benchtime 3x ./...

# Short fuzzing of every parser and the server's handlers (go test -fuzz
# runs one target at a time).
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzReadMatrixMarket -fuzztime 30s ./datasets
	$(GO) test -run '^$$' -fuzz FuzzReadEdgeList -fuzztime 30s ./datasets
	$(GO) test -run '^$$' -fuzz FuzzReadCache -fuzztime 30s ./datasets
	$(GO) test -run '^$$' -fuzz FuzzReadLDBC -fuzztime 30s ./datasets
	$(GO) test -run '^$$' -fuzz FuzzReadLDBCAdjacency -fuzztime 30s ./datasets
	$(GO) test -run '^$$' -fuzz FuzzLDBCProperties -fuzztime 30s ./datasets
	$(GO) test -run '^$$' -fuzz FuzzHandlers -fuzztime 30s ./serve

clean:
	rm -rf $(BIN)
