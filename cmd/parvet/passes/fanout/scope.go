package fanout

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"go/version"

	"github.com/parloop/parloop/cmd/parvet/internal/stmts"
)

// Scope fan-out: a WaitGroup or errgroup whose tasks are spawned where no
// loop verb fits, in a loop over a channel, a map or a function iterator,
// or from inside the tasks themselves (a walk where each task spawns the
// next ones):
//
//	var wg sync.WaitGroup
//	for x := range ch {                 // or a map, an iter.Seq
//		wg.Go(func() { work(x) })       // or wg.Add(1); go func() { defer wg.Done(); ... }()
//	}
//	wg.Wait()
//
// becomes
//
//	par.Scope(func(s *par.Spawner) {
//		for x := range ch {
//			s.Go(func() { work(x) })
//		}
//	})
//
// and an errgroup becomes par.ScopeErr(ctx, func(ctx context.Context,
// s *par.ErrSpawner) error { ...; return nil }). The statements from the
// group's first use to its Wait (the region) become the scope's body; the
// group's Add, Done and SetLimit go, its Go calls become s.Go, and go
// statements become s.Go of the same function, their arguments evaluated
// where the go statement evaluated them.

// scopeFan is a matched scope fan-out.
type scopeFan struct {
	kind     string // "WaitGroup", "WaitGroup.Go", "errgroup"
	group    *types.Var
	decl     ast.Stmt
	ctxVar   *types.Var // WithContext's context
	parent   ast.Expr   // WithContext's argument
	region   []ast.Stmt // the statements that become the scope's body
	waitStmt ast.Stmt
	wait     *ast.CallExpr
	limit    ast.Expr // SetLimit's argument
	where    string   // "over a channel", ..., "from inside its tasks"
	pre      ast.Stmt // SetLimit before the region

	drops   []ast.Node                  // Add, SetLimit and Done statements
	goRecv  []ast.Expr                  // receivers of wg.Go / g.Go, which become s
	goStmts []*ast.GoStmt               // go statements, which become s.Go
	tasks   map[*ast.FuncLit]bool       // the tasks' function literals
	helpers map[*ast.FuncLit]bool       // functions the tasks call (scopeHelpers)
	named   map[*types.Var]*ast.FuncLit // tasks started as go f(args)
	blocks  map[ast.Node]ast.Node       // a go statement's innermost block
	loops   []ast.Node                  // loops enclosing a spawn, for Go < 1.22
}

// scopes reports the scope fan-outs waited for in list, and claims their
// loops and Wait so that the loop and recursion rules leave them alone.
func (ps *pass) scopes(file *ast.File, list []ast.Stmt) {
	for w, st := range list {
		sf, why := ps.matchScope(file, list, w)
		if sf == nil {
			continue
		}
		ps.claimed[st] = true
		for _, r := range sf.region {
			ast.Inspect(r, func(n ast.Node) bool {
				switch n.(type) {
				case *ast.ForStmt, *ast.RangeStmt:
					ps.claimed[n] = true
				}
				return true
			})
		}
		if why != "" {
			ps.scopeReport(sf, fmt.Sprintf("%s could replace the goroutines, but no fix is offered: %s", sf.verb(), why))
			continue
		}
		ps.scopeRewrite(file, sf)
	}
}

func (sf *scopeFan) verb() string {
	if sf.kind == "errgroup" {
		return "par.ScopeErr"
	}
	return "par.Scope"
}

// scopeWait recognises the Wait of a local WaitGroup or errgroup in st.
func (ps *pass) scopeWait(st ast.Stmt) (*ast.CallExpr, *types.Var, string) {
	c := waitCall(st)
	if c == nil {
		return nil, nil, ""
	}
	if v, ok := ps.methodOn(c, "sync", "WaitGroup", "Wait"); ok && v != nil {
		if _, isExpr := st.(*ast.ExprStmt); isExpr {
			return c, v, "WaitGroup"
		}
	}
	if v, ok := ps.methodOn(c, errgroupPath, "Group", "Wait"); ok && v != nil {
		return c, v, "errgroup"
	}
	return nil, nil, ""
}

