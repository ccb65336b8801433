// Package verbs is the one table of functions that run their function
// arguments concurrently: parloop's verbs, its worker-local-state verb
// (Fold) and its iter stages and terminals. Adding a verb is adding one
// line to Table.
package verbs

import "go/types"

// Kind says how a function argument runs.
type Kind int

const (
	// Loop: the function runs many times at once (once per index, element
	// or piece), so it races with itself.
	Loop Kind = iota
	// Once: the function runs once, at the same time as the call's other
	// Once arguments (Join, Both, Invoke).
	Once
)

// FuncArg describes one function argument of a verb.
type FuncArg struct {
	Arg   int   // position of the argument in the call (receiver excluded)
	Kind  Kind  // Loop or Once
	Index []int // parameters of the function that hold the body's own index (For: {0}; ForErr: {1}; ForRange: {0, 1} = lo, hi)
	Range bool  // Index holds lo and hi of a half-open piece [lo, hi)
	Elems bool  // the argument is a []func(); its elements run concurrently (Invoke)
}

// Verb is a function that runs some of its function arguments concurrently.
type Verb struct {
	Pkg  string // package path
	Name string // function name, or "Type.Method" for a method
	Args []FuncArg
}

// Package paths.
const (
	Par     = "github.com/parloop/parloop/par"
	Iter    = "github.com/parloop/parloop/iter"
	Pslices = "github.com/parloop/parloop/pslices"
)

// Table lists the verbs, one a line.
var Table = []Verb{
	{Par, "For", []FuncArg{{Arg: 1, Kind: Loop, Index: []int{0}}}},
	{Par, "ForRange", []FuncArg{{Arg: 1, Kind: Loop, Index: []int{0, 1}, Range: true}}},
	{Par, "ForErr", []FuncArg{{Arg: 2, Kind: Loop, Index: []int{1}}}},
	{Par, "Map", []FuncArg{{Arg: 1, Kind: Loop}}},
	{Par, "MapErr", []FuncArg{{Arg: 2, Kind: Loop}}},
	{Par, "Reduce", []FuncArg{{Arg: 2, Kind: Loop}}},
	{Par, "ReduceRange", []FuncArg{{Arg: 2, Kind: Loop, Index: []int{0, 1}, Range: true}, {Arg: 3, Kind: Loop}}},
	{Par, "Join", []FuncArg{{Arg: 0, Kind: Once}, {Arg: 1, Kind: Once}}},
	{Par, "Invoke", []FuncArg{{Arg: 0, Kind: Once, Elems: true}}},
	{Par, "Both", []FuncArg{{Arg: 0, Kind: Once}, {Arg: 1, Kind: Once}}},
	{Par, "BothOf", []FuncArg{{Arg: 0, Kind: Once}, {Arg: 2, Kind: Once}}},
	// Fold's init runs on each worker, its body on every piece; merge runs
	// on the caller once the pieces are done.
	{Par, "Fold", []FuncArg{{Arg: 1, Kind: Loop}, {Arg: 2, Kind: Loop, Index: []int{1, 2}, Range: true}}},
	// iter: every stage's function and every terminal's function is called
	// by several goroutines at once (the runners of a pipeline), except
	// Fold's merge, called on the caller.
	{Iter, "Map", []FuncArg{{Arg: 1, Kind: Loop}}},
	{Iter, "MapErr", []FuncArg{{Arg: 1, Kind: Loop}}},
	{Iter, "FlatMap", []FuncArg{{Arg: 1, Kind: Loop}}},
	{Iter, "FlatMapErr", []FuncArg{{Arg: 1, Kind: Loop}}},
	{Iter, "Pipe.Filter", []FuncArg{{Arg: 0, Kind: Loop}}},
	{Iter, "Pipe.FilterErr", []FuncArg{{Arg: 0, Kind: Loop}}},
	{Iter, "Pipe.ForEach", []FuncArg{{Arg: 0, Kind: Loop}}},
	{Iter, "Pipe.Reduce", []FuncArg{{Arg: 1, Kind: Loop}}},
	{Iter, "Pipe.Find", []FuncArg{{Arg: 0, Kind: Loop}}},
	{Iter, "Pipe.FindAny", []FuncArg{{Arg: 0, Kind: Loop}}},
	{Iter, "Pipe.Any", []FuncArg{{Arg: 0, Kind: Loop}}},
	{Iter, "Pipe.Every", []FuncArg{{Arg: 0, Kind: Loop}}},
	{Iter, "Fold", []FuncArg{{Arg: 1, Kind: Loop}, {Arg: 2, Kind: Loop}}},
	// pslices' sorts call cmp from several goroutines at once.
	{Pslices, "SortFunc", []FuncArg{{Arg: 1, Kind: Loop}}},
	{Pslices, "SortStableFunc", []FuncArg{{Arg: 1, Kind: Loop}}},
	// Not parloop's: the standard library's own parallel body. A
	// benchmark's RunParallel runs its function on GOMAXPROCS goroutines.
	{"testing", "B.RunParallel", []FuncArg{{Arg: 0, Kind: Loop}}},
}

var byKey = func() map[[2]string]*Verb {
	m := make(map[[2]string]*Verb)
	for i := range Table {
		v := &Table[i]
		m[[2]string{v.Pkg, v.Name}] = v
	}
	return m
}()

// Name is how Table names fn: "F" for a function, "T.M" for a method.
func Name(fn *types.Func) string {
	sig, _ := fn.Type().(*types.Signature)
	if sig != nil && sig.Recv() != nil {
		t := sig.Recv().Type()
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		if n, ok := types.Unalias(t).(*types.Named); ok {
			return n.Obj().Name() + "." + fn.Name()
		}
	}
	return fn.Name()
}

// Lookup returns fn's entry in Table, or nil.
func Lookup(fn *types.Func) *Verb {
	if fn == nil || fn.Pkg() == nil {
		return nil
	}
	return byKey[[2]string{fn.Pkg().Path(), Name(fn)}]
}

// Display is how diagnostics name a verb: "par.For".
func Display(fn *types.Func) string {
	if fn.Pkg() == nil {
		return fn.Name()
	}
	return fn.Pkg().Name() + "." + Name(fn)
}
