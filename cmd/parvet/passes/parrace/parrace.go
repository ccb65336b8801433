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
	"go/constant"
	"go/token"
	"go/types"
	"go/version"
	"sort"
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

// specOf returns how call runs its function arguments, or nil.
func (c *checker) specOf(call *ast.CallExpr) *spec {
	fn, _ := typeutil.Callee(c.pass.TypesInfo, call).(*types.Func)
	if fn == nil {
		return nil
	}
	fn = fn.Origin()
	if v := verbs.Lookup(fn); v != nil {
		d := verbs.Display(fn)
		return &spec{args: v.Args, name: d, body: d + " body", via: d}
	}
	f := c.local[fn]
	if f == nil {
		var imp RunsConcurrently
		if fn.Pkg() != c.pass.Pkg && c.pass.ImportObjectFact(fn, &imp) {
			f = &imp
		}
	}
	if f == nil {
		return nil
	}
	name := fn.Name()
	if fn.Pkg() != c.pass.Pkg {
		name = verbs.Display(fn)
	}
	name += " (which runs it concurrently via " + f.Via + ")"
	return &spec{args: f.Args, name: name, body: "body passed to " + name, via: f.Via}
}

// findWrappers computes, to a fixed point, the package's functions that run
// a parameter concurrently, and exports them as facts.
func (c *checker) findWrappers(ins *inspector.Inspector) {
	var decls []*ast.FuncDecl
	ins.Preorder([]ast.Node{(*ast.FuncDecl)(nil)}, func(n ast.Node) {
		if d := n.(*ast.FuncDecl); d.Body != nil {
			decls = append(decls, d)
		}
	})
	info := c.pass.TypesInfo
	for round := 0; round < 8; round++ {
		changed := false
		for _, d := range decls {
			fn, _ := info.Defs[d.Name].(*types.Func)
			if fn == nil || c.local[fn] != nil {
				continue
			}
			params := map[*types.Var]int{}
			k := 0
			for _, fld := range d.Type.Params.List {
				names := fld.Names
				if len(names) == 0 {
					k++
					continue
				}
				for _, id := range names {
					if v, ok := info.Defs[id].(*types.Var); ok {
						if _, isFunc := v.Type().Underlying().(*types.Signature); isFunc {
							params[v] = k
						} else if s, ok := v.Type().Underlying().(*types.Slice); ok {
							if _, ok := s.Elem().Underlying().(*types.Signature); ok {
								params[v] = k
							}
						}
					}
					k++
				}
			}
			if len(params) == 0 {
				continue
			}
			if sig := fn.Type().(*types.Signature); sig.Variadic() {
				delete(params, sig.Params().At(sig.Params().Len()-1))
			}
			var fact RunsConcurrently
			seen := map[int]bool{}
			ast.Inspect(d.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sp := c.specOf(call)
				if sp == nil {
					return true
				}
				for _, fa := range sp.args {
					if fa.Arg >= len(call.Args) {
						continue
					}
					a := ast.Unparen(call.Args[fa.Arg])
					if id, ok := a.(*ast.Ident); ok {
						if v, ok := info.Uses[id].(*types.Var); ok {
							if k, ok := params[v]; ok && !seen[k] {
								seen[k] = true
								nfa := fa
								nfa.Arg = k
								fact.Args = append(fact.Args, nfa)
								fact.Via = sp.via
							}
						}
						continue
					}
					lit, ok := a.(*ast.FuncLit)
					if !ok || fa.Kind != verbs.Loop || fa.Elems {
						continue
					}
					idx := indexVars(info, lit, fa)
					ast.Inspect(lit.Body, func(m ast.Node) bool {
						inner, ok := m.(*ast.CallExpr)
						if !ok {
							return true
						}
						id, ok := ast.Unparen(inner.Fun).(*ast.Ident)
						if !ok {
							return true
						}
						v, ok := info.Uses[id].(*types.Var)
						if !ok {
							return true
						}
						k, ok := params[v]
						if !ok || seen[k] {
							return true
						}
						if _, isFunc := v.Type().Underlying().(*types.Signature); !isFunc {
							return true
						}
						seen[k] = true
						nfa := verbs.FuncArg{Arg: k, Kind: verbs.Loop}
						for _, want := range idx {
							for j, arg := range inner.Args {
								if aid, ok := ast.Unparen(arg).(*ast.Ident); ok && info.Uses[aid] == want {
									nfa.Index = append(nfa.Index, j)
								}
							}
						}
						if fa.Range && len(nfa.Index) != 2 {
							nfa.Index = nil
						}
						nfa.Range = fa.Range && len(nfa.Index) == 2
						fact.Args = append(fact.Args, nfa)
						fact.Via = sp.via
						return true
					})
				}
				return true
			})
			if len(fact.Args) > 0 {
				sort.Slice(fact.Args, func(i, j int) bool { return fact.Args[i].Arg < fact.Args[j].Arg })
				f := fact
				c.local[fn] = &f
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	for fn, f := range c.local {
		c.pass.ExportObjectFact(fn, f)
	}
}

// indexVars returns the index parameters of lit as fa describes them.
func indexVars(info *types.Info, lit *ast.FuncLit, fa verbs.FuncArg) []*types.Var {
	var params []*types.Var
	for _, fld := range lit.Type.Params.List {
		if len(fld.Names) == 0 {
			params = append(params, nil)
		}
		for _, id := range fld.Names {
			v, _ := info.Defs[id].(*types.Var)
			params = append(params, v)
		}
	}
	var out []*types.Var
	for _, i := range fa.Index {
		if i < len(params) && params[i] != nil {
			out = append(out, params[i])
		}
	}
	return out
}

// funcLitOf resolves a function argument to its literal.
func (c *checker) funcLitOf(e ast.Expr) *ast.FuncLit {
	switch e := ast.Unparen(e).(type) {
	case *ast.FuncLit:
		return e
	case *ast.Ident:
		if v, ok := c.pass.TypesInfo.Uses[e].(*types.Var); ok {
			return c.funcVar[v]
		}
	}
	return nil
}

func (c *checker) checkCall(call *ast.CallExpr, sp *spec) {
	var once []*ast.FuncLit
	onceOpaque := false
	for _, fa := range sp.args {
		if fa.Arg >= len(call.Args) {
			continue
		}
		arg := call.Args[fa.Arg]
		if fa.Elems {
			cl, ok := ast.Unparen(arg).(*ast.CompositeLit)
			if !ok {
				onceOpaque = true
				continue
			}
			for _, el := range cl.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					el = kv.Value
				}
				if lit := c.funcLitOf(el); lit != nil {
					once = append(once, lit)
				} else {
					onceOpaque = true
				}
			}
			continue
		}
		lit := c.funcLitOf(arg)
		if lit == nil {
			if fa.Kind == verbs.Once {
				onceOpaque = true
			}
			continue
		}
		if fa.Kind == verbs.Once {
			once = append(once, lit)
			continue
		}
		c.handled[lit] = true
		b := c.newBody(lit, lit, sp.body, sp.via)
		for _, v := range indexVars(c.pass.TypesInfo, lit, fa) {
			b.dep[v] = true
			b.inputs[v] = true
			b.index = append(b.index, v.Name())
		}
		b.rangeBody = fa.Range
		c.checks = append(c.checks, func() { b.checkLoop() })
	}
	_ = onceOpaque // opaque siblings cannot be inspected; only literal pairs are checked
	if len(once) > 1 {
		for _, lit := range once {
			c.handled[lit] = true
		}
		for i, lit := range once {
			var others []*ast.FuncLit
			for j, o := range once {
				if j != i {
					others = append(others, o)
				}
			}
			b := c.newBody(lit, lit, "function passed to "+sp.name, sp.via)
			b.siblings = others
			c.checks = append(c.checks, func() { b.checkLoop() })
		}
	}
}

