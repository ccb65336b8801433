package fanout

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/parloop/parloop/cmd/parvet/internal/stmts"
)

// Matching: finding a fan-out loop and its Wait, and the reason a loop that
// matches only in part gets no fix.

type fanLoop struct {
	kind     string // "WaitGroup", "WaitGroup.Go", "errgroup"
	loop     ast.Stmt
	lit      *ast.FuncLit
	goCall   *ast.CallExpr // the go statement's call, for parameters
	group    *types.Var    // the WaitGroup or errgroup.Group
	groupDel ast.Stmt      // its declaration
	ctxVar   *types.Var    // WithContext's context, if any
	parent   ast.Expr      // WithContext's argument
	extraDel []ast.Stmt    // wg.Add(n), g.SetLimit(k), sem := make(...)
	bodyDel  []ast.Node    // statements of the goroutine body to drop
	loopKeep []ast.Stmt    // leading statements of the loop body to move into the body
	limit    ast.Expr      // semaphore size or SetLimit's argument
	sem      *types.Var
	wait     *ast.CallExpr
	waitStmt ast.Stmt
}

func (ps *pass) loop(file *ast.File, list []ast.Stmt, i int) {
	loop := list[i]
	body := loopBody(loop)
	if len(body.List) == 0 {
		return
	}
	fl, why := ps.match(list, i)
	if fl == nil && why == "" {
		return // not a fan-out loop
	}
	verb := "par.For"
	if fl != nil && fl.kind == "errgroup" {
		verb = "par.ForErr"
	}
	if why != "" {
		ps.Report(analysis.Diagnostic{
			Pos:      loop.Pos(),
			End:      body.Lbrace,
			Category: "fanout",
			Message:  fmt.Sprintf("fan-out loop: %s could replace the goroutines, but no fix is offered: %s", verb, why),
		})
		return
	}
	ps.rewrite(file, fl, verb)
}

func loopBody(s ast.Stmt) *ast.BlockStmt {
	switch s := s.(type) {
	case *ast.ForStmt:
		return s.Body
	case *ast.RangeStmt:
		return s.Body
	}
	return nil
}

// methodOn reports whether call is recv.name(...) with the method declared in
// pkg on type typ, and returns the receiver's variable.
func (ps *pass) methodOn(call *ast.CallExpr, pkg, typ, name string) (*types.Var, bool) {
	fn, _ := typeutil.Callee(ps.TypesInfo, call).(*types.Func)
	if fn == nil || fn.Name() != name || fn.Pkg() == nil || fn.Pkg().Path() != pkg || funcKey(fn) != pkg+"."+typ+"."+name {
		return nil, false
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil, false
	}
	x := ast.Unparen(sel.X)
	if u, ok := x.(*ast.UnaryExpr); ok && u.Op == token.AND {
		x = ast.Unparen(u.X)
	}
	if st, ok := x.(*ast.StarExpr); ok {
		x = ast.Unparen(st.X)
	}
	id, ok := x.(*ast.Ident)
	if !ok {
		return nil, true
	}
	v, _ := ps.TypesInfo.Uses[id].(*types.Var)
	return v, true
}

func callOf(s ast.Node) *ast.CallExpr {
	switch s := s.(type) {
	case *ast.ExprStmt:
		c, _ := ast.Unparen(s.X).(*ast.CallExpr)
		return c
	case *ast.DeferStmt:
		return s.Call
	}
	return nil
}

