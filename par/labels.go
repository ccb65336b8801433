package par

import "unsafe"

// pprof labels.
//
// A goroutine's pprof labels are one pointer in the runtime's g (the label
// set that pprof.Do and pprof.SetGoroutineLabels install), and a CPU
// profile sample is attributed to the labels of the goroutine that was
// running. Pieces of a call run on worker goroutines, so, for the samples to
// land on the request that made the call:
//
//   - a worker starts with no labels (a goroutine inherits its creator's,
//     and the first caller that starts the pool is not the worker's owner);
//   - a range call reads its caller's label set once (getProfLabel: a
//     load), the frame keeps it and each split piece carries it; a fork's
//     task is given the label set when it is offered to thieves (stamp, in
//     share.go), since a task its slot runs itself needs none;
//   - a slot running a task switches to the task's label set if it differs
//     from the one it runs under, and switches back afterwards (execute).
//
// The label set is never copied, so none of this allocates, and a caller
// without labels costs a nil compare per task. The two functions are the
// runtime's, reached by the linkname that runtime/pprof itself uses; the
// runtime keeps them for such packages ("Do not remove or change the type
// signature", runtime/proflabel.go); TestLabels* checks them, and passed
// on Go 1.26.8 and 1.27.3.

//go:linkname getProfLabel runtime/pprof.runtime_getProfLabel
func getProfLabel() unsafe.Pointer

//go:linkname setProfLabel runtime/pprof.runtime_setProfLabel
func setProfLabel(labels unsafe.Pointer)
