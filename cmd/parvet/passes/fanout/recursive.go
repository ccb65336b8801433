package fanout

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// Recursive fan-out: a function that starts goroutines which call the
// function itself, and waits for them with a WaitGroup of its own, a
// goroutine per node of the recursion and a WaitGroup per call level:
//
//	func sum(t *Tree) int {
//		if t == nil { return 0 }
//		var l, r int
//		var wg sync.WaitGroup
//		wg.Add(2)
//		go func() { defer wg.Done(); l = sum(t.Left) }()
//		go func() { defer wg.Done(); r = sum(t.Right) }()
//		wg.Wait()
//		return l + r + t.Val
//	}
//
// With parloop the levels nest instead: par.Join (two functions) or
// par.Invoke (more) in place of the goroutines, statements the caller ran
// between them and the Wait as the first function (run on the caller, as
// before), and par.For over the children where the goroutines are started
// by a loop (the fan-out loop's rewrite, which judges the recursive call by
// the rest of the function: its own Wait is gone after the rewrite). The
// nested calls share the pool's workers, and a fork that nobody steals runs
// inline, so the recursion costs no goroutine per node.

// calls reports whether code under n calls fn, the function being
// rewritten.
func (ps *pass) calls(n ast.Node, fn *types.Func) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		if c, ok := m.(*ast.CallExpr); ok {
			if f := calleeFunc(ps.TypesInfo, c); f != nil && f == fn {
				found = true
			}
		}
		return !found
	})
	return found
}

// calleeFunc returns the function or method a call calls, generic ones by
// their origin, or nil.
func calleeFunc(info *types.Info, c *ast.CallExpr) *types.Func {
	var id *ast.Ident
	switch f := ast.Unparen(c.Fun).(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	case *ast.IndexExpr: // an explicit instantiation
		if x, ok := f.X.(*ast.Ident); ok {
			id = x
		}
	}
	if id == nil {
		return nil
	}
	fn, _ := info.Uses[id].(*types.Func)
	if fn != nil {
		fn = fn.Origin()
	}
	return fn
}

// enclosingFunc returns the declared function of file whose body holds pos.
func (ps *pass) enclosingFunc(file *ast.File, pos token.Pos) (*types.Func, *ast.FuncDecl) {
	for _, d := range file.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil && within(fd.Body, pos) {
			fn, _ := ps.TypesInfo.Defs[fd.Name].(*types.Func)
			return fn, fd
		}
	}
	return nil, nil
}

// blocksBesides says why code under n blocks, not counting calls to self
// (the recursion) and the calls in skip (the Waits a rewrite removes).
func (ps *pass) blocksBesides(n ast.Node, self *types.Func, skip []*ast.CallExpr, ignore map[types.Object]bool) string {
	prevSelf, prevSkip := ps.selfFn, ps.skipCalls
	ps.selfFn, ps.skipCalls = self, skip
	defer func() { ps.selfFn, ps.skipCalls = prevSelf, prevSkip }()
	return ps.nodeBlocks(n, ignore)
}

// skipped reports whether nodeBlocks leaves call out (see blocksBesides).
func (ps *pass) skipped(call *ast.CallExpr) bool {
	if ps.selfFn == nil {
		return false
	}
	for _, c := range ps.skipCalls {
		if c == call {
			return true
		}
	}
	return calleeFunc(ps.TypesInfo, call) == ps.selfFn
}