// match recognises the fan-out loop at list[i]. It returns (nil, "") when the
// loop is not a fan-out loop, and a reason when it is one but cannot be
// rewritten.
func (ps *pass) match(list []ast.Stmt, i int) (*fanLoop, string) {
	loop := list[i]
	body := loopBody(loop)
	info := ps.TypesInfo
	last := body.List[len(body.List)-1]
	fl := &fanLoop{loop: loop}

	// The statement that starts the goroutine.
	var goStmtFound, groupGo bool
	for _, s := range body.List {
		switch s := s.(type) {
		case *ast.GoStmt:
			if lit, ok := ast.Unparen(s.Call.Fun).(*ast.FuncLit); ok && s == last {
				fl.lit, fl.goCall, fl.kind = lit, s.Call, "WaitGroup"
			}
			goStmtFound = true
		case *ast.ExprStmt:
			if c := callOf(s); c != nil && len(c.Args) == 1 {
				if v, ok := ps.methodOn(c, "sync", "WaitGroup", "Go"); ok {
					goStmtFound, groupGo = true, true
					if lit, ok := ast.Unparen(c.Args[0]).(*ast.FuncLit); ok && s == last && v != nil {
						fl.lit, fl.kind, fl.group = lit, "WaitGroup.Go", v
					}
				} else if v, ok := ps.methodOn(c, errgroupPath, "Group", "Go"); ok {
					goStmtFound, groupGo = true, true
					if lit, ok := ast.Unparen(c.Args[0]).(*ast.FuncLit); ok && s == last && v != nil {
						fl.lit, fl.kind, fl.group = lit, "errgroup", v
					}
				}
			}
		}
	}
	if !goStmtFound {
		return nil, ""
	}
	if fl.lit == nil {
		// A go statement in the loop: a fan-out loop only if it waits on a
		// WaitGroup or an errgroup.
		if groupGo || ps.mentionsGroup(body) {
			return nil, "the goroutine is not started by the loop body's last statement with a function literal"
		}
		return nil, ""
	}

	// The goroutine body: drop Done and semaphore releases.
	if fl.kind == "WaitGroup" {
		if len(fl.goCall.Args) != len(paramVars(info, fl.lit)) || fl.lit.Type.Params.NumFields() > 0 && hasVariadic(fl.lit) {
			return nil, "the goroutine's parameters do not match its arguments"
		}
		stmts := fl.lit.Body.List
		for j, s := range stmts {
			c := callOf(s)
			if c == nil {
				continue
			}
			if v, ok := ps.methodOn(c, "sync", "WaitGroup", "Done"); ok {
				_, isDefer := s.(*ast.DeferStmt)
				if !isDefer && j != len(stmts)-1 {
					return nil, "wg.Done is neither deferred nor the goroutine's last statement"
				}
				if !isDefer && hasReturn(fl.lit.Body) {
					return nil, "the goroutine returns early before its final wg.Done"
				}
				if fl.group != nil && fl.group != v {
					return nil, "the goroutine calls Done on two WaitGroups"
				}
				fl.group = v
				fl.bodyDel = append(fl.bodyDel, s)
			}
		}
		if fl.group == nil {
			if ps.mentionsGroup(fl.lit.Body) {
				return nil, "the goroutine's wg.Done is not a top-level statement of its body"
			}
			return nil, ""
		}
	}
	if fl.group == nil {
		return nil, "the WaitGroup is not a local variable"
	}

	// A semaphore channel: released in the goroutine (<-sem, or a deferred
	// func() { <-sem }()), acquired in the loop or at the top of the goroutine.
	isRecv := func(e ast.Expr) types.Object {
		if u, ok := ast.Unparen(e).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
			return rootObj(info, u.X)
		}
		return nil
	}
	for _, s := range fl.lit.Body.List {
		switch s := s.(type) {
		case *ast.ExprStmt:
			if v, ok := isRecv(s.X).(*types.Var); ok && fl.sem == nil {
				fl.sem = v
				fl.bodyDel = append(fl.bodyDel, s)
			}
		case *ast.DeferStmt:
			lit, ok := ast.Unparen(s.Call.Fun).(*ast.FuncLit)
			if !ok || len(lit.Body.List) == 0 || fl.sem != nil {
				continue
			}
			var sem *types.Var
			rel := true
			for _, t := range lit.Body.List {
				es, ok := t.(*ast.ExprStmt)
				if !ok {
					rel = false
					break
				}
				if v, ok := isRecv(es.X).(*types.Var); ok && (sem == nil || sem == v) {
					sem = v
					continue
				}
				if c := callOf(es); c != nil {
					if v, ok := ps.methodOn(c, "sync", "WaitGroup", "Done"); ok && v == fl.group {
						continue
					}
				}
				rel = false
			}
			if rel && sem != nil {
				fl.sem = sem
				fl.bodyDel = append(fl.bodyDel, s)
			}
		}
	}
	semAcquired := false
	if fl.sem != nil {
		for _, s := range fl.lit.Body.List {
			if snd, ok := s.(*ast.SendStmt); ok && rootObj(info, snd.Chan) == fl.sem {
				fl.bodyDel = append(fl.bodyDel, s)
				semAcquired = true
				break
			}
		}
	}

	// The loop body around the go statement.
	var adds int
	for _, s := range body.List[:len(body.List)-1] {
		if c := callOf(s); c != nil {
			if v, ok := ps.methodOn(c, "sync", "WaitGroup", "Add"); ok && v == fl.group {
				if lit, ok := c.Args[0].(*ast.BasicLit); !ok || lit.Value != "1" {
					return nil, "wg.Add in the loop adds more than one"
				}
				adds++
				continue
			}
		}
		if snd, ok := s.(*ast.SendStmt); ok && fl.sem != nil && !semAcquired && rootObj(info, snd.Chan) == fl.sem {
			semAcquired = true
			continue
		}
		if as, ok := s.(*ast.AssignStmt); ok && as.Tok == token.DEFINE && len(as.Lhs) == len(as.Rhs) {
			okAll := true
			for _, r := range as.Rhs {
				if !pure(info, r) {
					okAll = false
				}
			}
			if okAll {
				fl.loopKeep = append(fl.loopKeep, s)
				continue
			}
		}
		return nil, fmt.Sprintf("the loop body has other statements besides starting the goroutine (line %d)", ps.Fset.Position(s.Pos()).Line)
	}
	if fl.kind == "WaitGroup" && adds > 1 {
		return nil, "wg.Add is called more than once per item"
	}
	if fl.sem != nil && !semAcquired {
		return nil, "the goroutine receives from a channel that the loop does not use as a semaphore"
	}

	// Declarations before the loop, in the same block.
	for j := i - 1; j >= 0; j-- {
		s := list[j]
		if ps.declares(s, fl.group) {
			fl.groupDel = s
			if fl.kind == "errgroup" {
				if as, ok := s.(*ast.AssignStmt); ok && len(as.Lhs) == 2 {
					fl.ctxVar, _ = info.ObjectOf(as.Lhs[1].(*ast.Ident)).(*types.Var)
					if c, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr); ok && len(c.Args) == 1 {
						fl.parent = c.Args[0]
					}
					if fl.ctxVar == nil || fl.parent == nil {
						return nil, "the errgroup's context is not a local variable"
					}
				}
			}
			continue
		}
		if fl.sem != nil && ps.declares(s, fl.sem) {
			as, ok := s.(*ast.AssignStmt)
			if !ok || len(as.Rhs) != 1 {
				return nil, "the semaphore channel is not made just before the loop"
			}
			mk, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
			if !ok || len(mk.Args) != 2 || !stmts.IsBuiltin(info, mk.Fun, "make") {
				return nil, "the semaphore channel has no capacity"
			}
			fl.limit = mk.Args[1]
			fl.extraDel = append(fl.extraDel, s)
			continue
		}
		if c := callOf(s); c != nil {
			if v, ok := ps.methodOn(c, "sync", "WaitGroup", "Add"); ok && v == fl.group && fl.kind == "WaitGroup" {
				adds++
				fl.extraDel = append(fl.extraDel, s)
				continue
			}
			if v, ok := ps.methodOn(c, errgroupPath, "Group", "SetLimit"); ok && v == fl.group {
				if tv, ok := info.Types[c.Args[0]]; ok && tv.Value != nil {
					if k, exact := constant.Int64Val(tv.Value); exact && k < 1 {
						return nil, "the errgroup's SetLimit is not positive (a negative limit means none)"
					}
				}
				fl.limit = c.Args[0]
				fl.extraDel = append(fl.extraDel, s)
				continue
			}
		}
	}
	if fl.groupDel == nil {
		return nil, "the WaitGroup or errgroup is not declared in the loop's block"
	}
	if fl.kind == "WaitGroup" && adds != 1 {
		return nil, "the WaitGroup's Add calls do not match one goroutine per item"
	}
	if fl.sem != nil && fl.limit == nil {
		return nil, "the semaphore channel is not made in the loop's block"
	}

	// The Wait, straight after the loop.
	if i+1 >= len(list) {
		return nil, "the loop is not followed by Wait"
	}
	fl.waitStmt = list[i+1]
	fl.wait = ps.findWait(fl)
	if fl.wait == nil {
		return nil, "the statement after the loop is not the Wait"
	}

	// The group, semaphore and context are used nowhere else.
	allowed := []ast.Node{fl.groupDel, loop, fl.wait}
	for _, s := range fl.extraDel {
		allowed = append(allowed, s)
	}
	for _, v := range []*types.Var{fl.group, fl.sem} {
		if v != nil && ps.usedOutside(v, allowed) {
			return nil, fmt.Sprintf("%s is also used outside the loop and its Wait", v.Name())
		}
	}
	if fl.ctxVar != nil && ps.usedOutside(fl.ctxVar, []ast.Node{fl.groupDel, fl.lit, before(fl.groupDel)}) {
		return nil, fmt.Sprintf("the errgroup's context %s is used outside the goroutines", fl.ctxVar.Name())
	}
	// The goroutine body must not mention the group or semaphore any more.
	for _, v := range []*types.Var{fl.group, fl.sem} {
		if v != nil && ps.mentions(fl.lit.Body, v, fl.bodyDel) {
			return nil, fmt.Sprintf("the goroutine uses %s beyond Done and the semaphore", v.Name())
		}
	}
	if hasGo(fl.lit.Body) {
		return nil, "the goroutine starts goroutines of its own, which could outlive the Wait"
	}
	if fl.kind != "errgroup" && hasReturnValue(fl.lit) {
		return nil, "the goroutine's function returns values"
	}
	return fl, ""
}

