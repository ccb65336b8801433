package parrace

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/parloop/parloop/cmd/parvet/internal/stmts"
)

// Locks: which of a body's writes are protected (under a lock, after a token
// was taken, before an atomic publication, in a block a try-acquire granted)
// or made by one designated item only.

// collectLocks records, in source order, the calls that take and release
// locks: methods named Lock, RLock, TryLock, lockX, xLock... and their
// Unlock counterparts, on any receiver (sync.Mutex, sync.Locker, hand-made
// locks). It also records the points after which a write may be ordered by
// other means: a channel receive or select (token passing), an atomic load
// or compare-and-swap (acquire), and before which an atomic store publishes
// it (release).
func (b *body) collectLocks() {
	info := b.info()
	deferred := map[*ast.CallExpr]bool{}
	// An unlock in a block that then leaves (return, break, continue, goto)
	// does not end the critical section for the code after the block.
	exits := map[*ast.CallExpr]bool{}
	ast.Inspect(b.lit.Body, func(n ast.Node) bool {
		list, ok := stmts.List(n)
		if !ok {
			return true
		}
		if len(list) == 0 {
			return true
		}
		switch list[len(list)-1].(type) {
		case *ast.ReturnStmt, *ast.BranchStmt:
			for _, st := range list {
				if es, ok := st.(*ast.ExprStmt); ok {
					if c, ok := ast.Unparen(es.X).(*ast.CallExpr); ok {
						exits[c] = true
					}
				}
			}
		}
		return true
	})
	// passes: where the body passes a token on (a send, a close; a deferred
	// one counts at the end); spinConds: for loops' conditions.
	var passes []token.Pos
	var spinConds []ast.Node
	var recvs, stores []token.Pos
	spins := false
	ast.Inspect(b.lit.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt:
			if b.grants(n) {
				b.granted = append(b.granted, n.Body)
			}
			if b.selectsOne(n.Cond) {
				b.selects = append(b.selects, n.Body)
			}
		case *ast.ForStmt:
			if n.Cond != nil {
				spinConds = append(spinConds, n.Cond)
			}
		case *ast.DeferStmt:
			if lit, ok := ast.Unparen(n.Call.Fun).(*ast.FuncLit); ok {
				b.deferLits = append(b.deferLits, lit)
			}
			ast.Inspect(n.Call, func(m ast.Node) bool {
				if _, ok := m.(*ast.SendStmt); ok || isClose(info, m) {
					passes = append(passes, b.lit.Body.End())
				}
				return true
			})
		case *ast.SendStmt:
			passes = append(passes, n.Pos())
		case *ast.CallExpr:
			if isClose(info, n) {
				passes = append(passes, n.Pos())
			}
		}
		return true
	})
	defer func() {
		// A receive takes a token another body passed on only if this body
		// passes one on after it: a body that only receives (work from a
		// queue, a start signal) runs beside the others.
		for _, r := range recvs {
			for _, p := range passes {
				if p > r {
					b.acquires = append(b.acquires, r)
					break
				}
			}
		}
		// A store publishes the writes before it to a body that waits for
		// it; it keeps two writers apart only in a protocol where the
		// bodies wait for each other's stores (a spin on a load).
		if spins {
			b.releases = append(b.releases, stores...)
		}
	}()
	ast.Inspect(b.lit.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.DeferStmt:
			// A deferred literal runs when the body returns: its receives
			// and unlocks order nothing for the statements after it, only
			// for its own (see protected).
			deferred[n.Call] = true
		case *ast.GoStmt:
			if _, ok := ast.Unparen(n.Call.Fun).(*ast.FuncLit); ok {
				return false
			}
		case *ast.UnaryExpr:
			// A receive (in a select case too) may take a token another
			// body passed on; one from a context's Done channel or a timer,
			// or from a channel made with room for several values (a
			// counting semaphore, a queue of work), orders nothing between
			// the bodies.
			if n.Op == token.ARROW && !ordersNothing(info, n.X) && !b.c.multiSlot(n.X) {
				recvs = append(recvs, n.Pos())
			}
		case *ast.CallExpr:
			if deferred[n] {
				return true
			}
			var name string
			switch f := ast.Unparen(n.Fun).(type) {
			case *ast.SelectorExpr:
				name = f.Sel.Name
			case *ast.Ident:
				name = f.Name
			default:
				return true
			}
			if fn, ok := typeutil.Callee(info, n).(*types.Func); ok && fn.Pkg() != nil && fn.Pkg().Path() == "sync/atomic" {
				switch {
				case strings.HasPrefix(name, "Load"):
					// A load orders the writes after it only as part of a
					// wait for another body's store: a spin in a for
					// loop's condition.
					if within(spinConds, n.Pos()) {
						b.acquires = append(b.acquires, n.Pos())
						spins = true
					}
				case strings.HasPrefix(name, "CompareAndSwap"), strings.HasPrefix(name, "Swap"):
					b.acquires = append(b.acquires, n.Pos())
				case strings.HasPrefix(name, "Store"):
					stores = append(stores, n.Pos())
				}
				return true
			}
			lower := strings.ToLower(name)
			switch {
			case strings.Contains(lower, "unlock"):
				if exits[n] {
					return true
				}
				b.locks = append(b.locks, lockEvent{pos: n.Pos(), lock: false, scope: b.scopeOf(n.Pos())})
			case strings.HasPrefix(lower, "lock"), strings.HasPrefix(lower, "rlock"), strings.HasPrefix(lower, "rwlock"), strings.HasPrefix(lower, "trylock"),
				strings.HasSuffix(lower, "lock") && !strings.HasSuffix(lower, "block") && !strings.HasSuffix(lower, "clock"):
				b.locks = append(b.locks, lockEvent{pos: n.Pos(), lock: true, scope: b.scopeOf(n.Pos())})
			}
		}
		return true
	})
}

