package parrace

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/types/typeutil"
)

// Iterations: whether a goroutine or body started in a loop can run at the
// same time as those of other iterations (started once, joined each
// iteration, ordered by a channel).

// enclosingLoop returns the innermost for or range statement around the last
// node of stack, unless a function boundary comes first.
func enclosingLoop(stack []ast.Node) ast.Stmt {
	for i := len(stack) - 2; i >= 0; i-- {
		switch s := stack[i].(type) {
		case *ast.FuncLit, *ast.FuncDecl:
			return nil
		case *ast.ForStmt:
			if i+1 < len(stack) && stack[i+1] == s.Body {
				return s
			}
			return nil
		case *ast.RangeStmt:
			if i+1 < len(stack) && stack[i+1] == s.Body {
				return s
			}
			return nil
		}
	}
	return nil
}

// startedOnce reports whether the last node of stack runs in at most one
// iteration of loop: it is in the then-block of an if whose condition
// compares the range loop's key (distinct in every iteration: a map's key,
// a slice's index) with == to a constant or a variable the loop does not
// assign (if alias == primary { go ... }), possibly with && and more.
func startedOnce(info *types.Info, loop ast.Stmt, stack []ast.Node) bool {
	rs, ok := loop.(*ast.RangeStmt)
	if !ok || rs.Key == nil || rs.Tok != token.DEFINE {
		return false
	}
	key, _ := info.Defs[rs.Key.(*ast.Ident)].(*types.Var)
	if key == nil {
		return false
	}
	t := info.TypeOf(rs.X)
	if t == nil {
		return false
	}
	switch u := t.Underlying().(type) {
	case *types.Map, *types.Slice, *types.Array, *types.Basic:
	case *types.Pointer:
		if _, ok := u.Elem().Underlying().(*types.Array); !ok {
			return false
		}
	default:
		return false // a channel or an iterator function may repeat values
	}
	fixed := func(e ast.Expr) bool {
		if tv, ok := info.Types[e]; ok && tv.Value != nil {
			return true
		}
		id, ok := ast.Unparen(e).(*ast.Ident)
		if !ok {
			return false
		}
		v, _ := info.Uses[id].(*types.Var)
		if v == nil || (v.Pos() >= rs.Pos() && v.Pos() < rs.End()) {
			return false
		}
		assigned := false
		ast.Inspect(rs.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for _, l := range n.Lhs {
					if lid, ok := ast.Unparen(l).(*ast.Ident); ok && info.ObjectOf(lid) == v {
						assigned = true
					}
				}
			case *ast.IncDecStmt:
				if lid, ok := ast.Unparen(n.X).(*ast.Ident); ok && info.ObjectOf(lid) == v {
					assigned = true
				}
			case *ast.UnaryExpr:
				if lid, ok := ast.Unparen(n.X).(*ast.Ident); ok && n.Op == token.AND && info.ObjectOf(lid) == v {
					assigned = true
				}
			}
			return !assigned
		})
		return !assigned
	}
	isKey := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && info.Uses[id] == key
	}
	var selects func(e ast.Expr) bool
	selects = func(e ast.Expr) bool {
		b, ok := ast.Unparen(e).(*ast.BinaryExpr)
		if !ok {
			return false
		}
		switch b.Op {
		case token.LAND:
			return selects(b.X) || selects(b.Y)
		case token.EQL:
			return (isKey(b.X) && fixed(b.Y)) || (isKey(b.Y) && fixed(b.X))
		}
		return false
	}
	in := false
	for i, n := range stack {
		if n == loop {
			in = true
			continue
		}
		if !in {
			continue
		}
		if ifs, ok := n.(*ast.IfStmt); ok && i+1 < len(stack) && stack[i+1] == ifs.Body && selects(ifs.Cond) {
			return true
		}
	}
	return false
}

// joinedEachIteration reports whether, after starting the goroutine, the
// loop body waits (a receive, a select, a Wait call) before the next
// iteration, so that the goroutines do not overlap.
func joinedEachIteration(info *types.Info, loop ast.Stmt, start ast.Node) bool {
	var body *ast.BlockStmt
	switch l := loop.(type) {
	case *ast.ForStmt:
		body = l.Body
	case *ast.RangeStmt:
		body = l.Body
	}
	joined := false
	ast.Inspect(body, func(n ast.Node) bool {
		if joined || n == nil {
			return false
		}
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		if n.Pos() < start.End() {
			return true
		}
		switch n := n.(type) {
		case *ast.UnaryExpr:
			// A select's receive cases are visited as receives.
			if n.Op == token.ARROW && !ordersNothing(info, n.X) {
				joined = true
			}
		case *ast.RangeStmt:
			if t, ok := info.TypeOf(n.X).Underlying().(*types.Chan); ok && t != nil {
				joined = true
			}
		case *ast.CallExpr:
			if sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "Wait" {
				joined = true
			}
		}
		return true
	})
	return joined
}

// ordersNothing reports whether a receive from ch synchronizes with no
// other goroutine of the program's: ctx.Done() (any method Done with no
// arguments that returns a channel), time.After, time.Tick, and the C of a
// time.Timer or time.Ticker.
func ordersNothing(info *types.Info, ch ast.Expr) bool {
	switch e := ast.Unparen(ch).(type) {
	case *ast.CallExpr:
		fn, ok := typeutil.Callee(info, e).(*types.Func)
		if !ok {
			return false
		}
		if fn.Name() == "Done" && len(e.Args) == 0 {
			if t := info.TypeOf(e); t != nil {
				_, isChan := t.Underlying().(*types.Chan)
				return isChan
			}
		}
		return fn.Pkg() != nil && fn.Pkg().Path() == "time" && (fn.Name() == "After" || fn.Name() == "Tick")
	case *ast.SelectorExpr:
		if e.Sel.Name != "C" {
			return false
		}
		t := info.TypeOf(e.X)
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		if n, ok := t.(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time" {
			return n.Obj().Name() == "Timer" || n.Obj().Name() == "Ticker"
		}
	}
	return false
}
