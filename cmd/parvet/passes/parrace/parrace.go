// Package parrace reports writes in parallel bodies that can race: in
// function literals passed to parloop's verbs (par.For, par.ForRange,
// par.ForErr, par.Map, par.MapErr, par.Reduce, par.ReduceRange, par.Join,
// par.Invoke, par.Both, par.BothOf), to the user's functions that pass their
// argument on to one of them, and in goroutines started once per loop
// iteration (go statements, sync.WaitGroup.Go and errgroup.Group.Go in a
// loop, with a literal or a function value declared before the loop),
// parallel subtests started per loop iteration (t.Run with a literal that
// calls t.Parallel(); the statements after that call), and bodies passed
// to testing.B.RunParallel. Below
// Go 1.22 a loop's header variables are shared by its iterations, so an
// index taken from them in such a goroutine is not per iteration.
//
// A write races when it assigns (=, op=, ++, --) a captured variable, appends
// to a captured slice, writes or deletes in a captured map, writes through
// a captured pointer, an element or a field of captured storage, or calls a
// method that changes a standard value not safe for concurrent use
// (bytes.Buffer, strings.Builder, rand.Rand, ...) on one, and the
// written location does not depend on the body's own index (out[i] with i
// the index parameter of par.For's body, or out[j] with lo <= j < hi in a
// range body, is fine) and no sync.Mutex or sync.RWMutex is held around it in
// the body. Each diagnostic says what to use instead: par.Reduce or
// par.ReduceRange, par.Map, per-index writes, worker-local state combined
// after the loop, or a mutex.
//
// A function whose parameter it runs concurrently (it passes the parameter
// to a verb, or calls it inside a verb's body) is exported as a
// RunsConcurrently fact, so that its callers' literals are checked too.
package parrace

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"go/version"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/parloop/parloop/cmd/parvet/internal/verbs"
)

// Analyzer is the parrace analyzer.
var Analyzer = &analysis.Analyzer{
	Name:      "parrace",
	Doc:       "report writes in parallel bodies (parloop verbs, their wrappers, goroutines started per loop iteration) that can race",
	URL:       "https://pkg.go.dev/github.com/parloop/parloop/cmd/parvet/passes/parrace",
	Requires:  []*analysis.Analyzer{inspect.Analyzer},
	FactTypes: []analysis.Fact{new(RunsConcurrently)},
	Run:       run,
}

// RunsConcurrently marks a function that runs some of its function
// arguments concurrently, like the verb it ends in.
type RunsConcurrently struct {
	Args []verbs.FuncArg
	Via  string // the verb that runs them, e.g. "par.For"
}

// AFact implements analysis.Fact.
func (*RunsConcurrently) AFact() {}

func (f *RunsConcurrently) String() string {
	var s []string
	for _, a := range f.Args {
		s = append(s, fmt.Sprint(a.Arg))
	}
	return "runs argument " + strings.Join(s, ",") + " concurrently via " + f.Via
}

type spec struct {
	args []verbs.FuncArg
	name string // what runs it, for messages: "par.For" or "runAll (which runs it concurrently via par.For)"
	body string // how messages name the body: "par.For body" or "body passed to runAll (...)"
	via  string // the verb
}

type checker struct {
	pass    *analysis.Pass
	local   map[*types.Func]*RunsConcurrently
	funcVar map[*types.Var]*ast.FuncLit // v := func(...) {...}
	handled map[*ast.FuncLit]bool       // literals checked as bodies of their own
	checks  []func()
	// chanMulti: channels made with room for several values (see multiSlot).
	chanMulti map[*types.Var]bool
	// diagnosed: positions already reported (a literal started from two
	// loops is checked twice).
	diagnosed map[token.Pos]bool
}

