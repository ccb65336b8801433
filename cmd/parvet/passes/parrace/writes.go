package parrace

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/typeutil"
)

// Writes: the targets of a body's writes, the loops they sit in, and the
// diagnostics for those that race.

// target finds the variable a write to e lands in, and the write's shape;
// nil when the location depends on the index or is not a variable's.
func (b *body) target(e ast.Expr) (*types.Var, shape, ast.Expr) {
	info := b.info()
	sh, set := shVar, false
	outer := e
	mark := func(s shape) {
		if !set {
			sh, set = s, true
		}
	}
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
		case *ast.Ident:
			v, _ := info.ObjectOf(x).(*types.Var)
			if v == nil || x.Name == "_" {
				return nil, 0, nil
			}
			return v, sh, outer
		case *ast.IndexExpr:
			t := info.TypeOf(x.X)
			if t == nil {
				return nil, 0, nil
			}
			u := t.Underlying()
			if p, ok := u.(*types.Pointer); ok {
				u = p.Elem().Underlying()
			}
			switch u.(type) {
			case *types.Map:
				mark(shMap)
			case *types.Slice, *types.Array:
				if b.mentionsDep(x.Index) {
					return nil, 0, nil
				}
				mark(shElem)
			default:
				return nil, 0, nil
			}
			e = x.X
		case *ast.SliceExpr:
			if b.mentionsDep(x.Low) || b.mentionsDep(x.High) {
				return nil, 0, nil
			}
			mark(shElem)
			e = x.X
		case *ast.SelectorExpr:
			sel := info.Selections[x]
			if sel == nil {
				v, _ := info.Uses[x.Sel].(*types.Var)
				if v == nil {
					return nil, 0, nil
				}
				return v, sh, outer
			}
			if sel.Kind() != types.FieldVal {
				return nil, 0, nil
			}
			mark(shField)
			e = x.X
		case *ast.StarExpr:
			mark(shPtr)
			e = x.X
		default:
			return nil, 0, nil
		}
	}
}

func (b *body) checkLoop() {
	b.propagate()
	b.collectLocks()
	info := b.info()
	onceDo := map[*ast.FuncLit]bool{}
	ast.Inspect(b.lit.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			if b.c.handled[n] || onceDo[n] {
				return false
			}
		case *ast.CallExpr:
			// A literal passed to a call runs when the callee decides
			// (t.Cleanup, once.Do, a lock helper): its writes are not judged.
			if _, direct := ast.Unparen(n.Fun).(*ast.FuncLit); !direct {
				for _, a := range n.Args {
					if lit, ok := ast.Unparen(a).(*ast.FuncLit); ok {
						onceDo[lit] = true
					}
				}
			}
			// Writes inside once.Do(func() {...}) are serialized.
			if sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "Do" && len(n.Args) == 1 {
				if fn, ok := typeutil.Callee(info, n).(*types.Func); ok && fn.Pkg() != nil && fn.Pkg().Path() == "sync" {
					if lit, ok := ast.Unparen(n.Args[0]).(*ast.FuncLit); ok {
						onceDo[lit] = true
					}
				}
			}
			// A method that changes a value of a standard type that is not
			// safe for concurrent use writes that value.
			if sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok {
				if s := info.Selections[sel]; s != nil && s.Kind() == types.MethodVal {
					if fn, ok := s.Obj().(*types.Func); ok {
						if tn := unsafeMethod(fn); tn != "" {
							b.write(sel.X, n, "method "+tn+"."+fn.Name())
						}
					}
				}
			}
			if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok && len(n.Args) > 0 {
				if bi, ok := info.Uses[id].(*types.Builtin); ok {
					switch bi.Name() {
					case "delete", "clear":
						b.write(n.Args[0], n, "delete")
					case "copy":
						b.write(n.Args[0], n, "copy")
					}
				}
			}
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				return true
			}
			for i, l := range n.Lhs {
				op := n.Tok.String()
				if n.Tok == token.ASSIGN && len(n.Lhs) == len(n.Rhs) && isAppendTo(info, n.Rhs[i], l) {
					op = "append"
				}
				if n.Tok == token.ASSIGN && len(n.Lhs) == len(n.Rhs) && b.designates(l, n.Rhs[i], n.Pos()) {
					continue
				}
				b.write(l, n, op)
			}
		case *ast.IncDecStmt:
			b.write(n.X, n, n.Tok.String())
		case *ast.RangeStmt:
			if n.Tok == token.ASSIGN {
				if n.Key != nil {
					b.write(n.Key, n, "=")
				}
				if n.Value != nil {
					b.write(n.Value, n, "=")
				}
			}
		}
		return true
	})
}

