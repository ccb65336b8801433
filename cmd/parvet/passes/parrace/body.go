package parrace

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

// A body under check: its captured variables, what depends on its index,
// and the shapes of the writes it makes.

type shape int

const (
	shVar shape = iota
	shElem
	shMap
	shField
	shPtr
	shMethod // a method call that changes a value not safe for concurrent use
)

type lockEvent struct {
	pos   token.Pos
	lock  bool
	scope *ast.FuncLit // the deferred literal it is in, or nil
}

type body struct {
	c         *checker
	lit       *ast.FuncLit
	region    ast.Node // variables declared inside are per body (the literal, or the loop for goroutines)
	what      string   // "par.For body"
	via       string   // the verb, "" for goroutines
	dep       map[*types.Var]bool
	index     []string
	rangeBody bool
	siblings  []*ast.FuncLit // Once: the functions running at the same time
	locks     []lockEvent
	acquires  []token.Pos  // receives, selects, atomic loads: writes after them may be ordered
	releases  []token.Pos  // atomic stores: writes before them may be published
	after     token.Pos    // parallel subtests: writes before t.Parallel() are not concurrent
	shared    []*types.Var // those variables
	reported  map[*types.Var]bool
	// inputs are the iteration's own inputs: the index parameters of a
	// verb's body; a goroutine literal's parameters and the per-iteration
	// variables of its loop's header.
	inputs map[*types.Var]bool
	// granted are the blocks that run only when a try-acquire on shared
	// state succeeded (if ok := x.TryLock(); ok {...}, if _, ok :=
	// limiter.attempt(); ok {...}): one body at a time gets through.
	granted []*ast.BlockStmt
	// selects are the blocks guarded by a predicate of the iteration's own
	// inputs alone (if item.primary {...}, if i == 0 {...}).
	selects []*ast.BlockStmt
	// deferLits are the body's deferred literals (defer func() {...}()).
	deferLits []*ast.FuncLit
}

func (c *checker) newBody(lit *ast.FuncLit, region ast.Node, what, via string) *body {
	return &body{c: c, lit: lit, region: region, what: what, via: via, dep: map[*types.Var]bool{}, reported: map[*types.Var]bool{}, inputs: map[*types.Var]bool{}}
}

func (b *body) info() *types.Info { return b.c.pass.TypesInfo }

// captured reports whether v is declared outside the body's region.
func (b *body) captured(v *types.Var) bool {
	if v == nil || v.IsField() || v.Name() == "_" {
		return false
	}
	return v.Pos() < b.region.Pos() || v.Pos() >= b.region.End() || !v.Pos().IsValid()
}

func (b *body) mentionsDep(e ast.Node) bool {
	if e == nil {
		return false
	}
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if v, ok := b.info().Uses[id].(*types.Var); ok && b.dep[v] {
				found = true
			}
		}
		return !found
	})
	return found
}

// propagate marks the body's locals computed from the index as dependent.
func (b *body) propagate() {
	info := b.info()
	for round := 0; round < 4; round++ {
		changed := false
		mark := func(id ast.Expr) {
			if id, ok := id.(*ast.Ident); ok {
				v, _ := info.ObjectOf(id).(*types.Var)
				if v != nil && !b.captured(v) && !b.dep[v] {
					b.dep[v] = true
					changed = true
				}
			}
		}
		ast.Inspect(b.lit.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				any := false
				for _, r := range n.Rhs {
					if b.mentionsDep(r) || b.fetchAdd(r) {
						any = true
					}
				}
				if any {
					for _, l := range n.Lhs {
						mark(l)
					}
				}
			case *ast.ValueSpec:
				any := false
				for _, r := range n.Values {
					if b.mentionsDep(r) || b.fetchAdd(r) {
						any = true
					}
				}
				if any {
					for _, l := range n.Names {
						mark(l)
					}
				}
			case *ast.RangeStmt:
				// The value of a range over index-dependent storage is; the
				// key counts from zero again, so it is not.
				if n.Value != nil && b.mentionsDep(n.X) {
					mark(n.Value)
				}
			}
			return true
		})
		if !changed {
			break
		}
	}
}

// fetchAdd reports whether e holds an atomic add (atomic.AddInt64(&n, 1),
// n.Add(1)) of a positive constant: each body that calls it gets a value no
// other gets, so what is computed from it (a worker id) is the body's own.
func (b *body) fetchAdd(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		fn, ok := typeutil.Callee(b.info(), call).(*types.Func)
		if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "sync/atomic" || !strings.HasPrefix(fn.Name(), "Add") || len(call.Args) == 0 {
			return true
		}
		delta := call.Args[len(call.Args)-1]
		if tv, ok := b.info().Types[delta]; ok && tv.Value != nil && constant.Sign(tv.Value) > 0 {
			found = true
		}
		return !found
	})
	return found
}