func run(pass *analysis.Pass) (any, error) {
	ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	c := &checker{
		pass:      pass,
		local:     make(map[*types.Func]*RunsConcurrently),
		funcVar:   make(map[*types.Var]*ast.FuncLit),
		handled:   make(map[*ast.FuncLit]bool),
		diagnosed: make(map[token.Pos]bool),
	}

	// Local function values: f := func(i int) {...}; par.For(n, f).
	ins.Preorder([]ast.Node{(*ast.AssignStmt)(nil), (*ast.ValueSpec)(nil)}, func(n ast.Node) {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE && len(n.Lhs) == len(n.Rhs) {
				for i, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						if lit, ok := ast.Unparen(n.Rhs[i]).(*ast.FuncLit); ok {
							if v, ok := pass.TypesInfo.Defs[id].(*types.Var); ok {
								c.funcVar[v] = lit
							}
						}
					}
				}
			}
		case *ast.ValueSpec:
			if len(n.Names) == len(n.Values) {
				for i, id := range n.Names {
					if lit, ok := ast.Unparen(n.Values[i]).(*ast.FuncLit); ok {
						if v, ok := pass.TypesInfo.Defs[id].(*types.Var); ok {
							c.funcVar[v] = lit
						}
					}
				}
			}
		}
	})

	c.findWrappers(ins)

	// Verb and wrapper calls.
	ins.Preorder([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node) {
		call := n.(*ast.CallExpr)
		sp := c.specOf(call)
		if sp == nil {
			return
		}
		c.checkCall(call, sp)
	})

	// Goroutines started per loop iteration, and parallel subtests
	// (t.Run(name, func(t *testing.T) { t.Parallel(); ... }) in a loop).
	ins.WithStack([]ast.Node{(*ast.GoStmt)(nil), (*ast.CallExpr)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		if !push {
			return true
		}
		var lit *ast.FuncLit
		what := "goroutine started per loop iteration"
		var after token.Pos // writes before it run one subtest at a time
		switch n := n.(type) {
		case *ast.GoStmt:
			lit = c.funcLitOf(n.Call.Fun)
		case *ast.CallExpr:
			if isGroupGo(pass.TypesInfo, n) && len(n.Args) == 1 {
				lit = c.funcLitOf(n.Args[0])
			} else if isTestingRun(pass.TypesInfo, n) && len(n.Args) == 2 {
				if l, ok := ast.Unparen(n.Args[1]).(*ast.FuncLit); ok {
					if p := parallelCall(pass.TypesInfo, l); p.IsValid() {
						lit, after, what = l, p, "parallel subtest started per loop iteration"
					}
				}
			}
		}
		if lit == nil {
			return true
		}
		loop := enclosingLoop(stack)
		if loop == nil || (!after.IsValid() && joinedEachIteration(pass.TypesInfo, loop, n)) {
			return true
		}
		if startedOnce(pass.TypesInfo, loop, stack) {
			return true
		}
		c.handled[lit] = true
		if lit.Pos() < loop.Pos() || lit.End() > loop.End() {
			// A literal declared before the loop (worker := func(...) {...};
			// for ... { go worker(x) }): its own variables and parameters are
			// per goroutine, everything else it uses is shared.
			b := c.newBody(lit, lit, what, "")
			for _, fld := range lit.Type.Params.List {
				for _, id := range fld.Names {
					if v, ok := pass.TypesInfo.Defs[id].(*types.Var); ok {
						b.dep[v] = true
						b.inputs[v] = true
					}
				}
			}
			c.checks = append(c.checks, func() { b.checkLoop() })
			return true
		}
		b := c.newBody(lit, loop, what, "")
		b.after = after
		// Every variable declared in the loop is per iteration, and so are
		// the literal's parameters; below Go 1.22 the variables declared by
		// the loop's header are one variable shared by all iterations.
		shared := map[*ast.Ident]bool{}
		if fv := pass.TypesInfo.FileVersions[fileOf(pass, loop)]; fv != "" && version.Compare(fv, "go1.22") < 0 {
			var header []ast.Node
			switch l := loop.(type) {
			case *ast.ForStmt:
				header = []ast.Node{l.Init}
			case *ast.RangeStmt:
				if l.Tok == token.DEFINE {
					header = []ast.Node{l.Key, l.Value}
				}
			}
			for _, h := range header {
				if h == nil {
					continue
				}
				ast.Inspect(h, func(m ast.Node) bool {
					if id, ok := m.(*ast.Ident); ok {
						if v, ok := pass.TypesInfo.Defs[id].(*types.Var); ok {
							shared[id] = true
							b.shared = append(b.shared, v)
						}
					}
					return true
				})
			}
		}
		ast.Inspect(loop, func(m ast.Node) bool {
			if id, ok := m.(*ast.Ident); ok && !shared[id] {
				if v, ok := pass.TypesInfo.Defs[id].(*types.Var); ok {
					b.dep[v] = true
				}
			}
			return true
		})
		// The iteration's own inputs: the literal's parameters and the
		// per-iteration variables of the loop's header.
		var inputs []ast.Node
		for _, fld := range lit.Type.Params.List {
			for _, id := range fld.Names {
				inputs = append(inputs, id)
			}
		}
		switch l := loop.(type) {
		case *ast.ForStmt:
			if l.Init != nil {
				inputs = append(inputs, l.Init)
			}
		case *ast.RangeStmt:
			if l.Tok == token.DEFINE {
				if l.Key != nil {
					inputs = append(inputs, l.Key)
				}
				if l.Value != nil {
					inputs = append(inputs, l.Value)
				}
			}
		}
		for _, in := range inputs {
			ast.Inspect(in, func(m ast.Node) bool {
				if id, ok := m.(*ast.Ident); ok && !shared[id] {
					if v, ok := pass.TypesInfo.Defs[id].(*types.Var); ok {
						b.inputs[v] = true
					}
				}
				return true
			})
		}
		c.checks = append(c.checks, func() { b.checkLoop() })
		return true
	})

	for _, f := range c.checks {
		f()
	}
	return nil, nil
}

