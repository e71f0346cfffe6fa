// hpgraph CUDA: the device copy of a HYB matrix, as every kernel source
// (kernels.cu, afforest.cu) takes it.

// One HYB matrix (hyb.Matrix): ELL column-major with pitch, COO as rows
// (CooPtr offsets). A pull matrix also carries its rows' COO bins: heavy
// rows cut in chunks of `chunk` entries (a block each), then rows for a
// warp, 4 lanes and 1 lane each, and, for programs that gather from
// every neighbour, its column-sorted tiles (tiles.go: segments of
// 1 << tileRowBits rows; per tile its first entry, segment | multi << 31
// and its warps' first groups; per group its base column; per segment
// its virtual slots' rows).
struct VP_Mat {
  const int* ellCol;
  const float* ellVal;  // null for a pattern matrix (w = 1)
  const int* cooCol;
  const float* cooVal;  // null for a pattern matrix
  const long long* cooPtr;
  const int* binRows;     // warp rows, then quad rows, then thread rows
  const int* chunkHeavy;  // per chunk: its heavy row's index
  const int* heavyRow;    // per heavy row: the row
  const int* heavyFirst;  // per heavy row: its first chunk (one more entry at the end)
  const unsigned* tileArcs;
  const float* tileVal;  // null for a pattern matrix
  const int* tileBase;
  const long long* tileFirst;
  const int* tileInfo;
  const int* tileWarp;
  const unsigned char* tileMulti;
  const int* tileVFirst;
  const int* tileVRow;
  int n, k, pitch, chunk;
  int nChunks, nWarp, nQuad, nThread;
  int wBlocks, qBlocks, tBlocks, tileRowBits;
  int tileVMax, pad_;
};

static_assert(sizeof(VP_Mat) == 200, "hpgraph: VP_Mat layout");
