package fanout

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"go/version"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// The suggested fix for a scope fan-out (scope.go): the region becomes the
// body of par.Scope or par.ScopeErr, with the group's calls rewritten.

func (sf *scopeFan) what() string {
	switch sf.kind {
	case "WaitGroup.Go":
		return "wg.Go"
	case "errgroup":
		if sf.limit != nil {
			return "errgroup.Go with SetLimit"
		}
		return "errgroup.Go"
	}
	return "a goroutine per task and a WaitGroup"
}

func (ps *pass) scopeReport(sf *scopeFan, msg string, fixes ...analysis.SuggestedFix) {
	ps.Report(analysis.Diagnostic{
		Pos:            sf.decl.Pos(),
		End:            sf.decl.End(),
		Category:       "fanout",
		Message:        fmt.Sprintf("fan-out %s (%s): %s", sf.where, sf.what(), msg),
		SuggestedFixes: fixes,
	})
}

// syncs reports whether why (a nodeBlocks reason) is a wait on other
// goroutines rather than on I/O: tasks that wait for each other could wait
// forever on a bounded number of goroutines.
func syncs(why string) bool {
	for _, s := range []string{"channel", "select", "sync.", "time.After", "time.Tick"} {
		if strings.Contains(why, s) {
			return true
		}
	}
	return false
}