func hasVariadic(lit *ast.FuncLit) bool {
	l := lit.Type.Params.List
	if len(l) == 0 {
		return false
	}
	_, ok := l[len(l)-1].Type.(*ast.Ellipsis)
	return ok
}

func hasReturnValue(lit *ast.FuncLit) bool {
	return lit.Type.Results != nil && lit.Type.Results.NumFields() > 0
}

func (ps *pass) mentionsGroup(n ast.Node) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		if c, ok := m.(*ast.CallExpr); ok {
			if _, ok := ps.methodOn(c, "sync", "WaitGroup", "Done"); ok {
				found = true
			}
			if _, ok := ps.methodOn(c, "sync", "WaitGroup", "Add"); ok {
				found = true
			}
		}
		return !found
	})
	return found
}

// pure reports whether e can be evaluated again later with the same result
// and no effects: names, selectors, literals, arithmetic, indexing, len, cap
// and conversions.
func pure(info *types.Info, e ast.Expr) bool {
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case nil:
			return false
		case *ast.CallExpr:
			if tv, found := info.Types[n.Fun]; found && tv.IsType() {
				return true
			}
			if stmts.IsBuiltin(info, n.Fun, "len") || stmts.IsBuiltin(info, n.Fun, "cap") {
				return true
			}
			ok = false
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				ok = false
			}
		case *ast.FuncLit, *ast.CompositeLit:
			ok = false
		}
		return ok
	})
	return ok
}

