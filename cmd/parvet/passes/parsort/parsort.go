// Package parsort suggests parloop's parallel sort where a function sorts,
// on one goroutine, the data of a parallel call it makes.
//
// A function that fills a slice with a parallel loop and then sorts it
// with slices.Sort (or slices.SortFunc, slices.SortStableFunc, sort.Ints,
// sort.Strings, sort.Float64s, sort.Slice, sort.SliceStable) runs the sort,
// O(n log n), on one goroutine after the O(n) parallel part: for large n the
// sort is most of the time. pslices.Sort, SortFunc and SortStableFunc
// (github.com/parloop/parloop/pslices) have slices' signatures, sort in
// parallel on the pool, and sort short slices as slices does, so the
// suggestion costs nothing where the slice turns out small.
//
// The sort is reported when the sorted slice is tied to a parallel call of
// the same function, outside that call's bodies: it is the result of
// par.Map or par.MapErr or of an iter pipeline's Collect, or the call's
// bodies write it or it is one of the call's arguments. A sort inside a
// parallel body (one slice per item) is already spread over the workers
// and is not reported. The fix replaces slices.X(x, ...) and sort.Ints,
// sort.Strings and sort.Float64s with the pslices function of the same
// name and order; sort.Slice, whose less function is not a cmp function,
// gets the diagnostic alone.
package parsort

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/parloop/parloop/cmd/parvet/internal/stmts"
	"github.com/parloop/parloop/cmd/parvet/internal/verbs"
)

// Analyzer is the parsort analyzer.
var Analyzer = &analysis.Analyzer{
	Name: "parsort",
	Doc:  "suggest pslices.Sort where a function sorts, on one goroutine, the data of a parallel call it makes",
	URL:  "https://pkg.go.dev/github.com/parloop/parloop/cmd/parvet/passes/parsort",
	Run:  run,
}

const pslicesPath = "github.com/parloop/parloop/pslices"

// sorts are the sequential sorts, by package and name, and the pslices
// function each becomes ("" for no fix).
var sorts = map[string]string{
	"slices.Sort":           "Sort",
	"slices.SortFunc":       "SortFunc",
	"slices.SortStableFunc": "SortStableFunc",
	"sort.Ints":             "Sort",
	"sort.Strings":          "Sort",
	"sort.Float64s":         "Sort",
	"sort.Slice":            "",
	"sort.SliceStable":      "",
}

func run(pass *analysis.Pass) (any, error) {
	for _, f := range pass.Files {
		if ast.IsGenerated(f) {
			continue
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				checkFunc(pass, f, fd.Body)
			}
		}
	}
	return nil, nil
}

// parCall is a parallel call of a function: the call, its bodies, and the
// variables tied to it.
type parCall struct {
	name   string // "par.For"
	bodies []*ast.FuncLit
	tied   map[*types.Var]bool
}

func checkFunc(pass *analysis.Pass, file *ast.File, body *ast.BlockStmt) {
	info := pass.TypesInfo
	var calls []*parCall
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		fn, _ := typeutil.Callee(info, call).(*types.Func)
		if fn == nil {
			return true
		}
		v := verbs.Lookup(fn.Origin())
		if v == nil || (v.Pkg != verbs.Par && v.Pkg != verbs.Iter) {
			return true
		}
		pc := &parCall{name: verbs.Display(fn.Origin()), tied: map[*types.Var]bool{}}
		for _, a := range call.Args {
			if lit, ok := ast.Unparen(a).(*ast.FuncLit); ok {
				pc.bodies = append(pc.bodies, lit)
				for _, w := range written(info, lit) {
					pc.tied[w] = true
				}
				continue
			}
			if w := rootVar(info, a); w != nil {
				pc.tied[w] = true
			}
			if c, ok := ast.Unparen(a).(*ast.CallExpr); ok && len(c.Args) == 1 && stmts.IsBuiltin(info, c.Fun, "len") {
				if w := rootVar(info, c.Args[0]); w != nil {
					pc.tied[w] = true // par.For(len(xs), ...)
				}
			}
		}
		calls = append(calls, pc)
		return true
	})
	// Results of par.Map, par.MapErr and Collect: out := par.Map(...).
	ast.Inspect(body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Rhs) != 1 {
			return true
		}
		call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
		if !ok {
			return true
		}
		fn, _ := typeutil.Callee(info, call).(*types.Func)
		if fn == nil || fn.Pkg() == nil {
			return true
		}
		key := fn.Pkg().Path() + "." + verbs.Name(fn.Origin())
		if key != verbs.Par+".Map" && key != verbs.Par+".MapErr" && key != verbs.Iter+".Pipe.Collect" {
			return true
		}
		if w := rootVar(info, as.Lhs[0]); w != nil {
			calls = append(calls, &parCall{name: verbs.Display(fn.Origin()), tied: map[*types.Var]bool{w: true}})
		}
		return true
	})
	if len(calls) == 0 {
		return
	}
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		fn, _ := typeutil.Callee(info, call).(*types.Func)
		if fn == nil || fn.Pkg() == nil {
			return true
		}
		key := fn.Pkg().Path() + "." + fn.Name()
		to, isSort := sorts[key]
		if !isSort {
			return true
		}
		x := rootVar(info, call.Args[0])
		if x == nil {
			return true
		}
		for _, pc := range calls {
			if inside(call, pc.bodies) {
				return true // a sort per item, already parallel
			}
		}
		for _, pc := range calls {
			if !pc.tied[x] {
				continue
			}
			report(pass, file, call, key, to, x.Name(), pc.name)
			return true
		}
		return true
	})
}