type shape int

const (
	shVar shape = iota
	shElem
	shMap
	shField
	shPtr
	shMethod // a method call that changes a value not safe for concurrent use
)

type lockEvent struct {
	pos   token.Pos
	lock  bool
	scope *ast.FuncLit // the deferred literal it is in, or nil
}

type body struct {
	c         *checker
	lit       *ast.FuncLit
	region    ast.Node // variables declared inside are per body (the literal, or the loop for goroutines)
	what      string   // "par.For body"
	via       string   // the verb, "" for goroutines
	dep       map[*types.Var]bool
	index     []string
	rangeBody bool
	siblings  []*ast.FuncLit // Once: the functions running at the same time
	locks     []lockEvent
	acquires  []token.Pos  // receives, selects, atomic loads: writes after them may be ordered
	releases  []token.Pos  // atomic stores: writes before them may be published
	after     token.Pos    // parallel subtests: writes before t.Parallel() are not concurrent
	shared    []*types.Var // those variables
	reported  map[*types.Var]bool
	// inputs are the iteration's own inputs: the index parameters of a
	// verb's body; a goroutine literal's parameters and the per-iteration
	// variables of its loop's header.
	inputs map[*types.Var]bool
	// granted are the blocks that run only when a try-acquire on shared
	// state succeeded (if ok := x.TryLock(); ok {...}, if _, ok :=
	// limiter.attempt(); ok {...}): one body at a time gets through.
	granted []*ast.BlockStmt
	// selects are the blocks guarded by a predicate of the iteration's own
	// inputs alone (if item.primary {...}, if i == 0 {...}).
	selects []*ast.BlockStmt
	// deferLits are the body's deferred literals (defer func() {...}()).
	deferLits []*ast.FuncLit
}