// tryNames are the prefixes (lower case) of methods that try to take
// something that only one caller gets at a time and report in a bool
// whether they did.
var tryNames = []string{"try", "attempt", "compareandswap", "cas"}

// grants reports whether the then-block of n runs only when a try-acquire
// method on a captured (shared) receiver succeeded: the condition is such a
// call, or a bool its init statement got from one, possibly with && and
// further conditions.
func (b *body) grants(n *ast.IfStmt) bool {
	info := b.info()
	var okVars []*types.Var // bools set by a try-call in the init statement
	if as, ok := n.Init.(*ast.AssignStmt); ok && len(as.Rhs) == 1 {
		if call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr); ok && b.isTryCall(call) {
			for _, l := range as.Lhs {
				if id, ok := l.(*ast.Ident); ok {
					if v, ok := info.ObjectOf(id).(*types.Var); ok && types.Identical(v.Type().Underlying(), types.Typ[types.Bool]) {
						okVars = append(okVars, v)
					}
				}
			}
		}
	}
	var conj func(e ast.Expr) bool
	conj = func(e ast.Expr) bool {
		switch e := ast.Unparen(e).(type) {
		case *ast.BinaryExpr:
			return e.Op == token.LAND && (conj(e.X) || conj(e.Y))
		case *ast.CallExpr:
			return b.isTryCall(e)
		case *ast.Ident:
			for _, v := range okVars {
				if info.Uses[e] == v {
					return true
				}
			}
		}
		return false
	}
	return conj(n.Cond)
}

// isTryCall reports whether call is a method call, on a receiver the body
// captures, whose name starts with one of tryNames and whose last result
// is a bool.
func (b *body) isTryCall(call *ast.CallExpr) bool {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	lower := strings.ToLower(sel.Sel.Name)
	named := false
	for _, p := range tryNames {
		if strings.HasPrefix(lower, p) {
			named = true
		}
	}
	if !named {
		return false
	}
	sig, ok := b.info().TypeOf(call.Fun).(*types.Signature)
	if !ok || sig.Results().Len() == 0 || !types.Identical(sig.Results().At(sig.Results().Len()-1).Type().Underlying(), types.Typ[types.Bool]) {
		return false
	}
	if b.info().Selections[sel] == nil {
		return false // a package's function
	}
	root := sel.X
	for {
		switch x := ast.Unparen(root).(type) {
		case *ast.SelectorExpr:
			root = x.X
			continue
		case *ast.StarExpr:
			root = x.X
			continue
		case *ast.Ident:
			v, _ := b.info().Uses[x].(*types.Var)
			return b.captured(v)
		}
		return false
	}
}