// designates reports whether lhs = rhs records which iteration is the
// designated one: rhs is one of the iteration's inputs (its index or item),
// lhs a captured variable, and the assignment runs only under a condition
// that is a predicate of the iteration's inputs alone (if item.primary {
// chosen = i }). Such a condition picks the item by its own data, and the
// code means it to pick one: were two picked, the loop would be wrong run
// in sequence too (the last would win). A condition on what the body
// computed (if err != nil { firstErr = err }) does not count.
func (b *body) designates(lhs, rhs ast.Expr, pos token.Pos) bool {
	id, ok := ast.Unparen(rhs).(*ast.Ident)
	if !ok {
		return false
	}
	if v, _ := b.info().Uses[id].(*types.Var); v == nil || !b.inputs[v] {
		return false
	}
	if _, ok := ast.Unparen(lhs).(*ast.Ident); !ok {
		return false
	}
	return within(b.selects, pos)
}

// multiSlot reports whether ch is a variable (or field) that every
// assignment in the package makes with make(chan T, n) for an n other than
// the constants 0 and 1: a channel with room for several values.
func (c *checker) multiSlot(ch ast.Expr) bool {
	var obj types.Object
	switch e := ast.Unparen(ch).(type) {
	case *ast.Ident:
		obj = c.pass.TypesInfo.Uses[e]
	case *ast.SelectorExpr:
		obj = c.pass.TypesInfo.Uses[e.Sel]
	}
	v, ok := obj.(*types.Var)
	if !ok {
		return false
	}
	if c.chanMulti == nil {
		c.chanMulti = c.findChanMakes()
	}
	return c.chanMulti[v]
}

// findChanMakes maps each channel variable or field of the package to
// whether all the values assigned to it in the package's files are made
// with room for several values.
func (c *checker) findChanMakes() map[*types.Var]bool {
	info := c.pass.TypesInfo
	multi := map[*types.Var]bool{}
	bad := map[*types.Var]bool{}
	note := func(l ast.Expr, r ast.Expr) {
		var obj types.Object
		switch e := ast.Unparen(l).(type) {
		case *ast.Ident:
			obj = info.ObjectOf(e)
		case *ast.SelectorExpr:
			obj = info.Uses[e.Sel]
		}
		v, ok := obj.(*types.Var)
		if !ok {
			return
		}
		if _, ok := v.Type().Underlying().(*types.Chan); !ok {
			return
		}
		if r != nil && isMultiMake(info, r) {
			multi[v] = true
		} else {
			bad[v] = true
		}
	}
	for _, f := range c.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				if len(n.Lhs) == len(n.Rhs) {
					for i := range n.Lhs {
						note(n.Lhs[i], n.Rhs[i])
					}
				} else {
					for _, l := range n.Lhs {
						note(l, nil)
					}
				}
			case *ast.ValueSpec:
				for i, id := range n.Names {
					if i < len(n.Values) {
						note(id, n.Values[i])
					} else if len(n.Values) > 0 {
						note(id, nil)
					}
				}
			case *ast.KeyValueExpr:
				if k, ok := n.Key.(*ast.Ident); ok {
					if v, ok := info.Uses[k].(*types.Var); ok && v.IsField() {
						note(k, n.Value)
					}
				}
			}
			return true
		})
	}
	for v := range bad {
		delete(multi, v)
	}
	return multi
}

func isMultiMake(info *types.Info, e ast.Expr) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || len(call.Args) != 2 {
		return false
	}
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return false
	}
	if bi, ok := info.Uses[id].(*types.Builtin); !ok || bi.Name() != "make" {
		return false
	}
	if tv, ok := info.Types[call.Args[1]]; ok && tv.Value != nil {
		s := tv.Value.ExactString()
		return s != "0" && s != "1"
	}
	return true
}