func hasReturn(b *ast.BlockStmt) bool {
	found := false
	ast.Inspect(b, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			found = true
		}
		return !found
	})
	return found
}

func hasGo(b *ast.BlockStmt) bool {
	found := false
	ast.Inspect(b, func(n ast.Node) bool {
		if _, ok := n.(*ast.GoStmt); ok {
			found = true
		}
		return !found
	})
	return found
}

// declares reports whether s declares v and nothing else.
func (ps *pass) declares(s ast.Stmt, v *types.Var) bool {
	if v == nil {
		return false
	}
	switch s := s.(type) {
	case *ast.AssignStmt:
		if s.Tok != token.DEFINE || len(s.Rhs) != 1 {
			return false
		}
		for _, l := range s.Lhs {
			if id, ok := l.(*ast.Ident); ok && ps.TypesInfo.Defs[id] == v {
				return true
			}
		}
	case *ast.DeclStmt:
		g, ok := s.Decl.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR || len(g.Specs) != 1 {
			return false
		}
		vs := g.Specs[0].(*ast.ValueSpec)
		return len(vs.Names) == 1 && ps.TypesInfo.Defs[vs.Names[0]] == v
	}
	return false
}

// waitCall returns the call in st that may be a Wait: st itself, the
// value assigned or returned, or an if statement's init.
func waitCall(st ast.Stmt) *ast.CallExpr {
	var cand ast.Expr
	switch s := st.(type) {
	case *ast.ExprStmt:
		cand = s.X
	case *ast.AssignStmt:
		if len(s.Rhs) == 1 {
			cand = s.Rhs[0]
		}
	case *ast.ReturnStmt:
		if len(s.Results) == 1 {
			cand = s.Results[0]
		}
	case *ast.IfStmt:
		if as, ok := s.Init.(*ast.AssignStmt); ok && len(as.Rhs) == 1 {
			cand = as.Rhs[0]
		}
	}
	if cand == nil {
		return nil
	}
	c, _ := ast.Unparen(cand).(*ast.CallExpr)
	return c
}