// report reports the sort call and offers its rewrite.
func report(pass *analysis.Pass, file *ast.File, call *ast.CallExpr, key, to, x, verb string) {
	short := key[strings.LastIndex(key, "/")+1:]
	msg := fmt.Sprintf("%s sorts %s on one goroutine after %s, which made it in parallel: pslices.%s sorts it in parallel on the pool (short slices as slices does)", short, x, verb, to)
	if to == "" {
		msg = fmt.Sprintf("%s sorts %s on one goroutine after %s, which made it in parallel: pslices.SortFunc (or SortStableFunc), with a cmp function in place of less, sorts it in parallel on the pool", short, x, verb)
	}
	d := analysis.Diagnostic{Pos: call.Pos(), End: call.End(), Category: "sort", Message: msg}
	if to != "" {
		if name, edit, ok := importName(pass, file, call); ok {
			edits := []analysis.TextEdit{{Pos: call.Fun.Pos(), End: call.Fun.End(), NewText: []byte(name + "." + to)}}
			if edit != nil {
				edits = append(edits, *edit)
			}
			d.SuggestedFixes = []analysis.SuggestedFix{{Message: "Sort with pslices." + to, TextEdits: edits}}
		}
	}
	pass.Report(d)
}

// importName is the name pslices has in file, and the edit that imports it
// if it is not imported yet; ok is false if the name pslices is taken.
func importName(pass *analysis.Pass, file *ast.File, at ast.Node) (string, *analysis.TextEdit, bool) {
	for _, imp := range file.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == pslicesPath {
			if imp.Name != nil {
				return imp.Name.Name, nil, imp.Name.Name != "_" && imp.Name.Name != "."
			}
			return "pslices", nil, true
		}
	}
	if sc := pass.Pkg.Scope().Innermost(at.Pos()); sc != nil {
		if _, obj := sc.LookupParent("pslices", at.Pos()); obj != nil {
			return "", nil, false
		}
	}
	var last *ast.GenDecl
	for _, d := range file.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			last = g
		}
	}
	quoted := strconv.Quote(pslicesPath)
	switch {
	case last == nil:
		return "pslices", &analysis.TextEdit{Pos: file.Name.End(), End: file.Name.End(), NewText: []byte("\n\nimport " + quoted)}, true
	case last.Lparen.IsValid():
		return "pslices", &analysis.TextEdit{Pos: last.Rparen, End: last.Rparen, NewText: []byte("\t" + quoted + "\n")}, true
	default:
		return "pslices", &analysis.TextEdit{Pos: last.End(), End: last.End(), NewText: []byte("\nimport " + quoted)}, true
	}
}

// rootVar is the variable an expression names: x, x[i:j], &x, p.x.
func rootVar(info *types.Info, e ast.Expr) *types.Var {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			v, _ := info.Uses[x].(*types.Var)
			if v == nil {
				v, _ = info.Defs[x].(*types.Var)
			}
			return v
		case *ast.SliceExpr:
			e = x.X
		case *ast.UnaryExpr:
			e = x.X
		case *ast.SelectorExpr:
			v, _ := info.Uses[x.Sel].(*types.Var)
			return v
		default:
			return nil
		}
	}
}

// written are the captured variables whose storage a body writes: x, x[i],
// x[i].f, *x, assigned or incremented.
func written(info *types.Info, lit *ast.FuncLit) []*types.Var {
	var out []*types.Var
	note := func(e ast.Expr) {
		for {
			switch x := ast.Unparen(e).(type) {
			case *ast.IndexExpr:
				e = x.X
				continue
			case *ast.SelectorExpr:
				if _, isVar := info.Uses[x.Sel].(*types.Var); isVar {
					if id, ok := ast.Unparen(x.X).(*ast.Ident); !ok || info.Uses[id] == nil || isPkg(info, id) {
						break
					}
					e = x.X
					continue
				}
			case *ast.StarExpr:
				e = x.X
				continue
			}
			break
		}
		if v := rootVar(info, e); v != nil && (v.Pos() < lit.Pos() || v.Pos() >= lit.End()) {
			out = append(out, v)
		}
	}
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				note(l)
			}
		case *ast.IncDecStmt:
			note(n.X)
		}
		return true
	})
	return out
}

func isPkg(info *types.Info, id *ast.Ident) bool {
	_, ok := info.Uses[id].(*types.PkgName)
	return ok
}

func inside(n ast.Node, lits []*ast.FuncLit) bool {
	for _, l := range lits {
		if l.Pos() <= n.Pos() && n.End() <= l.End() {
			return true
		}
	}
	return false
}
