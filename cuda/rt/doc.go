// Package rt is the CUDA backend's lowest layer: one device's context,
// stream, memory, copies, events, CUDA graphs and loaded modules
// (Device), through the driver binding cu. A Device is used by one
// goroutine at a time (Device.Do locks it and makes its context current
// on the calling thread); Devices share nothing, so calls on different
// devices run at once. The layers above (jit, build, run) keep their
// state in device values of their own that embed the one below.
//
// Built without cgo the package is empty: nothing above it builds then
// either, and package cuda reports that the backend is not available.
package rt
