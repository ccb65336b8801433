package fanout

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/parloop/parloop/cmd/parvet/internal/stmts"
)

// Merges under a mutex: a fan-out loop whose goroutines end by merging
// their result into one shared variable while holding a lock,
//
//	mu.Lock()
//	for k, n := range local { counts[k] += n }   // or counts[k] += n, total += n, res = append(res, r)
//	mu.Unlock()
//
// is rewritten into par.Fold rather than par.For: each worker folds its
// pieces into an accumulator of its own (a map, a slice or a number of the
// shared variable's type), with the merge statements as they were but
// writing to it, and the accumulators are merged at the end, then into the
// shared variable, so no lock is taken per item. The merge statements must
// all write the one variable, in one of three ways: adding to it or to its
// map elements (+=, -=, ++, --: partial sums add up), setting map elements
// (=: which body wins was already arbitrary), or appending to it (the order
// was already arbitrary). Anything else under the lock, a body that
// returns early or blocks, or a lock that is not the body's only one keeps
// the par.For rewrite.

// A foldPlan is how a fan-out loop becomes a par.Fold.
type foldPlan struct {
	acc     *types.Var // the shared variable the bodies merge into
	typ     string     // its type, as the file writes it
	class   string     // "add", "set" or "append"
	isMap   bool
	mu      string     // the lock's text, for the message
	drop    []ast.Node // Lock, Unlock (or defer Unlock) in the body
	muDecl  ast.Node   // the lock's declaration, to delete, or nil
	part    string     // the name of Fold's result
	accName string     // Fold body's accumulator parameter
	lo, hi  string
}

// foldPlan returns the Fold rewrite of fl, or nil if its body does not
// merge under a mutex as described above. taken holds the names the loop
// uses.
func (ps *pass) foldPlan(file *ast.File, fl *fanLoop, blockWhy string, taken map[string]bool) *foldPlan {
	if fl.kind == "errgroup" || blockWhy != "" || hasReturn(fl.lit.Body) {
		return nil
	}
	info := ps.TypesInfo
	list := fl.lit.Body.List
	lockAt, unlockAt := -1, -1
	var muExpr ast.Expr
	deferred := false
	for k, st := range list {
		call, isDefer := lockCall(st)
		if call == nil {
			continue
		}
		sel := call.Fun.(*ast.SelectorExpr)
		switch {
		case sel.Sel.Name == "Lock" && !isDefer && lockAt < 0 && isSyncLock(info, sel):
			lockAt, muExpr = k, sel.X
		case sel.Sel.Name == "Unlock" && lockAt >= 0 && unlockAt < 0 && isSyncLock(info, sel) && ps.text(sel.X) == ps.text(muExpr):
			unlockAt, deferred = k, isDefer
		}
	}
	if lockAt < 0 || unlockAt < 0 || (deferred && unlockAt != lockAt+1) {
		return nil
	}
	region := list[lockAt+1 : unlockAt]
	if deferred {
		region = list[unlockAt+1:]
	}
	// The lock must be taken nowhere else in the body.
	locks := 0
	ast.Inspect(fl.lit.Body, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && isSyncLock(info, sel) {
			locks++
		}
		return true
	})
	if locks != 2 || len(region) == 0 {
		return nil
	}
	fp := &foldPlan{mu: ps.text(muExpr), drop: []ast.Node{list[lockAt], list[unlockAt]}}
	for _, st := range region {
		if !ps.mergeStmt(fp, st, fl.lit) {
			return nil
		}
	}
	if fp.acc == nil || fp.acc.Pos() >= fl.loop.Pos() && fp.acc.Pos() < fl.loop.End() {
		return nil
	}
	// Nothing else in the body may touch the variable: it holds the
	// worker's partial result inside Fold.
	for k, st := range list {
		if (k <= lockAt || k >= unlockAt) && !(deferred && k > unlockAt) && ps.mentions(st, fp.acc, nil) {
			return nil
		}
	}
	t := fp.acc.Type()
	switch u := t.Underlying().(type) {
	case *types.Map:
		fp.isMap = true
		if fp.class == "append" {
			return nil
		}
		if fp.class == "add" && !numeric(u.Elem()) {
			return nil
		}
	case *types.Slice:
		if fp.class != "append" {
			return nil
		}
	case *types.Basic:
		if fp.class != "add" || !numeric(u) {
			return nil
		}
	default:
		return nil
	}
	var ok bool
	if fp.typ, ok = ps.typeText(file, t); !ok {
		return nil
	}
	// The lock's declaration goes when the lock has no other use.
	if id, isID := ast.Unparen(muExpr).(*ast.Ident); isID {
		mv, _ := info.Uses[id].(*types.Var)
		if mv == nil {
			return nil
		}
		if mv.Parent() != nil && mv.Parent() != ps.Pkg.Scope() {
			if ps.usedOutside(mv, []ast.Node{fl.loop}) {
				// Used elsewhere too: it stays.
			} else if fp.muDecl = ps.declOf(file, mv); fp.muDecl == nil {
				return nil
			}
		}
	}
	fnBody := enclosingFuncBody(file, fl.loop.Pos())
	used := func(name string) bool {
		return taken[name] || (fnBody != nil && ps.mentionsName(fnBody, name)) || scopeLookup(ps.Pkg, fl.wait.Pos(), name) != nil
	}
	pick := func(cands ...string) string {
		for _, c := range cands {
			if !used(c) {
				taken[c] = true
				return c
			}
		}
		return ""
	}
	fp.part = pick(fp.acc.Name()+"Part", "part", "partial")
	fp.accName = pick("acc", "wacc")
	fp.lo, fp.hi = pick("lo", "from"), pick("hi", "to")
	if fp.part == "" || fp.accName == "" || fp.lo == "" || fp.hi == "" {
		return nil
	}
	return fp
}