// isGroupGo reports whether call is wg.Go(f) on a sync.WaitGroup or g.Go(f)
// on an errgroup.Group.
func isGroupGo(info *types.Info, call *ast.CallExpr) bool {
	fn := typeutil.Callee(info, call)
	f, ok := fn.(*types.Func)
	if !ok || f.Name() != "Go" || f.Pkg() == nil {
		return false
	}
	n := verbs.Name(f)
	return (f.Pkg().Path() == "sync" && n == "WaitGroup.Go") ||
		(f.Pkg().Path() == "golang.org/x/sync/errgroup" && n == "Group.Go")
}

// isTestingRun reports whether call is (*testing.T).Run.
func isTestingRun(info *types.Info, call *ast.CallExpr) bool {
	f, ok := typeutil.Callee(info, call).(*types.Func)
	return ok && f.Pkg() != nil && f.Pkg().Path() == "testing" && verbs.Name(f) == "T.Run"
}

// parallelCall returns the position of the t.Parallel() call among the
// top-level statements of a subtest's literal (t its first parameter), or
// token.NoPos.
func parallelCall(info *types.Info, lit *ast.FuncLit) token.Pos {
	for _, st := range lit.Body.List {
		es, ok := st.(*ast.ExprStmt)
		if !ok {
			continue
		}
		call, ok := ast.Unparen(es.X).(*ast.CallExpr)
		if !ok {
			continue
		}
		if f, ok := typeutil.Callee(info, call).(*types.Func); ok && f.Pkg() != nil && f.Pkg().Path() == "testing" && verbs.Name(f) == "T.Parallel" {
			return call.Pos()
		}
	}
	return token.NoPos
}

// fileOf returns the file of pass that holds n.
func fileOf(pass *analysis.Pass, n ast.Node) *ast.File {
	for _, f := range pass.Files {
		if f.FileStart <= n.Pos() && n.Pos() < f.FileEnd {
			return f
		}
	}
	return nil
}