// matchScope recognises a scope fan-out waited for by list[w]. It returns
// nil when there is none (or the loop rules cover it), and a reason when
// one cannot be rewritten.
func (ps *pass) matchScope(file *ast.File, list []ast.Stmt, w int) (*scopeFan, string) {
	info := ps.TypesInfo
	wait, group, kind := ps.scopeWait(list[w])
	if wait == nil {
		return nil, ""
	}
	sf := &scopeFan{kind: kind, group: group, waitStmt: list[w], wait: wait,
		tasks: map[*ast.FuncLit]bool{}, named: map[*types.Var]*ast.FuncLit{}, blocks: map[ast.Node]ast.Node{}}
	d := ps.declIndex(list, w, group)
	if d < 0 {
		return nil, ""
	}
	sf.decl = list[d]
	if as, ok := sf.decl.(*ast.AssignStmt); ok && kind == "errgroup" && len(as.Lhs) == 2 {
		sf.ctxVar, _ = info.ObjectOf(as.Lhs[1].(*ast.Ident)).(*types.Var)
		if c, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr); ok && len(c.Args) == 1 {
			sf.parent = c.Args[0]
		}
	}
	start := -1
	for k := d + 1; k < w; k++ {
		if c := callOf(list[k]); c != nil && sf.limit == nil {
			if v, ok := ps.methodOn(c, errgroupPath, "Group", "SetLimit"); ok && v == group && len(c.Args) == 1 {
				// Before the region: deleted where it stands.
				sf.limit, sf.pre = c.Args[0], list[k]
				continue
			}
		}
		if ps.mentions(list[k], group, nil) {
			start = k
			break
		}
	}
	if start < 0 {
		return nil, ""
	}
	sf.region = list[start:w]
	why := ps.scopeSpawns(sf)
	if sf.where == "" {
		return nil, "" // a loop over a slice or a range: the loop rules
	}
	if why != "" {
		return sf, why
	}
	if sf.ctxVar == nil && as2(sf.decl) && kind == "errgroup" {
		return sf, "the errgroup's context is not a local variable"
	}
	if sf.pre != nil {
		if tv, ok := info.Types[sf.limit]; ok && tv.Value != nil {
			if k, exact := constant.Int64Val(tv.Value); exact && k < 1 {
				return sf, "the errgroup's SetLimit is not positive (a negative limit means none)"
			}
		}
	}
	if ps.usedOutside(group, []ast.Node{sf.decl, sf.pre, sf.regionNode(), wait}) {
		return sf, fmt.Sprintf("%s is also used outside the statements up to its Wait", group.Name())
	}
	if sf.ctxVar != nil && ps.usedOutside(sf.ctxVar, []ast.Node{sf.decl, sf.regionNode(), before(sf.decl)}) {
		return sf, fmt.Sprintf("the errgroup's context %s is used after the Wait", sf.ctxVar.Name())
	}
	if why := ps.regionLeaves(sf); why != "" {
		return sf, why
	}
	if fv := info.FileVersions[file]; fv != "" && version.Compare(fv, "go1.22") < 0 {
		for lit := range sf.tasks {
			for _, l := range sf.loops {
				for _, v := range loopVars(info, l) {
					if within(l, lit.Pos()) && ps.mentions(lit, v, nil) {
						return sf, fmt.Sprintf("below Go 1.22 the tasks share the loop variable %s (copy it first: %s := %s)", v.Name(), v.Name(), v.Name())
					}
				}
			}
		}
	}
	return sf, ""
}

func as2(s ast.Stmt) bool {
	as, ok := s.(*ast.AssignStmt)
	return ok && len(as.Lhs) == 2
}

// regionNode spans the region.
func (sf *scopeFan) regionNode() ast.Node {
	return spanNode{sf.region[0].Pos(), sf.region[len(sf.region)-1].End()}
}