// declIndex returns the index of the statement of list before list[w]
// that declares v, or -1.
func (ps *pass) declIndex(list []ast.Stmt, w int, v *types.Var) int {
	for k := w - 1; k >= 0; k-- {
		if ps.declares(list[k], v) {
			return k
		}
	}
	return -1
}

func (ps *pass) findWait(fl *fanLoop) *ast.CallExpr {
	c := waitCall(fl.waitStmt)
	if c == nil {
		return nil
	}
	pkg, typ := "sync", "WaitGroup"
	if fl.kind == "errgroup" {
		pkg, typ = errgroupPath, "Group"
	}
	if v, ok := ps.methodOn(c, pkg, typ, "Wait"); ok && v == fl.group {
		if fl.kind != "errgroup" {
			if _, ok := fl.waitStmt.(*ast.ExprStmt); !ok {
				return nil
			}
		}
		return c
	}
	return nil
}

// usedOutside reports whether v is used anywhere outside the allowed nodes.
func (ps *pass) usedOutside(v *types.Var, allowed []ast.Node) bool {
	for id, obj := range ps.TypesInfo.Uses {
		if obj != v {
			continue
		}
		ok := false
		for _, n := range allowed {
			if within(n, id.Pos()) {
				ok = true
			}
		}
		if !ok {
			return true
		}
	}
	return false
}

func (ps *pass) mentions(n ast.Node, v *types.Var, except []ast.Node) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		for _, e := range except {
			if m == e {
				return false
			}
		}
		if id, ok := m.(*ast.Ident); ok && ps.TypesInfo.Uses[id] == v {
			found = true
		}
		return !found
	})
	return found
}

func paramVars(info *types.Info, lit *ast.FuncLit) []*ast.Ident {
	var out []*ast.Ident
	for _, f := range lit.Type.Params.List {
		if len(f.Names) == 0 {
			out = append(out, nil)
		}
		out = append(out, f.Names...)
	}
	return out
}