func (c *checker) newBody(lit *ast.FuncLit, region ast.Node, what, via string) *body {
	return &body{c: c, lit: lit, region: region, what: what, via: via, dep: map[*types.Var]bool{}, reported: map[*types.Var]bool{}, inputs: map[*types.Var]bool{}}
}

func (b *body) info() *types.Info { return b.c.pass.TypesInfo }

// captured reports whether v is declared outside the body's region.
func (b *body) captured(v *types.Var) bool {
	if v == nil || v.IsField() || v.Name() == "_" {
		return false
	}
	return v.Pos() < b.region.Pos() || v.Pos() >= b.region.End() || !v.Pos().IsValid()
}

func (b *body) mentionsDep(e ast.Node) bool {
	if e == nil {
		return false
	}
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if v, ok := b.info().Uses[id].(*types.Var); ok && b.dep[v] {
				found = true
			}
		}
		return !found
	})
	return found
}

// propagate marks the body's locals computed from the index as dependent.
func (b *body) propagate() {
	info := b.info()
	for round := 0; round < 4; round++ {
		changed := false
		mark := func(id ast.Expr) {
			if id, ok := id.(*ast.Ident); ok {
				v, _ := info.ObjectOf(id).(*types.Var)
				if v != nil && !b.captured(v) && !b.dep[v] {
					b.dep[v] = true
					changed = true
				}
			}
		}
		ast.Inspect(b.lit.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				any := false
				for _, r := range n.Rhs {
					if b.mentionsDep(r) || b.fetchAdd(r) {
						any = true
					}
				}
				if any {
					for _, l := range n.Lhs {
						mark(l)
					}
				}
			case *ast.ValueSpec:
				any := false
				for _, r := range n.Values {
					if b.mentionsDep(r) || b.fetchAdd(r) {
						any = true
					}
				}
				if any {
					for _, l := range n.Names {
						mark(l)
					}
				}
			case *ast.RangeStmt:
				// The value of a range over index-dependent storage is; the
				// key counts from zero again, so it is not.
				if n.Value != nil && b.mentionsDep(n.X) {
					mark(n.Value)
				}
			}
			return true
		})
		if !changed {
			break
		}
	}
}

// fetchAdd reports whether e holds an atomic add (atomic.AddInt64(&n, 1),
// n.Add(1)) of a positive constant: each body that calls it gets a value no
// other gets, so what is computed from it (a worker id) is the body's own.
func (b *body) fetchAdd(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		fn, ok := typeutil.Callee(b.info(), call).(*types.Func)
		if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "sync/atomic" || !strings.HasPrefix(fn.Name(), "Add") || len(call.Args) == 0 {
			return true
		}
		delta := call.Args[len(call.Args)-1]
		if tv, ok := b.info().Types[delta]; ok && tv.Value != nil && constant.Sign(tv.Value) > 0 {
			found = true
		}
		return !found
	})
	return found
}

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
		var list []ast.Stmt
		switch n := n.(type) {
		case *ast.BlockStmt:
			list = n.List
		case *ast.CaseClause:
			list = n.Body
		case *ast.CommClause:
			list = n.Body
		default:
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