// unsafeTypes lists standard types documented, or built, as not safe for
// concurrent use, with the methods that change them ("*": all methods
// but the listed read-only ones, written with a leading "-").
var unsafeTypes = map[string][]string{
	"bytes.Buffer":          {"*", "-Bytes", "-String", "-Len", "-Cap", "-Available", "-AvailableBuffer"},
	"strings.Builder":       {"Write", "WriteString", "WriteByte", "WriteRune", "Grow", "Reset"},
	"math/rand.Rand":        {"*"},
	"math/rand/v2.Rand":     {"*"},
	"container/list.List":   {"PushBack", "PushFront", "PushBackList", "PushFrontList", "InsertBefore", "InsertAfter", "Remove", "MoveToFront", "MoveToBack", "MoveBefore", "MoveAfter", "Init"},
	"bufio.Writer":          {"Write", "WriteString", "WriteByte", "WriteRune", "Flush", "Reset", "ReadFrom"},
	"bufio.Scanner":         {"Scan", "Buffer", "Split"},
	"encoding/csv.Writer":   {"Write", "WriteAll", "Flush"},
	"text/tabwriter.Writer": {"Write", "Flush", "Init"},
}

// unsafeMethod returns "*bytes.Buffer" (the receiver's type, as messages
// name it) when fn is a method that changes a value of one of
// unsafeTypes, or "".
func unsafeMethod(fn *types.Func) string {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return ""
	}
	t := sig.Recv().Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return ""
	}
	key := n.Obj().Pkg().Path() + "." + n.Obj().Name()
	ms, ok := unsafeTypes[key]
	if !ok {
		return ""
	}
	all := false
	for _, m := range ms {
		switch m {
		case "*":
			all = true
		case "-" + fn.Name():
			return ""
		case fn.Name():
			return "*" + n.Obj().Pkg().Name() + "." + n.Obj().Name()
		}
	}
	if all && fn.Exported() {
		return "*" + n.Obj().Pkg().Name() + "." + n.Obj().Name()
	}
	return ""
}

func isAppendTo(info *types.Info, rhs, lhs ast.Expr) bool {
	call, ok := ast.Unparen(rhs).(*ast.CallExpr)
	if !ok || len(call.Args) == 0 {
		return false
	}
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return false
	}
	if bi, ok := info.Uses[id].(*types.Builtin); !ok || bi.Name() != "append" {
		return false
	}
	return types.ExprString(ast.Unparen(call.Args[0])) == types.ExprString(ast.Unparen(lhs))
}

func (b *body) write(lhs ast.Expr, at ast.Node, op string) {
	v, sh, _ := b.target(lhs)
	if v == nil || !b.captured(v) || b.protected(at.Pos()) || b.reported[v] || at.Pos() < b.after {
		return
	}
	if op == "copy" {
		if sh == shVar {
			sh = shElem
		}
	}
	if strings.HasPrefix(op, "method ") {
		sh = shMethod
	}
	if op == "delete" {
		if _, ok := v.Type().Underlying().(*types.Map); ok || sh == shMap {
			sh = shMap
		} else if sh == shVar {
			sh = shElem
		}
	}
	if b.siblings != nil {
		// Once: a race only with the functions running beside it.
		used := false
		for _, o := range b.siblings {
			ast.Inspect(o, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && b.info().Uses[id] == v {
					used = true
				}
				return !used
			})
		}
		if !used {
			return
		}
	}
	b.reported[v] = true
	if b.c.diagnosed[at.Pos()] {
		return
	}
	b.c.diagnosed[at.Pos()] = true
	b.c.pass.Report(analysis.Diagnostic{
		Pos:      at.Pos(),
		End:      at.End(),
		Category: "race",
		Message:  b.message(v, sh, lhs, op),
	})
}