// lockCall returns the call of a statement `x.Lock()` or `x.Unlock()`, or
// `defer x.Unlock()`.
func lockCall(st ast.Stmt) (call *ast.CallExpr, isDefer bool) {
	switch st := st.(type) {
	case *ast.ExprStmt:
		call, _ = ast.Unparen(st.X).(*ast.CallExpr)
	case *ast.DeferStmt:
		call, isDefer = st.Call, true
	}
	if call == nil || len(call.Args) != 0 {
		return nil, false
	}
	if sel, ok := call.Fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Lock" || sel.Sel.Name == "Unlock") {
		return call, isDefer
	}
	return nil, false
}

// isSyncLock reports whether sel is a method of sync.Mutex or sync.RWMutex.
func isSyncLock(info *types.Info, sel *ast.SelectorExpr) bool {
	s := info.Selections[sel]
	if s == nil {
		return false
	}
	f, ok := s.Obj().(*types.Func)
	if !ok || f.Pkg() == nil || f.Pkg().Path() != "sync" {
		return false
	}
	recv := f.Type().(*types.Signature).Recv().Type()
	if p, ok := recv.(*types.Pointer); ok {
		recv = p.Elem()
	}
	n, ok := recv.(*types.Named)
	return ok && (n.Obj().Name() == "Mutex" || n.Obj().Name() == "RWMutex")
}

// mergeStmt checks that st, under the lock, is a merge statement (see the
// top of the file) of fp's variable, recording the variable and its class.
func (ps *pass) mergeStmt(fp *foldPlan, st ast.Stmt, lit *ast.FuncLit) bool {
	info := ps.TypesInfo
	// target returns the variable written by e (v or v[k]), and whether
	// through an element.
	target := func(e ast.Expr) (*types.Var, bool) {
		e = ast.Unparen(e)
		elem := false
		if ix, ok := e.(*ast.IndexExpr); ok {
			e, elem = ast.Unparen(ix.X), true
		}
		id, ok := e.(*ast.Ident)
		if !ok {
			return nil, false
		}
		v, _ := info.Uses[id].(*types.Var)
		return v, elem
	}
	note := func(v *types.Var, class string, others ...ast.Node) bool {
		if v == nil || (fp.acc != nil && fp.acc != v) || (fp.class != "" && fp.class != class) {
			return false
		}
		if v.Pos() >= lit.Pos() && v.Pos() < lit.End() {
			return false // a variable of the body's own
		}
		for _, o := range others {
			if o != nil && ps.mentions(o, v, nil) {
				return false
			}
		}
		fp.acc, fp.class = v, class
		return true
	}
	switch st := st.(type) {
	case *ast.IncDecStmt:
		v, elem := target(st.X)
		var key ast.Node
		if elem {
			key = ast.Unparen(st.X).(*ast.IndexExpr).Index
		}
		return note(v, "add", key)
	case *ast.AssignStmt:
		if len(st.Lhs) != 1 || len(st.Rhs) != 1 {
			return false
		}
		v, elem := target(st.Lhs[0])
		var key ast.Node
		if elem {
			key = ast.Unparen(st.Lhs[0]).(*ast.IndexExpr).Index
		}
		switch st.Tok {
		case token.ADD_ASSIGN, token.SUB_ASSIGN:
			return note(v, "add", key, st.Rhs[0])
		case token.ASSIGN:
			if elem {
				return note(v, "set", key, st.Rhs[0])
			}
			// v = append(v, ...)
			call, ok := ast.Unparen(st.Rhs[0]).(*ast.CallExpr)
			if !ok || !stmts.IsBuiltin(info, call.Fun, "append") || len(call.Args) < 2 {
				return false
			}
			if a, _ := target(call.Args[0]); a != v {
				return false
			}
			rest := make([]ast.Node, 0, len(call.Args)-1)
			for _, a := range call.Args[1:] {
				rest = append(rest, a)
			}
			return note(v, "append", rest...)
		}
	case *ast.RangeStmt:
		// for k, n := range local { merge statements }
		if st.Body == nil || len(st.Body.List) == 0 {
			return false
		}
		for _, s := range st.Body.List {
			if !ps.mergeStmt(fp, s, lit) {
				return false
			}
		}
		return !ps.mentions(st.X, fp.acc, nil)
	}
	return false
}