// selectsOne reports whether cond is a predicate of the iteration's own
// inputs alone, of the kind that designates an item: a bool input or field
// of one (item.primary), or an input or its field compared with == to a
// constant or a captured variable (i == 0, item.name == want), possibly
// joined by && with other conditions.
func (b *body) selectsOne(cond ast.Expr) bool {
	switch e := ast.Unparen(cond).(type) {
	case *ast.BinaryExpr:
		switch e.Op {
		case token.LAND:
			return b.selectsOne(e.X) || b.selectsOne(e.Y)
		case token.EQL:
			return (b.ofInput(e.X) && b.fixed(e.Y)) || (b.ofInput(e.Y) && b.fixed(e.X))
		}
		return false
	case *ast.Ident, *ast.SelectorExpr:
		t := b.info().TypeOf(e)
		return t != nil && types.Identical(t.Underlying(), types.Typ[types.Bool]) && b.ofInput(e)
	}
	return false
}

// ofInput reports whether e is one of the iteration's inputs or a field of
// one (through pointers too).
func (b *body) ofInput(e ast.Expr) bool {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			v, _ := b.info().Uses[x].(*types.Var)
			return v != nil && b.inputs[v]
		case *ast.SelectorExpr:
			if sel := b.info().Selections[x]; sel == nil || sel.Kind() != types.FieldVal {
				return false
			}
			e = x.X
		case *ast.StarExpr:
			e = x.X
		default:
			return false
		}
	}
}

// fixed reports whether e is a constant or a captured variable the body
// does not write: the same for every iteration.
func (b *body) fixed(e ast.Expr) bool {
	if tv, ok := b.info().Types[e]; ok && tv.Value != nil {
		return true
	}
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return false
	}
	v, _ := b.info().Uses[id].(*types.Var)
	if v == nil || !b.captured(v) {
		return false
	}
	written := false
	ast.Inspect(b.lit.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if lid, ok := ast.Unparen(l).(*ast.Ident); ok && b.info().ObjectOf(lid) == v {
					written = true
				}
			}
		case *ast.IncDecStmt:
			if lid, ok := ast.Unparen(n.X).(*ast.Ident); ok && b.info().ObjectOf(lid) == v {
				written = true
			}
		case *ast.UnaryExpr:
			if lid, ok := ast.Unparen(n.X).(*ast.Ident); ok && n.Op == token.AND && b.info().ObjectOf(lid) == v {
				written = true
			}
		}
		return !written
	})
	return !written
}

func within[N ast.Node](nodes []N, pos token.Pos) bool {
	for _, n := range nodes {
		if n.Pos() <= pos && pos < n.End() {
			return true
		}
	}
	return false
}

// isClose reports whether n is a call of the builtin close.
func isClose(info *types.Info, n ast.Node) bool {
	call, ok := n.(*ast.CallExpr)
	if !ok {
		return false
	}
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return false
	}
	bi, ok := info.Uses[id].(*types.Builtin)
	return ok && bi.Name() == "close"
}

// scopeOf returns the innermost deferred literal of the body that holds
// pos, or nil.
func (b *body) scopeOf(pos token.Pos) *ast.FuncLit {
	var in *ast.FuncLit
	for _, l := range b.deferLits {
		if l.Pos() <= pos && pos < l.End() && (in == nil || l.Pos() > in.Pos()) {
			in = l
		}
	}
	return in
}

// protected reports whether a write at pos is ordered with the other
// bodies' writes: under a lock, after a token was taken, before an atomic
// publication, or in a block a try-acquire granted. A write in a deferred
// literal runs when the body returns: the events of that literal before it
// count, and, when there are none, the state the rest of the body left.
func (b *body) protected(pos token.Pos) bool {
	if within(b.granted, pos) {
		return true
	}
	sc := b.scopeOf(pos)
	var last *lockEvent
	for i := range b.locks {
		if b.locks[i].scope == sc && b.locks[i].pos < pos {
			last = &b.locks[i]
		}
	}
	if last == nil && sc != nil {
		for i := range b.locks {
			if b.locks[i].scope == nil {
				last = &b.locks[i]
			}
		}
	}
	if last != nil && last.lock {
		return true
	}
	for _, p := range b.acquires {
		if ps := b.scopeOf(p); (ps == sc && p < pos) || (sc != nil && ps == nil) {
			return true
		}
	}
	for _, p := range b.releases {
		if b.scopeOf(p) == sc && p > pos {
			return true
		}
	}
	return false
}