func (ps *pass) scopeRewrite(file *ast.File, sf *scopeFan) {
	info := ps.TypesInfo
	verb := sf.verb()
	noFix := func(why string) {
		ps.scopeReport(sf, fmt.Sprintf("%s could replace the goroutines, but no fix is offered: %s", verb, why))
	}
	src, tf := ps.source(sf.decl.Pos())
	if src == nil {
		noFix("source unavailable")
		return
	}

	// What the tasks do (and the functions they call).
	blockWhy := ""
	for _, r := range sf.region {
		ast.Inspect(r, func(n ast.Node) bool {
			if lit, ok := n.(*ast.FuncLit); ok && (sf.tasks[lit] || sf.helpers[lit]) && blockWhy == "" {
				blockWhy = ps.nodeBlocks(lit.Body, nil)
			}
			return blockWhy == ""
		})
	}
	opt := ""
	switch {
	case blockWhy != "" && syncs(blockWhy):
		noFix(fmt.Sprintf("the tasks wait on other goroutines (%s), which on a bounded number of goroutines could wait forever", blockWhy))
		return
	case blockWhy != "" && sf.limit == nil:
		noFix(fmt.Sprintf("the tasks block (%s) and nothing bounds them: use %s(..., par.Blocking(k)) with a bound k of your choosing", blockWhy, verb))
		return
	case blockWhy == "":
		if lc := ps.leakChecker(); lc != "" {
			noFix(fmt.Sprintf("the package checks for leaked goroutines with %s, which would report parloop's pool workers (they outlive the call)", lc))
			return
		}
	}

	// Names: the spawner, par, context.
	_, fd := ps.enclosingFunc(file, sf.decl.Pos())
	var fn ast.Node = file
	if fd != nil {
		fn = fd
	}
	sName := ""
	for _, c := range []string{"s", "sp", "spawner"} {
		if !ps.mentionsName(fn, c) {
			sName = c
			break
		}
	}
	parName, parImport := ps.importName(file, parPath, "par", sf.wait.Pos())
	if sName == "" || parName == "" {
		noFix("the names it needs (s, par) are taken")
		return
	}
	ctxName, ctxImport := "", false
	if sf.kind == "errgroup" {
		if ctxName, ctxImport = ps.importName(file, "context", "context", sf.wait.Pos()); ctxName == "" {
			noFix("the name context is taken")
			return
		}
	}
	if blockWhy != "" {
		opt = ", " + parName + ".Blocking(" + ps.text(sf.limit) + ")"
	}

	// Edits inside the region.
	type sub struct {
		s, e int
		text string
	}
	var subs []sub
	replace := func(p, e token.Pos, text string) {
		subs = append(subs, sub{tf.Offset(p), tf.Offset(e), text})
	}
	for _, d := range sf.drops {
		p, e := lineSpan(src, tf, d.Pos(), d.End())
		replace(p, e, "")
	}
	for _, r := range sf.goRecv {
		replace(r.Pos(), r.End(), sName)
	}
	fv := info.FileVersions[file]
	old := fv != "" && version.Compare(fv, "go1.22") < 0
	for _, g := range sf.goStmts {
		hoist, call, why := ps.spawnText(sf, g, sName, old)
		if why != "" {
			noFix(why)
			return
		}
		if lit, ok := ast.Unparen(g.Call.Fun).(*ast.FuncLit); ok {
			replace(g.Pos(), lit.Body.Lbrace, hoist+sName+".Go(func() ")
			replace(lit.End(), g.End(), ")")
			continue
		}
		replace(g.Pos(), g.End(), hoist+sName+".Go(func() { "+call+" })")
	}
	sort.Slice(subs, func(a, b int) bool { return subs[a].s < subs[b].s })

	indent := indentOf(src, tf, sf.waitStmt.Pos())
	rs, _ := lineSpan(src, tf, sf.region[0].Pos(), sf.region[0].End())
	start, end := tf.Offset(rs), tf.Offset(sf.waitStmt.Pos())-len(indent)
	if start > tf.Offset(sf.region[0].Pos()) || end < 0 || string(src[end:tf.Offset(sf.waitStmt.Pos())]) != indent {
		noFix("the Wait does not start a line of its own")
		return
	}
	var body strings.Builder
	cur := start
	for _, s := range subs {
		if s.s < cur || s.e > end {
			noFix("its edits overlap")
			return
		}
		body.Write(src[cur:s.s])
		body.WriteString(s.text)
		cur = s.e
	}
	body.Write(src[cur:end])
	bodyText := reindent(body.String(), indent, indent+"\t", ps.rawStrings(&ast.BlockStmt{List: sf.region}, start))

	var b strings.Builder
	b.WriteString(indent + string(src[tf.Offset(sf.waitStmt.Pos()):tf.Offset(sf.wait.Pos())]))
	if sf.kind == "errgroup" {
		ctxArg, ctxParam := ctxName+".Background()", "_"
		if sf.ctxVar != nil {
			ctxArg = ps.text(sf.parent)
			if ps.mentions(&ast.BlockStmt{List: sf.region}, sf.ctxVar, nil) {
				ctxParam = sf.ctxVar.Name()
			}
		}
		fmt.Fprintf(&b, "%s.ScopeErr(%s, func(%s %s.Context, %s *%s.ErrSpawner) error {\n%s%s\treturn nil\n%s}%s)",
			parName, ctxArg, ctxParam, ctxName, sName, parName, bodyText, indent, indent, opt)
	} else {
		fmt.Fprintf(&b, "%s.Scope(func(%s *%s.Spawner) {\n%s%s}%s)", parName, sName, parName, bodyText, indent, opt)
	}
	newText := b.String()

	deleted := []ast.Node{sf.decl, sf.wait}
	if sf.pre != nil {
		deleted = append(deleted, sf.pre)
	}
	deleted = append(deleted, sf.drops...)
	if v := ps.leftUnused(file, deleted, newText); v != "" {
		noFix(fmt.Sprintf("the rewrite would leave %s unused", v))
		return
	}
	dp, de := lineSpan(src, tf, sf.decl.Pos(), sf.decl.End())
	edits := []analysis.TextEdit{
		{Pos: dp, End: de},
		{Pos: rs, End: sf.wait.End(), NewText: []byte(newText)},
	}
	removed := []span{{tf.Offset(dp), tf.Offset(de)}, {start, tf.Offset(sf.wait.End())}}
	if sf.pre != nil {
		pp, pe := lineSpan(src, tf, sf.pre.Pos(), sf.pre.End())
		edits = append(edits, analysis.TextEdit{Pos: pp, End: pe})
		removed = append(removed, span{tf.Offset(pp), tf.Offset(pe)})
	}
	edits = append(edits, ps.importEdits(file, src, tf, added(parImport, ctxImport), removed)...)

	call := verb + "(func(s *par.Spawner) {...})"
	if sf.kind == "errgroup" {
		call = verb + "(ctx, func(ctx context.Context, s *par.ErrSpawner) error {...})"
	}
	msg := fmt.Sprintf("rewrite it as %s, which runs the tasks on the pool's workers with no goroutine each (the caller helps while it waits)", call)
	switch {
	case blockWhy != "":
		msg += fmt.Sprintf("; the tasks block (%s): %s.Blocking(%s) runs them on at most %s goroutines of the scope's own, as SetLimit did", blockWhy, parName, ps.text(sf.limit), ps.text(sf.limit))
	case sf.limit != nil:
		msg += "; SetLimit's bound is dropped: the tasks do not block, and the pool bounds the parallelism"
	}
	if sf.kind == "errgroup" {
		msg += "; after the first error no new task starts"
	}
	ps.scopeReport(sf, msg, analysis.SuggestedFix{Message: "Rewrite with " + verb, TextEdits: edits})
}