// scopeSpawns finds the group's spawns in the region and sets sf.where
// when they make a scope fan-out. It returns a reason when the group is
// used in a way the rewrite cannot carry.
func (ps *pass) scopeSpawns(sf *scopeFan) string {
	info := ps.TypesInfo
	g := sf.group
	isAdd := func(s ast.Stmt) (*ast.CallExpr, bool) {
		c := callOf(s)
		if _, ok := s.(*ast.ExprStmt); !ok || c == nil {
			return nil, false
		}
		v, ok := ps.methodOn(c, "sync", "WaitGroup", "Add")
		return c, ok && v == g
	}
	// Idents of the group and of named tasks that the rewrite accounts for.
	allowed := map[*ast.Ident]bool{}
	// Tasks started by name: v = func(...) { defer wg.Done(); ... }.
	for _, r := range sf.region {
		ast.Inspect(r, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
				return true
			}
			lit, ok := ast.Unparen(as.Rhs[0]).(*ast.FuncLit)
			id, ok2 := as.Lhs[0].(*ast.Ident)
			if !ok || !ok2 {
				return true
			}
			if v, ok := info.ObjectOf(id).(*types.Var); ok && ps.doneOf(lit, g) != nil {
				sf.named[v] = lit
				allowed[id] = true
			}
			return true
		})
	}
	helpers := ps.scopeHelpers(sf)
	sf.helpers = helpers
	// Add(1) statements and the spawn that follows each; Add(len(xs))
	// before a range over xs.
	paired := map[ast.Stmt]bool{}
	covered := map[ast.Stmt]bool{}
	why := ""
	fail := func(s string) {
		if why == "" {
			why = s
		}
	}
	{
		ast.Inspect(&ast.BlockStmt{List: sf.region}, func(n ast.Node) bool {
			list, ok := stmts.List(n)
			if !ok {
				return true
			}
			for k, s := range list {
				c, ok := isAdd(s)
				if !ok {
					continue
				}
				sf.drops = append(sf.drops, s)
				if lit, ok := c.Args[0].(*ast.BasicLit); ok && lit.Value == "1" && k+1 < len(list) && ps.spawnStmt(sf, list[k+1]) {
					paired[list[k+1]] = true
					continue
				}
				if k+1 < len(list) && sf.coverLoop(ps, c, list[k+1], covered) {
					continue
				}
				fail(fmt.Sprintf("%s.Add at line %d does not pair with one goroutine", g.Name(), ps.Fset.Position(s.Pos()).Line))
			}
			return true
		})
	}
	// The spawns, and every other use of the group.
	var stack []ast.Node
	innerLit := func() *ast.FuncLit {
		for k := len(stack) - 1; k >= 0; k-- {
			if l, ok := stack[k].(*ast.FuncLit); ok {
				return l
			}
		}
		return nil
	}
	spawnAt := func(n ast.Node) {
		lit := innerLit()
		if lit != nil && !sf.tasks[lit] && !helpers[lit] {
			fail(fmt.Sprintf("a goroutine of %s is started from a function that is not one of its tasks (line %d)", g.Name(), ps.Fset.Position(n.Pos()).Line))
		}
		if lit != nil && sf.where == "" {
			sf.where = "from inside its tasks"
		}
		for k := len(stack) - 1; k >= 0; k-- {
			switch l := stack[k].(type) {
			case *ast.RangeStmt:
				sf.loops = append(sf.loops, l)
				if t := info.TypeOf(l.X); t != nil && (sf.where == "" || sf.where == "from inside its tasks" && lit == nil) {
					switch t.Underlying().(type) {
					case *types.Chan:
						sf.where = "over a channel"
					case *types.Map:
						sf.where = "over a map"
					case *types.Signature:
						sf.where = "over a function iterator"
					}
				}
			case *ast.ForStmt:
				sf.loops = append(sf.loops, l)
			}
		}
	}
	for _, r := range sf.region {
		ast.Inspect(r, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			stack = append(stack, n)
			switch n := n.(type) {
			case *ast.GoStmt:
				lit, isLit := ast.Unparen(n.Call.Fun).(*ast.FuncLit)
				v := ps.namedTask(sf, n.Call)
				switch {
				case isLit && ps.doneOf(lit, g) != nil:
					sf.tasks[lit] = true
				case v != nil:
					sf.tasks[sf.named[v]] = true
					allowed[ast.Unparen(n.Call.Fun).(*ast.Ident)] = true
				default:
					fail(fmt.Sprintf("it starts a goroutine that is not one of %s's tasks (line %d)", g.Name(), ps.Fset.Position(n.Pos()).Line))
					return true
				}
				if !paired[n] && !covered[n] {
					fail(fmt.Sprintf("the goroutine at line %d is not preceded by %s.Add(1)", ps.Fset.Position(n.Pos()).Line, g.Name()))
				}
				for k := len(stack) - 2; k >= 0; k-- {
					if _, ok := stmts.List(stack[k]); ok {
						sf.blocks[n] = stack[k]
						break
					}
				}
				sf.goStmts = append(sf.goStmts, n)
				spawnAt(n)
			case *ast.ExprStmt:
				if paired[n] { // wg.Add(1); f(x): a task run on the spot
					allowed[ast.Unparen(callOf(n).Fun).(*ast.Ident)] = true
				}
			case *ast.CallExpr:
				for _, m := range [][3]string{{"sync", "WaitGroup", "Go"}, {errgroupPath, "Group", "Go"}} {
					if v, ok := ps.methodOn(n, m[0], m[1], m[2]); ok && v == g && len(n.Args) == 1 {
						allowed[recvIdent(n)] = true
						sf.goRecv = append(sf.goRecv, ast.Unparen(n.Fun).(*ast.SelectorExpr).X)
						if lit, ok := ast.Unparen(n.Args[0]).(*ast.FuncLit); ok {
							sf.tasks[lit] = true
						}
						if sf.kind == "WaitGroup" {
							sf.kind = "WaitGroup.Go"
						}
						spawnAt(n)
					}
				}
				if v, ok := ps.methodOn(n, errgroupPath, "Group", "SetLimit"); ok && v == g {
					if len(stack) != 2 || sf.limit != nil {
						fail("SetLimit is not called once, in the statements before the tasks")
					} else if tv, ok := info.Types[n.Args[0]]; ok && tv.Value != nil {
						if k, exact := constant.Int64Val(tv.Value); exact && k < 1 {
							fail("the errgroup's SetLimit is not positive (a negative limit means none)")
						}
					}
					sf.limit = n.Args[0]
					sf.drops = append(sf.drops, stack[0])
				}
			}
			return true
		})
	}
	if sf.limit != nil && len(sf.goRecv) > 0 && sf.goRecv[0].Pos() < sf.limit.Pos() {
		fail("SetLimit is called after the first task")
	}
	// Done: once per task, deferred or last.
	for lit := range sf.tasks {
		if d := ps.doneOf(lit, g); d != nil {
			sf.drops = append(sf.drops, d)
		}
	}
	// Any use of the group or of a named task not accounted for.
	for _, r := range sf.region {
		ast.Inspect(r, func(n ast.Node) bool {
			if s, ok := n.(ast.Stmt); ok && ps.isDrop(sf, s) {
				return false
			}
			if id, ok := n.(*ast.Ident); ok && !allowed[id] {
				if info.Uses[id] == g {
					fail(fmt.Sprintf("%s is used for more than its tasks (line %d)", g.Name(), ps.Fset.Position(id.Pos()).Line))
				}
				if v, ok := info.Uses[id].(*types.Var); ok && sf.named[v] != nil {
					fail(fmt.Sprintf("the task function %s is used other than by go %s(...) (line %d)", v.Name(), v.Name(), ps.Fset.Position(id.Pos()).Line))
				}
			}
			return true
		})
	}
	for v, lit := range sf.named {
		if !sf.tasks[lit] {
			fail(fmt.Sprintf("%s calls %s.Done but is never started by go", v.Name(), g.Name()))
		}
	}
	return why
}

