/*
 * nccl.h: the part of NCCL's API that hpgraph calls, declared from the
 * NCCL documentation (docs.nvidia.com/deeplearning/nccl, "API": types,
 * communicator creation, collective and point-to-point operations, group
 * calls). Nothing links against libnccl: each function is a pointer that
 * package nccl fills in with dlsym on libnccl.so.2 (nccl.Load); until then
 * it leads to a function that answers ncclSystemError.
 */
#ifndef HPGRAPH_NCCL_H
#define HPGRAPH_NCCL_H

#include <stddef.h>

#define NCCL_UNIQUE_ID_BYTES 128
typedef struct {
	char internal[NCCL_UNIQUE_ID_BYTES];
} ncclUniqueId;

typedef struct ncclComm* ncclComm_t;
typedef struct CUstream_st* cudaStream_t; /* the driver's CUstream */

typedef enum {
	ncclSuccess = 0,
	ncclUnhandledCudaError = 1,
	ncclSystemError = 2,
	ncclInternalError = 3,
	ncclInvalidArgument = 4,
	ncclInvalidUsage = 5,
	ncclRemoteError = 6,
	ncclInProgress = 7
} ncclResult_t;

typedef enum {
	ncclInt8 = 0,
	ncclUint8 = 1,
	ncclInt32 = 2,
	ncclUint32 = 3,
	ncclInt64 = 4,
	ncclUint64 = 5,
	ncclFloat16 = 6,
	ncclFloat32 = 7,
	ncclFloat64 = 8
} ncclDataType_t;

typedef enum { ncclSum = 0, ncclProd = 1, ncclMax = 2, ncclMin = 3 } ncclRedOp_t;

/* X(name, symbol, parameters) for every entry point. */
#define HP_NCCL_FUNCTIONS(X)                                                                                  \
	X(GetVersion, "ncclGetVersion", (int* version))                                                          \
	X(GetUniqueId, "ncclGetUniqueId", (ncclUniqueId * id))                                                   \
	X(CommInitRank, "ncclCommInitRank", (ncclComm_t * comm, int nranks, ncclUniqueId id, int rank))          \
	X(CommDestroy, "ncclCommDestroy", (ncclComm_t comm))                                                     \
	X(CommAbort, "ncclCommAbort", (ncclComm_t comm))                                                         \
	X(CommGetAsyncError, "ncclCommGetAsyncError", (ncclComm_t comm, ncclResult_t * err))                     \
	X(AllReduce, "ncclAllReduce",                                                                            \
	  (const void* send, void* recv, size_t count, ncclDataType_t t, ncclRedOp_t op, ncclComm_t comm,        \
	   cudaStream_t stream))                                                                                 \
	X(AllGather, "ncclAllGather",                                                                            \
	  (const void* send, void* recv, size_t count, ncclDataType_t t, ncclComm_t comm, cudaStream_t stream))  \
	X(Broadcast, "ncclBroadcast",                                                                            \
	  (const void* send, void* recv, size_t count, ncclDataType_t t, int root, ncclComm_t comm,              \
	   cudaStream_t stream))                                                                                 \
	X(GroupStart, "ncclGroupStart", (void))                                                                  \
	X(GroupEnd, "ncclGroupEnd", (void))

#define HP_NCCL_DECLARE(name, symbol, params) extern ncclResult_t (*hp_nccl_##name) params;
HP_NCCL_FUNCTIONS(HP_NCCL_DECLARE)

/* Strings: looked up apart (they return a string, not a result). */
extern const char* (*hp_nccl_GetErrorString)(ncclResult_t r);
extern const char* (*hp_nccl_GetLastError)(ncclComm_t comm);

#endif
