/*
 * cu.h: the part of the CUDA driver API that hpgraph calls, declared from
 * NVIDIA's CUDA Driver API reference (docs.nvidia.com/cuda/cuda-driver-api:
 * "Data types used by CUDA driver" for the types and enumerators, and each
 * function's own page for its signature). Only what hpgraph uses is here;
 * each value is the one the reference documents for the enumerator of the
 * same name, and the struct layouts are the documented ones (checked by
 * the size assertions below).
 *
 * Nothing links against libcuda: every cuXxx below is a #define for a
 * function pointer (hp_cu_Xxx) that package cu fills in at run time with
 * dlsym on libcuda.so.1 (cu.Load). Until then each pointer leads to a
 * function that returns CUDA_ERROR_NOT_INITIALIZED, so C code called
 * before cu.Load fails like a driver that was not initialized rather than
 * jumping to address 0.
 *
 * The driver exports several versions of some entry points; cuda.h maps
 * each plain name to the current one (cuMemAlloc to cuMemAlloc_v2, ...).
 * The symbol named in HP_CU_FUNCTIONS is the one cuda.h maps the name to
 * (without CUDA_API_PER_THREAD_DEFAULT_STREAM), with the signature given.
 */
#ifndef HPGRAPH_CU_H
#define HPGRAPH_CU_H

#include <stddef.h>

/* ---- Handles and scalar types (CUDA_TYPES) ---- */
typedef int CUdevice;                         /* CUdevice_v1: a device ordinal's handle */
typedef unsigned long long CUdeviceptr;       /* CUdeviceptr_v2: pointer-sized on 64-bit platforms */
typedef unsigned long long CUtexObject;       /* CUtexObject_v1 */
typedef struct CUctx_st* CUcontext;
typedef struct CUmod_st* CUmodule;
typedef struct CUfunc_st* CUfunction;
typedef struct CUstream_st* CUstream;
typedef struct CUevent_st* CUevent;
typedef struct CUgraph_st* CUgraph;
typedef struct CUgraphExec_st* CUgraphExec;

/* ---- CUresult (enum cudaError_enum): the codes hpgraph names ---- */
typedef enum cudaError_enum {
	CUDA_SUCCESS = 0,
	CUDA_ERROR_INVALID_VALUE = 1,
	CUDA_ERROR_OUT_OF_MEMORY = 2,
	CUDA_ERROR_NOT_INITIALIZED = 3,
	CUDA_ERROR_STUB_LIBRARY = 34,       /* libcuda.so.1 is the toolkit's stub */
	CUDA_ERROR_DEVICE_UNAVAILABLE = 46,
	CUDA_ERROR_NO_DEVICE = 100,
	CUDA_ERROR_INVALID_DEVICE = 101,
	CUDA_ERROR_NO_BINARY_FOR_GPU = 209
} CUresult;

/* ---- Flags and attributes ---- */
typedef enum CUctx_flags_enum {
	CU_CTX_SCHED_AUTO = 0x00
} CUctx_flags;

typedef enum CUstream_flags_enum {
	CU_STREAM_NON_BLOCKING = 0x1
} CUstream_flags;

typedef enum CUevent_flags_enum {
	CU_EVENT_DEFAULT = 0x0,
	CU_EVENT_BLOCKING_SYNC = 0x1,
	CU_EVENT_DISABLE_TIMING = 0x2
} CUevent_flags;

typedef enum CUevent_record_flags_enum {
	CU_EVENT_RECORD_EXTERNAL = 0x1
} CUevent_record_flags;

typedef enum CUstreamCaptureMode_enum {
	CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1
} CUstreamCaptureMode;

typedef enum CUdevice_attribute_enum {
	CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
	CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
	CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97
} CUdevice_attribute;

typedef enum CUfunction_attribute_enum {
	CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
	CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14
} CUfunction_attribute;

typedef enum CUjit_option_enum {
	CU_JIT_ERROR_LOG_BUFFER = 5,
	CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6
} CUjit_option;

/* ---- Texture objects over linear memory ---- */
typedef enum CUresourcetype_enum {
	CU_RESOURCE_TYPE_LINEAR = 0x02
} CUresourcetype;

typedef enum CUarray_format_enum {
	CU_AD_FORMAT_UNSIGNED_INT32 = 0x03
} CUarray_format;

/* CUDA_RESOURCE_DESC: of the union only the member hpgraph sets (linear)
 * and the reserved words that give the union its documented size. */