// spawnText returns what replaces go statement g: definitions that
// evaluate its arguments where it did (hoist, ending in a newline and the
// statement's indentation), and for a named task the call the task makes.
func (ps *pass) spawnText(sf *scopeFan, g *ast.GoStmt, sName string, old bool) (hoist, call, why string) {
	info := ps.TypesInfo
	src, tf := ps.source(g.Pos())
	indent := indentOf(src, tf, g.Pos())
	block := sf.blocks[g]
	// name is free for a definition before g: nothing in g's block declares
	// it, and nothing after g in the block refers to it outside the task.
	free := func(name string, lit *ast.FuncLit) bool {
		if sc := info.Scopes[block]; sc == nil || sc.Lookup(name) != nil || name == sName {
			return false
		}
		used := false
		ast.Inspect(block, func(n ast.Node) bool {
			if n == lit {
				return false
			}
			if id, ok := n.(*ast.Ident); ok && id.Name == name && id.Pos() > g.End() {
				used = true
			}
			return !used
		})
		return !used
	}
	var defs []string
	if lit, ok := ast.Unparen(g.Call.Fun).(*ast.FuncLit); ok {
		if lit.Type.Results != nil && lit.Type.Results.NumFields() > 0 {
			return "", "", "the goroutine's function returns values"
		}
		params := paramVars(info, lit)
		if len(params) != len(g.Call.Args) || hasVariadic(lit) {
			return "", "", "the goroutine's parameters do not match its arguments"
		}
		for k, p := range params {
			a := g.Call.Args[k]
			if p == nil || p.Name == "_" {
				if !pure(info, a) {
					defs = append(defs, "_ = "+ps.text(a))
				}
				continue
			}
			if !free(p.Name, lit) {
				return "", "", fmt.Sprintf("the goroutine's parameter %s would clash with a name of the block that starts it", p.Name)
			}
			defs = append(defs, p.Name+" := "+ps.text(a))
		}
	} else {
		v := ps.namedTask(sf, g.Call)
		lit := sf.named[v]
		params := paramVars(info, lit)
		var args []string
		for k, a := range g.Call.Args {
			if ps.stable(a, old) {
				args = append(args, ps.text(a))
				continue
			}
			// A variable passed on is copied under its own name (c := c);
			// anything else gets the parameter's name, or arg, where that
			// name does not already mean something.
			name := ""
			if id, ok := ast.Unparen(a).(*ast.Ident); ok {
				name = id.Name
			} else {
				for _, c := range []string{paramName(params, k), "arg"} {
					if c != "" && scopeLookup(ps.Pkg, g.Pos(), c) == nil {
						name = c
						break
					}
				}
			}
			if name == "" || !free(name, nil) {
				return "", "", fmt.Sprintf("the argument %s needs a variable of its own, and the name %s is taken", ps.text(a), name)
			}
			defs = append(defs, name+" := "+ps.text(a))
			args = append(args, name)
		}
		call = ps.text(g.Call.Fun) + "(" + strings.Join(args, ", ") + ")"
	}
	for _, d := range defs {
		hoist += d + "\n" + indent
	}
	return hoist, call, ""
}

// stable reports whether e has the same value when a task evaluates it as
// where it was spawned: names of variables never assigned after their
// declaration (below Go 1.22, not a loop's), constants and literals.
func (ps *pass) stable(e ast.Expr, old bool) bool {
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case nil, *ast.BinaryExpr, *ast.ParenExpr, *ast.BasicLit:
		case *ast.UnaryExpr:
			ok = ok && n.Op != token.ARROW && n.Op != token.AND
		case *ast.Ident:
			switch obj := ps.TypesInfo.Uses[n].(type) {
			case *types.Const, *types.Nil:
			case *types.Var:
				if ps.assignedAnywhere(obj) || old && ps.isLoopVar(obj) {
					ok = false
				}
			default:
				ok = false
			}
		default:
			ok = false
		}
		return ok
	})
	return ok
}

// assignedAnywhere reports whether v is assigned, incremented or has its
// address taken in the package after its declaration.
func (ps *pass) assignedAnywhere(v *types.Var) bool {
	for _, f := range ps.Files {
		if within(f, v.Pos()) && ps.assignedIn(f, v) {
			return true
		}
	}
	return false
}

func (ps *pass) isLoopVar(v *types.Var) bool {
	for _, f := range ps.Files {
		if !within(f, v.Pos()) {
			continue
		}
		found := false
		ast.Inspect(f, func(n ast.Node) bool {
			switch n.(type) {
			case *ast.ForStmt, *ast.RangeStmt:
				for _, lv := range loopVars(ps.TypesInfo, n) {
					if lv == v {
						found = true
					}
				}
			}
			return !found
		})
		return found
	}
	return false
}

func paramName(params []*ast.Ident, k int) string {
	if k < len(params) && params[k] != nil && params[k].Name != "_" {
		return params[k].Name
	}
	return ""
}