func (b *body) message(v *types.Var, sh shape, lhs ast.Expr, op string) string {
	name := v.Name()
	var what string
	switch sh {
	case shVar:
		switch op {
		case "append":
			what = "appends to captured slice " + name
		case "=", ":=":
			what = "assigns captured variable " + name
		case "++", "--":
			what = name + op + " updates captured variable " + name
		default:
			what = "updates captured variable " + name + " with " + op
		}
	case shMap:
		if op == "delete" {
			what = "deletes from captured map " + name
		} else {
			what = "writes captured map " + name
		}
	case shElem:
		idx := "the body's index"
		if len(b.index) > 0 {
			idx = "the body's index " + strings.Join(b.index, ", ")
		} else if b.via == "" {
			idx = "the loop iteration"
		}
		what = "writes " + types.ExprString(lhs) + " in captured " + name + " at a position that does not depend on " + idx
	case shField:
		what = "writes " + types.ExprString(lhs) + ", a field of captured " + name
	case shPtr:
		what = "writes through captured pointer " + name
	case shMethod:
		// op is "method *bytes.Buffer.WriteString".
		tm := strings.TrimPrefix(op, "method ")
		dot := strings.LastIndex(tm, ".")
		what = "calls " + types.ExprString(lhs) + "." + tm[dot+1:] + ", which changes captured " + name + " (" + tm[:dot] + " is not safe for concurrent use)"
	}

	var fix string
	isErr := types.Identical(v.Type(), types.Universe.Lookup("error").Type())
	switch {
	case b.siblings != nil:
		fix = "the functions run at the same time and another one uses " + name + "; give each its own variable and combine them after the call (par.Both returns two results)"
	case isErr && (b.via == "par.ForErr" || b.via == "par.MapErr"):
		fix = "return the error from the body instead: " + b.via + " returns the first one"
	case isErr:
		fix = "return errors through errgroup or par.ForErr, or guard " + name + " with a sync.Mutex"
	case b.via == "testing.B.RunParallel":
		fix = "declare it inside the function (each goroutine gets its own), or use sync/atomic or a sync.Mutex"
	case b.via == "par.Fold" && sh == shVar && op != "=" && op != "append":
		fix = "add to the worker's accumulator (" + accName(b.lit) + ") instead: par.Fold merges the accumulators at the end"
	case strings.HasPrefix(b.via, "iter.") && sh == shVar && op == "append":
		fix = "collect the results with the pipeline's Collect"
	case strings.HasPrefix(b.via, "iter.") && sh == shVar && op != "=":
		fix = "use a terminal that combines per-worker results (Reduce, Sum, Count, Fold), or sync/atomic"
	case strings.HasPrefix(b.via, "iter.") && sh == shMap:
		fix = "maps are not safe for concurrent writes: count with iter.Fold (a map per worker, merged at the end), or hold a sync.Mutex around the write"
	case sh == shMethod:
		fix = "give each goroutine or index its own and combine them after the loop, or hold a sync.Mutex around the call"
	case sh == shVar && op == "append":
		fix = "build the slice with par.Map, or preallocate it and write " + name + "[i]"
	case sh == shVar && op != "=":
		fix = "accumulate per index or per piece and combine with par.Reduce or par.ReduceRange, or use sync/atomic"
	case sh == shVar:
		fix = "write per-index results (out[i] = ...) and combine them after the loop, or use par.Reduce"
	case sh == shMap:
		fix = "maps are not safe for concurrent writes: collect per-index results in a slice and build the map after the loop, or hold a sync.Mutex around the write"
	case sh == shElem && b.rangeBody:
		fix = "write only the elements lo..hi-1 of the body's own piece, or use par.Map"
	case sh == shElem:
		fix = "write only elements indexed by the body's own index, or use par.Map"
	default:
		fix = "keep worker-local state and merge it after the loop (par.Reduce), or hold a sync.Mutex around the write"
	}
	if b.via == "" {
		for _, sv := range b.shared {
			used := false
			ast.Inspect(lhs, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && b.info().Uses[id] == sv {
					used = true
				}
				return !used
			})
			if used {
				fix += fmt.Sprintf(" (below Go 1.22 the loop variable %s is one variable shared by all iterations: pass it to the function or copy it in the loop body)", sv.Name())
				break
			}
		}
		return fmt.Sprintf("%s %s without synchronization (data race); %s", b.what, what, fix)
	}
	return fmt.Sprintf("%s %s (data race); %s", b.what, what, fix)
}

// accName is the name of the accumulator parameter of a par.Fold body
// (its first), "acc" if it has none.
func accName(lit *ast.FuncLit) string {
	if ps := lit.Type.Params.List; len(ps) > 0 && len(ps[0].Names) > 0 && ps[0].Names[0].Name != "_" {
		return ps[0].Names[0].Name
	}
	return "acc"
}