typedef struct CUDA_RESOURCE_DESC_st {
	CUresourcetype resType;
	union {
		struct {
			CUdeviceptr devPtr;
			CUarray_format format;
			unsigned int numChannels;
			size_t sizeInBytes;
		} linear;
		struct {
			int reserved[32];
		} reserved;
	} res;
	unsigned int flags;
} CUDA_RESOURCE_DESC;

/* CUDA_TEXTURE_DESC: hpgraph passes it zeroed (the enum-typed fields,
 * CUaddress_mode and CUfilter_mode, are int-sized). */
typedef struct CUDA_TEXTURE_DESC_st {
	int addressMode[3];
	int filterMode;
	unsigned int flags;
	unsigned int maxAnisotropy;
	int mipmapFilterMode;
	float mipmapLevelBias;
	float minMipmapLevelClamp;
	float maxMipmapLevelClamp;
	float borderColor[4];
	int reserved[12];
} CUDA_TEXTURE_DESC;

/* Passed as NULL only. */
typedef struct CUDA_RESOURCE_VIEW_DESC_st CUDA_RESOURCE_VIEW_DESC;

/* ---- cuLaunchKernelEx (CUDA 11.8) ---- */
typedef enum CUlaunchAttributeID_enum {
	CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4
} CUlaunchAttributeID;

/* CUlaunchAttributeValue: 64 bytes (its pad member); of the others only
 * the one hpgraph sets. */
typedef union CUlaunchAttributeValue_union {
	char pad[64];
	struct {
		unsigned int x;
		unsigned int y;
		unsigned int z;
	} clusterDim;
} CUlaunchAttributeValue;

typedef struct CUlaunchAttribute_st {
	CUlaunchAttributeID id;
	char pad[8 - sizeof(CUlaunchAttributeID)];
	CUlaunchAttributeValue value;
} CUlaunchAttribute;

typedef struct CUlaunchConfig_st {
	unsigned int gridDimX;
	unsigned int gridDimY;
	unsigned int gridDimZ;
	unsigned int blockDimX;
	unsigned int blockDimY;
	unsigned int blockDimZ;
	unsigned int sharedMemBytes;
	CUstream hStream;
	CUlaunchAttribute* attrs;
	unsigned int numAttrs;
} CUlaunchConfig;

/* The layouts above, as the reference gives them on x86-64. */
_Static_assert(sizeof(CUDA_RESOURCE_DESC) == 144, "CUDA_RESOURCE_DESC layout");
_Static_assert(sizeof(CUDA_TEXTURE_DESC) == 104, "CUDA_TEXTURE_DESC layout");
_Static_assert(sizeof(CUlaunchAttribute) == 72, "CUlaunchAttribute layout");
_Static_assert(sizeof(CUlaunchConfig) == 56, "CUlaunchConfig layout");

/*
 * The functions: X(name, symbol, parameters). cuName calls hp_cu_name,
 * which cu.Load points at libcuda.so.1's symbol. Every one returns
 * CUresult.
 */