// recursiveForks reports the goroutine forks of a recursive function in
// list, the statement list that declares their WaitGroup, and offers the
// par.Join or par.Invoke rewrite.
func (ps *pass) recursiveForks(file *ast.File, list []ast.Stmt) {
	for w, st := range list {
		wait := callOf(st)
		if _, isExpr := st.(*ast.ExprStmt); !isExpr || wait == nil || ps.claimed[st] {
			continue
		}
		wg, ok := ps.methodOn(wait, "sync", "WaitGroup", "Wait")
		if !ok || wg == nil {
			continue
		}
		// The WaitGroup's declaration, in this list before the Wait.
		decl := ps.declIndex(list, w, wg)
		if decl < 0 {
			continue
		}
		self, fd := ps.enclosingFunc(file, st.Pos())
		if self == nil {
			continue
		}
		var lits []*ast.FuncLit // the goroutines' bodies
		var inline []ast.Stmt   // what the caller runs between the first goroutine and the Wait
		var dels []ast.Stmt     // Adds, go statements
		var dones []ast.Node    // the goroutines' Done calls
		why := ""
		for _, s := range list[decl+1 : w] {
			if c := callOf(s); c != nil {
				if v, ok := ps.methodOn(c, "sync", "WaitGroup", "Add"); ok && v == wg {
					dels = append(dels, s)
					continue
				}
			}
			lit, done := ps.wgGoroutine(s, wg)
			switch {
			case lit != nil:
				lits, dels = append(lits, lit), append(dels, s)
				if done != nil {
					dones = append(dones, done)
				}
			case ps.mentions(s, wg, nil):
				why = "the WaitGroup is used for more than the goroutines"
			case len(lits) > 0:
				inline = append(inline, s)
			}
		}
		if len(lits) == 0 {
			continue
		}
		recursive := false
		for _, l := range lits {
			if ps.calls(l.Body, self) {
				recursive = true
			}
		}
		if !recursive {
			continue
		}
		ps.reportForks(file, fd, self, list, decl, w, wg, lits, inline, dels, dones, why)
	}
}

// wgGoroutine recognises `go func() { defer wg.Done(); ... }()` (or a
// final wg.Done()) and `wg.Go(func() { ... })` on wg, and returns the
// literal and its Done statement.
func (ps *pass) wgGoroutine(s ast.Stmt, wg *types.Var) (*ast.FuncLit, ast.Node) {
	switch s := s.(type) {
	case *ast.GoStmt:
		lit, ok := ast.Unparen(s.Call.Fun).(*ast.FuncLit)
		if !ok || len(s.Call.Args) != 0 || len(lit.Body.List) == 0 {
			return nil, nil
		}
		for k, b := range lit.Body.List {
			c := callOf(b)
			if c == nil {
				continue
			}
			if v, ok := ps.methodOn(c, "sync", "WaitGroup", "Done"); ok && v == wg {
				if _, isDefer := b.(*ast.DeferStmt); isDefer || k == len(lit.Body.List)-1 {
					return lit, b
				}
			}
		}
	case *ast.ExprStmt:
		if c := callOf(s); c != nil && len(c.Args) == 1 {
			if v, ok := ps.methodOn(c, "sync", "WaitGroup", "Go"); ok && v == wg {
				if lit, ok := ast.Unparen(c.Args[0]).(*ast.FuncLit); ok {
					return lit, nil
				}
			}
		}
	}
	return nil, nil
}