func (ps *pass) isDrop(sf *scopeFan, n ast.Node) bool {
	for _, d := range sf.drops {
		if d == n {
			return true
		}
	}
	return false
}

// doneOf returns lit's statement that calls Done on wg: deferred at the
// top of the body, or the last statement of a body that does not return
// early.
func (ps *pass) doneOf(lit *ast.FuncLit, wg *types.Var) ast.Stmt {
	list := lit.Body.List
	for k, s := range list {
		c := callOf(s)
		if c == nil {
			continue
		}
		if v, ok := ps.methodOn(c, "sync", "WaitGroup", "Done"); ok && v == wg {
			if _, isDefer := s.(*ast.DeferStmt); isDefer || k == len(list)-1 && !hasReturn(lit.Body) {
				return s
			}
		}
	}
	return nil
}

// namedTask returns the task variable that call calls, or nil.
func (ps *pass) namedTask(sf *scopeFan, call *ast.CallExpr) *types.Var {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return nil
	}
	v, _ := ps.TypesInfo.Uses[id].(*types.Var)
	if sf.named[v] == nil {
		return nil
	}
	for _, a := range call.Args {
		if ps.mentions(a, sf.group, nil) {
			return nil
		}
	}
	return v
}

// spawnStmt reports whether s starts a task: go with a literal that calls
// Done, go or a plain call of a named task.
func (ps *pass) spawnStmt(sf *scopeFan, s ast.Stmt) bool {
	switch s := s.(type) {
	case *ast.GoStmt:
		if lit, ok := ast.Unparen(s.Call.Fun).(*ast.FuncLit); ok {
			return ps.doneOf(lit, sf.group) != nil
		}
		return ps.namedTask(sf, s.Call) != nil
	case *ast.ExprStmt:
		c, ok := ast.Unparen(s.X).(*ast.CallExpr)
		return ok && ps.namedTask(sf, c) != nil
	}
	return false
}