#define HP_CU_FUNCTIONS(X) \
	X(GetErrorName, "cuGetErrorName", (CUresult error, const char** pStr)) \
	X(GetErrorString, "cuGetErrorString", (CUresult error, const char** pStr)) \
	X(Init, "cuInit", (unsigned int Flags)) \
	X(DriverGetVersion, "cuDriverGetVersion", (int* driverVersion)) \
	X(DeviceGet, "cuDeviceGet", (CUdevice* device, int ordinal)) \
	X(DeviceGetCount, "cuDeviceGetCount", (int* count)) \
	X(DeviceGetName, "cuDeviceGetName", (char* name, int len, CUdevice dev)) \
	X(DeviceGetAttribute, "cuDeviceGetAttribute", (int* pi, CUdevice_attribute attrib, CUdevice dev)) \
	X(DeviceTotalMem, "cuDeviceTotalMem_v2", (size_t* bytes, CUdevice dev)) \
	X(DeviceGetTexture1DLinearMaxWidth, "cuDeviceGetTexture1DLinearMaxWidth", (size_t* maxWidthInElements, CUarray_format format, unsigned numChannels, CUdevice dev)) \
	X(CtxCreate, "cuCtxCreate_v2", (CUcontext* pctx, unsigned int flags, CUdevice dev)) \
	X(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", (CUcontext* pctx, CUdevice dev)) \
	X(CtxSetCurrent, "cuCtxSetCurrent", (CUcontext ctx)) \
	X(CtxGetCurrent, "cuCtxGetCurrent", (CUcontext* pctx)) \
	X(CtxSynchronize, "cuCtxSynchronize", (void)) \
	X(MemGetInfo, "cuMemGetInfo_v2", (size_t* free, size_t* total)) \
	X(MemAlloc, "cuMemAlloc_v2", (CUdeviceptr* dptr, size_t bytesize)) \
	X(MemFree, "cuMemFree_v2", (CUdeviceptr dptr)) \
	X(MemAllocHost, "cuMemAllocHost_v2", (void** pp, size_t bytesize)) \
	X(MemFreeHost, "cuMemFreeHost", (void* p)) \
	X(MemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2", (CUdeviceptr* pdptr, void* p, unsigned int Flags)) \
	X(MemHostRegister, "cuMemHostRegister_v2", (void* p, size_t bytesize, unsigned int Flags)) \
	X(MemHostUnregister, "cuMemHostUnregister", (void* p)) \
	X(MemcpyHtoD, "cuMemcpyHtoD_v2", (CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount)) \
	X(MemcpyDtoH, "cuMemcpyDtoH_v2", (void* dstHost, CUdeviceptr srcDevice, size_t ByteCount)) \
	X(MemcpyDtoD, "cuMemcpyDtoD_v2", (CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)) \
	X(MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", (CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount, CUstream hStream)) \
	X(MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", (void* dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)) \
	X(MemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", (CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)) \
	X(MemsetD32, "cuMemsetD32_v2", (CUdeviceptr dstDevice, unsigned int ui, size_t N)) \
	X(MemsetD32Async, "cuMemsetD32Async", (CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream)) \
	X(MemcpyPeerAsync, "cuMemcpyPeerAsync", (CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice, CUcontext srcContext, size_t ByteCount, CUstream hStream)) \
	X(DeviceCanAccessPeer, "cuDeviceCanAccessPeer", (int* canAccessPeer, CUdevice dev, CUdevice peerDev)) \
	X(CtxEnablePeerAccess, "cuCtxEnablePeerAccess", (CUcontext peerContext, unsigned int Flags)) \
	X(ModuleLoadDataEx, "cuModuleLoadDataEx", (CUmodule* module, const void* image, unsigned int numOptions, CUjit_option* options, void** optionValues)) \
	X(ModuleGetFunction, "cuModuleGetFunction", (CUfunction* hfunc, CUmodule hmod, const char* name)) \
	X(FuncSetAttribute, "cuFuncSetAttribute", (CUfunction hfunc, CUfunction_attribute attrib, int value)) \
	X(OccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor", (int* numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize)) \
	X(LaunchKernel, "cuLaunchKernel", (CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream, void** kernelParams, void** extra)) \
	X(LaunchKernelEx, "cuLaunchKernelEx", (const CUlaunchConfig* config, CUfunction f, void** kernelParams, void** extra)) \
	X(StreamCreate, "cuStreamCreate", (CUstream* phStream, unsigned int Flags)) \
	X(StreamSynchronize, "cuStreamSynchronize", (CUstream hStream)) \
	X(StreamWaitEvent, "cuStreamWaitEvent", (CUstream hStream, CUevent hEvent, unsigned int Flags)) \
	X(StreamBeginCapture, "cuStreamBeginCapture_v2", (CUstream hStream, CUstreamCaptureMode mode)) \
	X(StreamEndCapture, "cuStreamEndCapture", (CUstream hStream, CUgraph* phGraph)) \
	X(GraphInstantiateWithFlags, "cuGraphInstantiateWithFlags", (CUgraphExec* phGraphExec, CUgraph hGraph, unsigned long long flags)) \
	X(GraphUpload, "cuGraphUpload", (CUgraphExec hGraphExec, CUstream hStream)) \
	X(GraphLaunch, "cuGraphLaunch", (CUgraphExec hGraphExec, CUstream hStream)) \
	X(GraphDestroy, "cuGraphDestroy", (CUgraph hGraph)) \
	X(GraphExecDestroy, "cuGraphExecDestroy", (CUgraphExec hGraphExec)) \
	X(EventCreate, "cuEventCreate", (CUevent* phEvent, unsigned int Flags)) \
	X(EventRecord, "cuEventRecord", (CUevent hEvent, CUstream hStream)) \
	X(EventRecordWithFlags, "cuEventRecordWithFlags", (CUevent hEvent, CUstream hStream, unsigned int flags)) \
	X(EventSynchronize, "cuEventSynchronize", (CUevent hEvent)) \
	X(EventElapsedTime, "cuEventElapsedTime", (float* pMilliseconds, CUevent hStart, CUevent hEnd)) \
	X(EventDestroy, "cuEventDestroy_v2", (CUevent hEvent)) \
	X(TexObjectCreate, "cuTexObjectCreate", (CUtexObject* pTexObject, const CUDA_RESOURCE_DESC* pResDesc, const CUDA_TEXTURE_DESC* pTexDesc, const CUDA_RESOURCE_VIEW_DESC* pResViewDesc)) \
	X(TexObjectDestroy, "cuTexObjectDestroy", (CUtexObject texObject))