// reportForks reports one recursive fork and builds its rewrite.
func (ps *pass) reportForks(file *ast.File, fd *ast.FuncDecl, self *types.Func, list []ast.Stmt, decl, w int, wg *types.Var,
	lits []*ast.FuncLit, inline, dels []ast.Stmt, dones []ast.Node, why string) {
	first, waitStmt := list[decl], list[w]
	n := len(lits)
	if len(inline) > 0 {
		n++
	}
	verb := "par.Join"
	if n > 2 {
		verb = "par.Invoke"
	}
	calls, them := "call", "them"
	if len(lits) == 1 {
		calls, them = "calls", "it"
	}
	what := fmt.Sprintf("recursive fan-out (%s starts %s that %s %s again and waits for %s with a WaitGroup at every level)", self.Name(), plural(len(lits), "goroutine"), calls, self.Name(), them)
	report := func(msg string, fixes ...analysis.SuggestedFix) {
		ps.Report(analysis.Diagnostic{Pos: first.Pos(), End: first.End(), Category: "fanout", Message: msg, SuggestedFixes: fixes})
	}
	noFix := func(reason string) {
		report(fmt.Sprintf("%s: %s would nest the calls on the pool's workers instead of a goroutine per node, but no fix is offered: %s", what, verb, reason))
	}
	if why != "" {
		noFix(why)
		return
	}
	if ps.usedOutside(wg, []ast.Node{first, waitStmt, spanNode{first.End(), waitStmt.Pos()}}) {
		noFix("the WaitGroup is used outside these statements")
		return
	}
	if blockWhy := ps.blocksBesides(fd.Body, self, []*ast.CallExpr{callOf(waitStmt)}, nil); blockWhy != "" {
		noFix(fmt.Sprintf("%s blocks besides its own Wait (%s): keep the goroutines, or use %s.Blocking for the blocking part", self.Name(), blockWhy, "par"))
		return
	}
	// Statements the caller ran inline go into a function of their own:
	// they must not declare what follows the Wait, nor leave the function.
	for _, s := range inline {
		bad := ""
		ast.Inspect(s, func(m ast.Node) bool {
			switch m := m.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ReturnStmt:
				bad = "the statements between the goroutines and the Wait return"
			case *ast.BranchStmt:
				if m.Tok != token.BREAK && m.Tok != token.CONTINUE || m.Label != nil {
					bad = "the statements between the goroutines and the Wait jump"
				}
			}
			return bad == ""
		})
		if as, ok := s.(*ast.AssignStmt); ok && as.Tok == token.DEFINE {
			bad = "the statements between the goroutines and the Wait declare variables"
		}
		if _, ok := s.(*ast.DeclStmt); ok {
			bad = "the statements between the goroutines and the Wait declare variables"
		}
		if bad != "" {
			noFix(bad)
			return
		}
	}
	src, tf := ps.source(first.Pos())
	if src == nil {
		noFix("source unavailable")
		return
	}
	parName, parImport := ps.importName(file, parPath, "par", waitStmt.Pos())
	if parName == "" {
		noFix("the name par is taken")
		return
	}
	if lc := ps.leakChecker(); lc != "" {
		noFix("the package checks for leaked goroutines with " + lc + ", which would report parloop's pool workers")
		return
	}

	indent := indentOf(src, tf, waitStmt.Pos())
	inner := indent + "\t"
	inner2, closing := inner, indent
	if n > 2 {
		inner2, closing = inner+"\t", inner
	}
	funcText := func(stmts string) string { return "func() {\n" + stmts + closing + "}" }
	var fns []string
	if len(inline) > 0 {
		var b strings.Builder
		for _, s := range inline {
			b.WriteString(inner2 + reindent(ps.text(s), indent, inner2, ps.rawStrings(s, tf.Offset(s.Pos()))) + "\n")
			dels = append(dels, s)
		}
		fns = append(fns, funcText(b.String()))
	}
	for _, lit := range lits {
		var b strings.Builder
		for _, s := range lit.Body.List {
			if isDone(s, dones) {
				continue
			}
			old := indentOf(src, tf, s.Pos())
			b.WriteString(inner2 + reindent(ps.text(s), old, inner2, ps.rawStrings(s, tf.Offset(s.Pos()))) + "\n")
		}
		fns = append(fns, funcText(b.String()))
	}
	var call string
	if n == 2 {
		call = parName + ".Join(" + fns[0] + ", " + fns[1] + ")"
	} else {
		call = parName + ".Invoke([]func(){\n" + inner + strings.Join(fns, ",\n"+inner) + ",\n" + indent + "})"
	}
	var edits []analysis.TextEdit
	var removed []span
	for _, s := range append([]ast.Stmt{first}, dels...) {
		p, e := lineSpan(src, tf, s.Pos(), s.End())
		edits = append(edits, analysis.TextEdit{Pos: p, End: e})
		removed = append(removed, span{tf.Offset(p), tf.Offset(e)})
	}
	edits = append(edits, analysis.TextEdit{Pos: waitStmt.Pos(), End: waitStmt.End(), NewText: []byte(call)})
	removed = append(removed, span{tf.Offset(waitStmt.Pos()), tf.Offset(waitStmt.End())})
	var add []string
	if parImport {
		add = append(add, parPath)
	}
	edits = append(edits, ps.importEdits(file, src, tf, add, removed)...)
	report(fmt.Sprintf("%s: rewrite it as %s, which nests the calls on the pool's workers (a fork nobody steals runs inline) instead of a goroutine per node", what, verb),
		analysis.SuggestedFix{Message: "Rewrite with " + verb, TextEdits: edits})
}

func isDone(s ast.Stmt, dones []ast.Node) bool {
	for _, d := range dones {
		if d == s {
			return true
		}
	}
	return false
}

// spanNode is a node covering [pos, end).
type spanNode struct{ pos, end token.Pos }

func (s spanNode) Pos() token.Pos { return s.pos }
func (s spanNode) End() token.Pos { return s.end }

func plural(n int, noun string) string {
	if n == 1 {
		return "a " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
