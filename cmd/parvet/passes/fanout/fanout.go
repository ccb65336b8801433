// Package fanout reports fan-out loops, goroutines started once per item and
// waited for together, that parloop's verbs can replace, and offers a
// suggested fix that rewrites them.
//
// It recognises, per item of a range or counting loop:
//
//	wg.Add(1); go func() { defer wg.Done(); ... }()     (or wg.Add(len(xs)) before the loop)
//	wg.Go(func() { ... })                               (Go 1.25)
//	g.Go(func() error { ... }) ... g.Wait()             (golang.org/x/sync/errgroup, with or without WithContext and SetLimit)
//	sem <- struct{}{} ... <-sem                         (a channel semaphore limiting the goroutines)
//
// followed directly by the Wait. When the goroutines do not outlive the Wait
// and the body does not block (no channel operations or select, no calls
// known to block: net, os and file I/O, time.Sleep, sync.Cond.Wait, ...), the
// fix rewrites the loop into par.For(n, func(i int) {...}), or
// par.ForErr(ctx, n, func(ctx context.Context, i int) error {...}) for an
// errgroup, keeping the body's text and comments. When the body blocks, the
// diagnostic says so and the fix adds par.Blocking(k), parloop's form for
// blocking bodies, with k the old limit or the number of items. Loops that
// match only in part are reported with the reason no fix is offered.
//
// Fan-out whose tasks are spawned in a loop over a channel, a map or a
// function iterator, or from inside the tasks themselves, becomes
// par.Scope (a WaitGroup) or par.ScopeErr (an errgroup), with SetLimit
// turned into par.Blocking where the tasks block (scope.go).
//
// A function that blocks, by the same rules, is exported as a Blocks fact so
// that calls to it count as blocking in its importers.
package fanout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"strconv"

	"golang.org/x/tools/go/analysis"

	"github.com/parloop/parloop/cmd/parvet/internal/stmts"
)

// Analyzer is the fanout analyzer.
var Analyzer = &analysis.Analyzer{
	Name:      "fanout",
	Doc:       "report fan-out (WaitGroup, errgroup, semaphore channel) that par.For, par.ForErr, par.Blocking, par.Scope or par.ScopeErr can replace, with a suggested fix",
	URL:       "https://pkg.go.dev/github.com/parloop/parloop/cmd/parvet/passes/fanout",
	FactTypes: []analysis.Fact{new(Blocks)},
	Run:       run,
}

// Blocks marks a function that may block (I/O, sleeps, channel operations,
// waiting on other goroutines).
type Blocks struct {
	Why string // the first blocking operation found, e.g. "calls os.ReadFile"
}

// AFact implements analysis.Fact.
func (*Blocks) AFact() {}

func (b *Blocks) String() string { return "blocks: " + b.Why }

const (
	parPath      = "github.com/parloop/parloop/par"
	errgroupPath = "golang.org/x/sync/errgroup"
)

type pass struct {
	*analysis.Pass
	blocks map[*types.Func]string
	src    map[*token.File][]byte

	// claimed holds the loops and Waits of scope fan-outs (scope.go), which
	// the loop and recursion rules leave alone.
	claimed map[ast.Node]bool

	leak     string // leakChecker's answer
	leakDone bool

	// While blocksBesides runs: calls to selfFn and the calls in
	// skipCalls do not count as blocking.
	selfFn    *types.Func
	skipCalls []*ast.CallExpr
}

// leakCheckers are the packages whose use means that a package's tests
// check for leaked goroutines: goleak, and gRPC's leakcheck and grpctest
// (its Tester runs leakcheck after every test).
var leakCheckers = map[string]string{
	"go.uber.org/goleak":                        "goleak",
	"google.golang.org/grpc/internal/leakcheck": "gRPC's leakcheck",
	"google.golang.org/grpc/internal/grpctest":  "gRPC's grpctest (its Tester runs leakcheck)",
}

// leakChecker returns the name of a leak checker that the package uses, or
// "": one that it imports, directly or through its imports, or one that a
// _test.go file in its directory imports (the analysis of a package without
// its tests does not see them, and its tests would fail all the same).
func (ps *pass) leakChecker() string {
	if ps.leakDone {
		return ps.leak
	}
	ps.leakDone = true
	seen := map[*types.Package]bool{}
	var walk func(p *types.Package) string
	walk = func(p *types.Package) string {
		if seen[p] {
			return ""
		}
		seen[p] = true
		if n, ok := leakCheckers[p.Path()]; ok {
			return n
		}
		for _, imp := range p.Imports() {
			if n := walk(imp); n != "" {
				return n
			}
		}
		return ""
	}
	if ps.leak = walk(ps.Pkg); ps.leak != "" {
		return ps.leak
	}
	dirs := map[string]bool{}
	for _, f := range ps.Files {
		if tf := ps.Fset.File(f.Pos()); tf != nil {
			dirs[filepath.Dir(tf.Name())] = true
		}
	}
	for d := range dirs {
		tests, _ := filepath.Glob(filepath.Join(d, "*_test.go"))
		for _, t := range tests {
			af, err := parser.ParseFile(token.NewFileSet(), t, nil, parser.ImportsOnly)
			if err != nil {
				continue
			}
			for _, is := range af.Imports {
				path, _ := strconv.Unquote(is.Path.Value)
				if n, ok := leakCheckers[path]; ok {
					ps.leak = n
					return n
				}
			}
		}
	}
	return ""
}

func run(p *analysis.Pass) (any, error) {
	ps := &pass{Pass: p, blocks: map[*types.Func]string{}, src: map[*token.File][]byte{}, claimed: map[ast.Node]bool{}}
	ps.computeBlocks()
	for _, f := range p.Files {
		if ast.IsGenerated(f) {
			continue
		}
		file := f
		ast.Inspect(f, func(n ast.Node) bool {
			list, ok := stmts.List(n)
			if !ok {
				return true
			}
			ps.scopes(file, list)
			for i, s := range list {
				switch s.(type) {
				case *ast.ForStmt, *ast.RangeStmt:
					if !ps.claimed[s] {
						ps.loop(file, list, i)
					}
				}
			}
			ps.recursiveForks(file, list)
			return true
		})
	}
	return nil, nil
}