#define HP_CU_DECLARE(name, symbol, params) extern CUresult(*hp_cu_##name) params;
HP_CU_FUNCTIONS(HP_CU_DECLARE)
#undef HP_CU_DECLARE

#define cuGetErrorName hp_cu_GetErrorName
#define cuGetErrorString hp_cu_GetErrorString
#define cuInit hp_cu_Init
#define cuDriverGetVersion hp_cu_DriverGetVersion
#define cuDeviceGet hp_cu_DeviceGet
#define cuDeviceGetCount hp_cu_DeviceGetCount
#define cuDeviceGetName hp_cu_DeviceGetName
#define cuDeviceGetAttribute hp_cu_DeviceGetAttribute
#define cuDeviceTotalMem hp_cu_DeviceTotalMem
#define cuDeviceGetTexture1DLinearMaxWidth hp_cu_DeviceGetTexture1DLinearMaxWidth
#define cuCtxCreate hp_cu_CtxCreate
#define cuDevicePrimaryCtxRetain hp_cu_DevicePrimaryCtxRetain
#define cuCtxSetCurrent hp_cu_CtxSetCurrent
#define cuCtxGetCurrent hp_cu_CtxGetCurrent
#define cuCtxSynchronize hp_cu_CtxSynchronize
#define cuMemGetInfo hp_cu_MemGetInfo
#define cuMemAlloc hp_cu_MemAlloc
#define cuMemFree hp_cu_MemFree
#define cuMemAllocHost hp_cu_MemAllocHost
#define cuMemFreeHost hp_cu_MemFreeHost
#define cuMemHostGetDevicePointer hp_cu_MemHostGetDevicePointer
#define cuMemHostRegister hp_cu_MemHostRegister
#define cuMemHostUnregister hp_cu_MemHostUnregister
#define cuMemcpyHtoD hp_cu_MemcpyHtoD
#define cuMemcpyDtoH hp_cu_MemcpyDtoH
#define cuMemcpyDtoD hp_cu_MemcpyDtoD
#define cuMemcpyHtoDAsync hp_cu_MemcpyHtoDAsync
#define cuMemcpyDtoHAsync hp_cu_MemcpyDtoHAsync
#define cuMemcpyDtoDAsync hp_cu_MemcpyDtoDAsync
#define cuMemsetD32 hp_cu_MemsetD32
#define cuMemsetD32Async hp_cu_MemsetD32Async
#define cuMemcpyPeerAsync hp_cu_MemcpyPeerAsync
#define cuDeviceCanAccessPeer hp_cu_DeviceCanAccessPeer
#define cuCtxEnablePeerAccess hp_cu_CtxEnablePeerAccess
#define cuModuleLoadDataEx hp_cu_ModuleLoadDataEx
#define cuModuleGetFunction hp_cu_ModuleGetFunction
#define cuFuncSetAttribute hp_cu_FuncSetAttribute
#define cuOccupancyMaxActiveBlocksPerMultiprocessor hp_cu_OccupancyMaxActiveBlocksPerMultiprocessor
#define cuLaunchKernel hp_cu_LaunchKernel
#define cuLaunchKernelEx hp_cu_LaunchKernelEx
#define cuStreamCreate hp_cu_StreamCreate
#define cuStreamSynchronize hp_cu_StreamSynchronize
#define cuStreamWaitEvent hp_cu_StreamWaitEvent
#define cuStreamBeginCapture hp_cu_StreamBeginCapture
#define cuStreamEndCapture hp_cu_StreamEndCapture
#define cuGraphInstantiateWithFlags hp_cu_GraphInstantiateWithFlags
#define cuGraphUpload hp_cu_GraphUpload
#define cuGraphLaunch hp_cu_GraphLaunch
#define cuGraphDestroy hp_cu_GraphDestroy
#define cuGraphExecDestroy hp_cu_GraphExecDestroy
#define cuEventCreate hp_cu_EventCreate
#define cuEventRecord hp_cu_EventRecord
#define cuEventRecordWithFlags hp_cu_EventRecordWithFlags
#define cuEventSynchronize hp_cu_EventSynchronize
#define cuEventElapsedTime hp_cu_EventElapsedTime
#define cuEventDestroy hp_cu_EventDestroy
#define cuTexObjectCreate hp_cu_TexObjectCreate
#define cuTexObjectDestroy hp_cu_TexObjectDestroy

#endif /* HPGRAPH_CU_H */