// coverLoop recognises wg.Add(len(xs)) before `for ... range xs` whose body
// starts one goroutine per item: a go statement of its own, and no
// statement that could skip it.
func (sf *scopeFan) coverLoop(ps *pass, add *ast.CallExpr, next ast.Stmt, covered map[ast.Stmt]bool) bool {
	rs, ok := next.(*ast.RangeStmt)
	if !ok || !pure(ps.TypesInfo, rs.X) || ps.text(add.Args[0]) != "len("+ps.text(rs.X)+")" {
		return false
	}
	switch ps.TypesInfo.TypeOf(rs.X).Underlying().(type) {
	case *types.Map, *types.Slice, *types.Array:
	default:
		return false
	}
	var gos []ast.Stmt
	for _, s := range rs.Body.List {
		if g, ok := s.(*ast.GoStmt); ok && ps.spawnStmt(sf, g) {
			gos = append(gos, s)
		}
	}
	jumps := false
	ast.Inspect(rs.Body, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.BranchStmt, *ast.ReturnStmt:
			jumps = true
		}
		return !jumps
	})
	if len(gos) != 1 || jumps {
		return false
	}
	covered[gos[0]] = true
	return true
}

// recvIdent returns the variable named by a method call's receiver (wg in
// wg.Go, (&wg).Go, (*wg).Go).
func recvIdent(c *ast.CallExpr) *ast.Ident {
	x := ast.Unparen(ast.Unparen(c.Fun).(*ast.SelectorExpr).X)
	if u, ok := x.(*ast.UnaryExpr); ok && u.Op == token.AND {
		x = ast.Unparen(u.X)
	}
	if st, ok := x.(*ast.StarExpr); ok {
		x = ast.Unparen(st.X)
	}
	id, _ := x.(*ast.Ident)
	return id
}