func numeric(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&(types.IsInteger|types.IsFloat|types.IsComplex) != 0
}

// typeText writes t as the file would: packages by the names the file
// imports them under. ok is false if one is not imported there.
func (ps *pass) typeText(file *ast.File, t types.Type) (string, bool) {
	ok := true
	s := types.TypeString(t, func(p *types.Package) string {
		if p == ps.Pkg {
			return ""
		}
		for _, imp := range file.Imports {
			if strings.Trim(imp.Path.Value, `"`) != p.Path() {
				continue
			}
			if imp.Name != nil {
				if imp.Name.Name == "_" || imp.Name.Name == "." {
					break
				}
				return imp.Name.Name
			}
			return p.Name()
		}
		ok = false
		return p.Name()
	})
	return s, ok
}

// declOf returns the statement (or the spec in a var group) that declares
// the local variable v alone, or nil.
func (ps *pass) declOf(file *ast.File, v *types.Var) ast.Node {
	var out ast.Node
	ast.Inspect(file, func(n ast.Node) bool {
		if out != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.DeclStmt:
			g, ok := n.Decl.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				return true
			}
			for _, sp := range g.Specs {
				vs := sp.(*ast.ValueSpec)
				if len(vs.Names) == 1 && ps.TypesInfo.Defs[vs.Names[0]] == v {
					if len(g.Specs) == 1 {
						out = n
					} else {
						out = vs
					}
				}
			}
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE && len(n.Lhs) == 1 {
				if id, ok := n.Lhs[0].(*ast.Ident); ok && ps.TypesInfo.Defs[id] == v {
					out = n
				}
			}
		}
		return true
	})
	return out
}

// enclosingFuncBody returns the body of the function (declaration or
// literal) of file that holds pos, the outermost one.
func enclosingFuncBody(file *ast.File, pos token.Pos) *ast.BlockStmt {
	for _, d := range file.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil && fd.Body.Pos() <= pos && pos < fd.Body.End() {
			return fd.Body
		}
	}
	return nil
}

// open writes the start of the Fold call, up to the loop over the piece's
// indices; the body follows, indented one level more than inner.
func (fp *foldPlan) open(b *strings.Builder, parName, n, idx, inner string) {
	fmt.Fprintf(b, "%s := %s.Fold(%s, func() %s { return %s }, func(%s *%s, %s, %s int) {\n",
		fp.part, parName, n, fp.typ, fp.zero(), fp.accName, fp.typ, fp.lo, fp.hi)
	fmt.Fprintf(b, "%s%s := *%s\n", inner, fp.acc.Name(), fp.accName)
	fmt.Fprintf(b, "%sfor %s := %s; %s < %s; %s++ {\n", inner, idx, fp.lo, idx, fp.hi, idx)
}

// close writes the end of the Fold call and the merge of its result into
// the shared variable.
func (fp *foldPlan) close(b *strings.Builder, indent, inner string) {
	v := fp.acc.Name()
	b.WriteString(inner + "}\n")
	if !fp.isMap {
		fmt.Fprintf(b, "%s*%s = %s\n", inner, fp.accName, v)
	}
	a, c := "a", "b"
	if v == a || v == c {
		a, c = "x", "y"
	}
	fmt.Fprintf(b, "%s}, func(%s, %s %s) %s {\n", indent, a, c, fp.typ, fp.typ)
	switch {
	case fp.isMap:
		fmt.Fprintf(b, "%sfor k, e := range %s {\n%s\t%s[k] %s e\n%s}\n%sreturn %s\n", inner, c, inner, a, fp.op(), inner, inner, a)
	case fp.class == "append":
		fmt.Fprintf(b, "%sreturn append(%s, %s...)\n", inner, a, c)
	default:
		fmt.Fprintf(b, "%sreturn %s + %s\n", inner, a, c)
	}
	b.WriteString(indent + "})\n")
	switch {
	case fp.isMap:
		k, e := "k", "e"
		if v == k || v == e {
			k, e = "key", "elem"
		}
		fmt.Fprintf(b, "%sfor %s, %s := range %s {\n%s%s[%s] %s %s\n%s}", indent, k, e, fp.part, inner, v, k, fp.op(), e, indent)
	case fp.class == "append":
		fmt.Fprintf(b, "%s%s = append(%s, %s...)", indent, v, v, fp.part)
	default:
		fmt.Fprintf(b, "%s%s += %s", indent, v, fp.part)
	}
}

func (fp *foldPlan) zero() string {
	switch {
	case fp.isMap:
		return fp.typ + "{}"
	case fp.class == "append":
		return "nil"
	}
	return "0"
}

func (fp *foldPlan) op() string {
	if fp.class == "set" {
		return "="
	}
	return "+="
}

// what names the accumulator's kind for the message.
func (fp *foldPlan) what() string {
	switch {
	case fp.isMap:
		return "map"
	case fp.class == "append":
		return "slice"
	}
	return "sum"
}
