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
// A function that blocks, by the same rules, is exported as a Blocks fact so
// that calls to it count as blocking in its importers.
package fanout

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"go/version"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/typeutil"
)

// Analyzer is the fanout analyzer.
var Analyzer = &analysis.Analyzer{
	Name:      "fanout",
	Doc:       "report fan-out loops (WaitGroup, errgroup, semaphore channel) that par.For, par.ForErr or par.Blocking can replace, with a suggested fix",
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

	leak     string // leakChecker's answer
	leakDone bool
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
	ps := &pass{Pass: p, blocks: map[*types.Func]string{}, src: map[*token.File][]byte{}}
	ps.computeBlocks()
	for _, f := range p.Files {
		if ast.IsGenerated(f) {
			continue
		}
		file := f
		ast.Inspect(f, func(n ast.Node) bool {
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
			for i, s := range list {
				switch s.(type) {
				case *ast.ForStmt, *ast.RangeStmt:
					ps.loop(file, list, i)
				}
			}
			return true
		})
	}
	return nil, nil
}

// ---- blocking ----

// blockingPkgs are packages any of whose functions and methods is taken to
// block, except for the few listed in nonBlocking.
var blockingPkgs = map[string]bool{
	"net": true, "net/http": true, "net/rpc": true, "net/smtp": true, "net/textproto": true,
	"os": true, "os/exec": true, "os/signal": true, "io/ioutil": true, "syscall": true,
	"database/sql": true, "crypto/tls": true, "bufio": true, "path/filepath": true,
}

var nonBlocking = map[string]bool{
	"os.Getenv": true, "os.LookupEnv": true, "os.Getpid": true, "os.IsNotExist": true, "os.IsExist": true,
	"os.IsPermission": true, "os.Getuid": true, "os.Getgid": true, "os.Expand": true, "os.ExpandEnv": true,
	"os.Environ": true, "os.Hostname": false, "os.NewSyscallError": true, "os.IsTimeout": true,
	"filepath.Join": true, "filepath.Base": true, "filepath.Dir": true, "filepath.Ext": true,
	"filepath.Clean": true, "filepath.Rel": true, "filepath.Split": true, "filepath.ToSlash": true,
	"filepath.FromSlash": true, "filepath.IsAbs": true, "filepath.Match": true, "filepath.SplitList": true,
	"filepath.VolumeName": true, "filepath.HasPrefix": true, "filepath.IsLocal": true, "filepath.Localize": true,
	"net.ParseIP": true, "net.ParseCIDR": true, "net.JoinHostPort": true, "net.SplitHostPort": true,
	"net.IPv4": true, "net.IPv4Mask": true, "net.CIDRMask": true, "http.NewRequest": true,
	"http.StatusText": true, "http.CanonicalHeaderKey": true, "http.NewRequestWithContext": true,
	"bufio.NewReader": true, "bufio.NewWriter": true, "bufio.NewScanner": true, "bufio.NewReaderSize": true,
	"bufio.NewWriterSize": true, "bufio.NewReadWriter": true, "bufio.ScanLines": true, "bufio.ScanWords": true,
}

var blockingFuncs = map[string]bool{
	"time.Sleep": true, "time.After": true, "time.Tick": true,
	"sync.Cond.Wait": true, "sync.WaitGroup.Wait": true,
	"io.Copy": true, "io.CopyN": true, "io.CopyBuffer": true, "io.ReadAll": true, "io.ReadFull": true,
	"io.ReadAtLeast": true, "io.WriteString": true,
	"fmt.Print": true, "fmt.Printf": true, "fmt.Println": true, "fmt.Fprint": true, "fmt.Fprintf": true,
	"fmt.Fprintln": true, "fmt.Scan": true, "fmt.Scanf": true, "fmt.Scanln": true, "fmt.Fscan": true,
	"fmt.Fscanf": true, "fmt.Fscanln": true,
	"log.Print": true, "log.Printf": true, "log.Println": true, "log.Fatal": true, "log.Fatalf": true,
	"log.Fatalln": true, "log.Panic": true, "log.Panicf": true, "log.Panicln": true,
	"runtime.Goexit": true, "testing.T.FailNow": true, "testing.T.Fatal": true, "testing.T.Fatalf": true,
	"testing.B.FailNow": true, "testing.B.Fatal": true, "testing.B.Fatalf": true,
	"testing.common.FailNow": true, "testing.common.Fatal": true, "testing.common.Fatalf": true,
	"testing.common.SkipNow": true, "testing.common.Skip": true, "testing.common.Skipf": true,
	"testing.T.Run": true, "testing.T.Parallel": true,
}

// ioMethods are interface methods taken to block when called through an
// interface.
var ioMethods = map[string]bool{
	"Read": true, "Write": true, "ReadAt": true, "WriteAt": true, "ReadFrom": true, "WriteTo": true,
	"Close": true, "Flush": true, "Sync": true, "Accept": true, "Dial": true, "DialContext": true,
	"Do": true, "RoundTrip": true, "Recv": true, "Send": true, "SendMsg": true, "RecvMsg": true,
	"Exec": true, "ExecContext": true, "Query": true, "QueryContext": true, "QueryRow": true,
	"QueryRowContext": true, "Ping": true, "Wait": true, "Lock": false,
}

func funcKey(fn *types.Func) string {
	name := fn.Name()
	if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil {
		t := sig.Recv().Type()
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		if n, ok := types.Unalias(t).(*types.Named); ok {
			name = n.Obj().Name() + "." + name
		}
	}
	if fn.Pkg() == nil {
		return name
	}
	return fn.Pkg().Path() + "." + name
}

func shortKey(fn *types.Func) string {
	k := funcKey(fn)
	if fn.Pkg() != nil {
		k = fn.Pkg().Name() + strings.TrimPrefix(k, fn.Pkg().Path())
	}
	return k
}

// callBlocks says why a call blocks, or "".
func (ps *pass) callBlocks(call *ast.CallExpr) string {
	info := ps.TypesInfo
	fn, _ := typeutil.Callee(info, call).(*types.Func)
	if fn == nil {
		return ""
	}
	fn = fn.Origin()
	key := funcKey(fn)
	short := shortKey(fn)
	if blockingFuncs[key] {
		return "calls " + short
	}
	if fn.Pkg() != nil && blockingPkgs[fn.Pkg().Path()] && !nonBlocking[short] {
		return "calls " + short
	}
	if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil && types.IsInterface(sig.Recv().Type()) && ioMethods[fn.Name()] {
		return "calls " + fn.Name() + " through an interface"
	}
	if fn.Pkg() != nil {
		switch fn.Pkg().Path() {
		case "context", errgroupPath, parPath, "golang.org/x/sync/semaphore":
			return ""
		}
	}
	for _, a := range call.Args {
		if t := info.TypeOf(a); t != nil && isContext(t) {
			return "passes a context to " + short
		}
	}
	if why, ok := ps.blocks[fn]; ok {
		return "calls " + short + ", which " + why
	}
	if fn.Pkg() != ps.Pkg {
		var b Blocks
		if ps.ImportObjectFact(fn, &b) {
			return "calls " + short + ", which " + b.Why
		}
	}
	return ""
}

func isContext(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "context" && n.Obj().Name() == "Context"
}

// nodeBlocks says why the code under n blocks, or "". Channel operations on
// the ignore objects (a semaphore being removed) do not count.
func (ps *pass) nodeBlocks(n ast.Node, ignore map[types.Object]bool) string {
	why := ""
	ast.Inspect(n, func(m ast.Node) bool {
		if why != "" {
			return false
		}
		switch m := m.(type) {
		case *ast.SendStmt:
			if !ignore[rootObj(ps.TypesInfo, m.Chan)] {
				why = "sends on a channel"
			}
		case *ast.UnaryExpr:
			if m.Op == token.ARROW && !ignore[rootObj(ps.TypesInfo, m.X)] {
				why = "receives from a channel"
			}
		case *ast.SelectStmt:
			why = "uses select"
		case *ast.RangeStmt:
			if t := ps.TypesInfo.TypeOf(m.X); t != nil {
				if _, ok := t.Underlying().(*types.Chan); ok {
					why = "ranges over a channel"
				}
			}
		case *ast.CallExpr:
			why = ps.callBlocks(m)
		}
		return why == ""
	})
	return why
}

func rootObj(info *types.Info, e ast.Expr) types.Object {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		return info.ObjectOf(e)
	case *ast.SelectorExpr:
		return info.ObjectOf(e.Sel)
	}
	return nil
}

// computeBlocks finds, to a fixed point, the package's functions that block,
// and exports them.
func (ps *pass) computeBlocks() {
	if noFacts(ps.Pkg.Path()) {
		return
	}
	var decls []*ast.FuncDecl
	for _, f := range ps.Files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				decls = append(decls, fd)
			}
		}
	}
	for round := 0; round < 6; round++ {
		changed := false
		for _, d := range decls {
			fn, _ := ps.TypesInfo.Defs[d.Name].(*types.Func)
			if fn == nil {
				continue
			}
			if _, ok := ps.blocks[fn]; ok {
				continue
			}
			if why := ps.nodeBlocks(d.Body, nil); why != "" {
				ps.blocks[fn] = rootWhy(why)
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	for fn, why := range ps.blocks {
		ps.ExportObjectFact(fn, &Blocks{Why: why})
	}
}

// rootWhy keeps the last link of a chain of reasons: the operation that
// blocks ("calls time.Sleep"), however deep the call chain.
func rootWhy(why string) string {
	if i := strings.LastIndex(why, ", which "); i >= 0 {
		return why[i+len(", which "):]
	}
	return why
}

// noFacts reports whether the package's functions are judged by the lists
// above alone: the runtime and the low-level standard packages block only
// internally (the garbage collector's channels, semaphores) and would
// otherwise make every allocation look blocking.
func noFacts(path string) bool {
	if strings.Contains(strings.Split(path, "/")[0], ".") {
		return false
	}
	for _, p := range []string{"runtime", "reflect", "internal", "sync", "unsafe", "math", "strconv", "unicode",
		"sort", "slices", "maps", "errors", "iter", "testing", "fmt", "strings", "bytes", "time", "cmp", "hash", "container"} {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return strings.Contains(path, "/internal/") || strings.HasPrefix(path, "internal/")
}

// ---- matching ----

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
			if !ok || len(mk.Args) != 2 || !isBuiltin(info, mk.Fun, "make") {
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

func isBuiltin(info *types.Info, fun ast.Expr, name string) bool {
	id, ok := ast.Unparen(fun).(*ast.Ident)
	if !ok {
		return false
	}
	b, ok := info.Uses[id].(*types.Builtin)
	return ok && b.Name() == name
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
			if isBuiltin(info, n.Fun, "len") || isBuiltin(info, n.Fun, "cap") {
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

func (ps *pass) findWait(fl *fanLoop) *ast.CallExpr {
	var cand ast.Expr
	switch s := fl.waitStmt.(type) {
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
	c, ok := ast.Unparen(cand).(*ast.CallExpr)
	if !ok {
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

// before is the span of the file up to n: uses of a reused context before
// errgroup.WithContext assigns it are the parent's.
type span0 struct{ end token.Pos }

func (s span0) Pos() token.Pos { return token.NoPos + 1 }
func (s span0) End() token.Pos { return s.end }

func before(n ast.Node) ast.Node { return span0{n.Pos()} }

func within(n ast.Node, pos token.Pos) bool {
	return n != nil && n.Pos() <= pos && pos < n.End()
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

// ---- rewriting ----

func (ps *pass) source(pos token.Pos) ([]byte, *token.File) {
	tf := ps.Fset.File(pos)
	if b, ok := ps.src[tf]; ok {
		return b, tf
	}
	b, err := ps.ReadFile(tf.Name())
	if err != nil || len(b) != tf.Size() {
		b = nil
	}
	ps.src[tf] = b
	return b, tf
}

func (ps *pass) text(n ast.Node) string {
	src, tf := ps.source(n.Pos())
	return string(src[tf.Offset(n.Pos()):tf.Offset(n.End())])
}

// lineSpan widens [pos, end) to whole lines when nothing else is on them
// (a trailing comment goes too).
func lineSpan(src []byte, tf *token.File, pos, end token.Pos) (token.Pos, token.Pos) {
	s, e := tf.Offset(pos), tf.Offset(end)
	ls := s
	for ls > 0 && (src[ls-1] == ' ' || src[ls-1] == '\t') {
		ls--
	}
	if ls > 0 && src[ls-1] != '\n' {
		return pos, end
	}
	le := e
	for le < len(src) && (src[le] == ' ' || src[le] == '\t') {
		le++
	}
	if le+1 < len(src) && src[le] == '/' && src[le+1] == '/' {
		for le < len(src) && src[le] != '\n' {
			le++
		}
	}
	if le < len(src) && src[le] == '\n' {
		return tf.Pos(ls), tf.Pos(le + 1)
	}
	if le == len(src) {
		return tf.Pos(ls), tf.Pos(le)
	}
	return pos, end
}

func indentOf(src []byte, tf *token.File, pos token.Pos) string {
	off := tf.Offset(pos)
	ls := off
	for ls > 0 && src[ls-1] != '\n' {
		ls--
	}
	i := ls
	for i < off && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	return string(src[ls:i])
}

type span struct{ s, e int }

func (ps *pass) rewrite(file *ast.File, fl *fanLoop, verb string) {
	info := ps.TypesInfo
	src, tf := ps.source(fl.loop.Pos())
	loop := fl.loop
	body := loopBody(loop)
	report := func(msg string) {
		ps.Report(analysis.Diagnostic{Pos: loop.Pos(), End: body.Lbrace, Category: "fanout", Message: msg})
	}
	if src == nil {
		report(fmt.Sprintf("fan-out loop: %s could replace the goroutines (source unavailable for a fix)", verb))
		return
	}

	// Blocking?
	ignore := map[types.Object]bool{}
	if fl.sem != nil {
		ignore[fl.sem] = true
	}
	blockWhy := ps.nodeBlocks(fl.lit.Body, ignore)

	// A package that checks for leaked goroutines would report the pool's
	// workers, which a plain par.For starts and which outlive the call
	// (par.Blocking runs its bodies on goroutines of their own, and ends them).
	if blockWhy == "" {
		if lc := ps.leakChecker(); lc != "" {
			report(fmt.Sprintf("fan-out loop: %s could replace the goroutines, but no fix is offered: the package checks for leaked goroutines with %s, which would report parloop's pool workers (they outlive the call); tell the checker to ignore them first", verb, lc))
			return
		}
	}

	// The count and the index.
	var n, idx, valueDef, rangeX string
	var valueVar, keyVar *types.Var
	taken := map[string]bool{}
	ast.Inspect(loop, func(m ast.Node) bool {
		if id, ok := m.(*ast.Ident); ok {
			taken[id.Name] = true
		}
		return true
	})
	if fl.ctxVar != nil {
		taken[fl.ctxVar.Name()] = true
	}
	fresh := func() string {
		for _, c := range []string{"i", "idx", "j", "k", "n"} {
			if !taken[c] {
				return c
			}
		}
		for k := 0; ; k++ {
			c := "i" + strconv.Itoa(k)
			if !taken[c] {
				return c
			}
		}
	}
	switch l := loop.(type) {
	case *ast.RangeStmt:
		if l.Tok == token.ASSIGN {
			report(fmt.Sprintf("fan-out loop: %s could replace the goroutines, but no fix is offered: the range statement assigns existing variables", verb))
			return
		}
		t := info.TypeOf(l.X)
		if t == nil {
			return
		}
		u := t.Underlying()
		if p, ok := u.(*types.Pointer); ok {
			u = p.Elem().Underlying()
		}
		if id, ok := l.Key.(*ast.Ident); ok && id.Name != "_" {
			keyVar, _ = info.Defs[id].(*types.Var)
			idx = id.Name
		}
		if id, ok := l.Value.(*ast.Ident); ok && id.Name != "_" {
			valueVar, _ = info.Defs[id].(*types.Var)
		}
		switch u := u.(type) {
		case *types.Basic:
			if u.Info()&types.IsInteger == 0 {
				report(fmt.Sprintf("fan-out loop: %s could replace the goroutines, but no fix is offered: it ranges over a string", verb))
				return
			}
			n = ps.text(l.X)
			if !isIntType(t) {
				n = "int(" + n + ")"
				if keyVar != nil {
					report(fmt.Sprintf("fan-out loop: %s could replace the goroutines, but no fix is offered: the index is not an int", verb))
					return
				}
			}
		case *types.Slice, *types.Array:
			if !pure(info, l.X) {
				report(fmt.Sprintf("fan-out loop: %s could replace the goroutines, but no fix is offered: the ranged expression has calls", verb))
				return
			}
			n = "len(" + ps.text(l.X) + ")"
		case *types.Map:
			report(fmt.Sprintf("fan-out loop: %s could replace the goroutines, but no fix is offered: it ranges over a map (collect the keys into a slice first)", verb))
			return
		default:
			report(fmt.Sprintf("fan-out loop: %s could replace the goroutines, but no fix is offered: it ranges over a %s", verb, kindName(u)))
			return
		}
		if idx == "" {
			idx = fresh()
		}
		rangeX = ps.text(l.X)
	case *ast.ForStmt:
		iv, count, why := ps.countingLoop(l)
		if why != "" {
			report(fmt.Sprintf("fan-out loop: %s could replace the goroutines, but no fix is offered: %s", verb, why))
			return
		}
		keyVar, idx, n = iv, iv.Name(), count
	}
	taken[idx] = true

	// Parameters of go func(...) {...}(args): a parameter passed the
	// variable of its own name needs nothing (the new body has that
	// variable); others become local variables, when the body uses them.
	defined := map[string]bool{idx: true}
	if valueVar != nil {
		defined[valueVar.Name()] = true
	}
	for _, s := range fl.loopKeep {
		for _, l := range s.(*ast.AssignStmt).Lhs {
			defined[l.(*ast.Ident).Name] = true
		}
	}
	var paramDefs []string
	var paramArgs []ast.Expr
	identityUsed := map[string]bool{}
	if fl.goCall != nil {
		params := paramVars(info, fl.lit)
		assigned := map[string]bool{}
		for k, p := range params {
			arg := fl.goCall.Args[k]
			var pv *types.Var
			if p != nil {
				pv, _ = info.Defs[p].(*types.Var)
			}
			if pv == nil || p.Name == "_" || !ps.mentions(fl.lit.Body, pv, nil) {
				if !pure(info, arg) {
					paramDefs = append(paramDefs, "_ = "+ps.text(arg))
					paramArgs = append(paramArgs, arg)
				}
				continue
			}
			if a, ok := ast.Unparen(arg).(*ast.Ident); ok && a.Name == p.Name && !ps.assignedIn(fl.lit.Body, pv) {
				identityUsed[p.Name] = true
				continue // go func(x T) {...}(x)
			}
			if defined[p.Name] || (fl.ctxVar != nil && p.Name == fl.ctxVar.Name()) {
				report(fmt.Sprintf("fan-out loop: %s could replace the goroutines, but no fix is offered: the goroutine's parameter %s shadows a loop variable", verb, p.Name))
				return
			}
			for name := range assigned {
				if ps.mentionsName(arg, name) {
					report(fmt.Sprintf("fan-out loop: %s could replace the goroutines, but no fix is offered: the goroutine's arguments refer to its parameters' names", verb))
					return
				}
			}
			assigned[p.Name] = true
			paramDefs = append(paramDefs, p.Name+" := "+ps.text(arg))
			paramArgs = append(paramArgs, arg)
		}
	}

	// Which of the loop's variables the new body needs: those the goroutine
	// uses, directly or through its parameters, and those the needed
	// definitions use. Unneeded ones are not declared (they would be unused).
	needed := func(v *types.Var) bool {
		if v == nil {
			return false
		}
		if ps.mentions(fl.lit.Body, v, nil) || identityUsed[v.Name()] {
			return true
		}
		for _, a := range paramArgs {
			if ps.mentions(a, v, nil) {
				return true
			}
		}
		return false
	}
	keepNeeded := make([]bool, len(fl.loopKeep))
	for round := 0; round < len(fl.loopKeep)+1; round++ {
		for k, s := range fl.loopKeep {
			if keepNeeded[k] {
				continue
			}
			for _, l := range s.(*ast.AssignStmt).Lhs {
				v, _ := info.Defs[l.(*ast.Ident)].(*types.Var)
				if needed(v) {
					keepNeeded[k] = true
				}
				for k2, s2 := range fl.loopKeep {
					if keepNeeded[k2] && k2 > k && ps.mentions(s2.(*ast.AssignStmt), v, nil) {
						keepNeeded[k] = true
					}
				}
			}
		}
	}
	var keepText []string
	for k, s := range fl.loopKeep {
		as := s.(*ast.AssignStmt)
		ident := true
		for j, l := range as.Lhs {
			r, ok := as.Rhs[j].(*ast.Ident)
			if !ok || r.Name != l.(*ast.Ident).Name {
				ident = false
			}
		}
		if keepNeeded[k] && !ident {
			keepText = append(keepText, ps.text(s))
		}
	}
	if valueVar != nil {
		need := needed(valueVar)
		for k, s := range fl.loopKeep {
			if keepNeeded[k] && ps.mentions(s, valueVar, nil) {
				need = true
			}
		}
		if need {
			valueDef = valueVar.Name() + " := " + rangeX + "[" + idx + "]"
		}
	}

	// The body's own top-level declarations must not clash with the names
	// the new body declares ahead of them (they shared no scope before).
	for _, st := range fl.lit.Body.List {
		var names []*ast.Ident
		switch st := st.(type) {
		case *ast.AssignStmt:
			if st.Tok == token.DEFINE {
				for _, l := range st.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						names = append(names, id)
					}
				}
			}
		case *ast.DeclStmt:
			if g, ok := st.Decl.(*ast.GenDecl); ok {
				for _, sp := range g.Specs {
					switch sp := sp.(type) {
					case *ast.ValueSpec:
						names = append(names, sp.Names...)
					case *ast.TypeSpec:
						names = append(names, sp.Name)
					}
				}
			}
		}
		for _, id := range names {
			clash := defined[id.Name]
			for _, pd := range paramDefs {
				if strings.HasPrefix(pd, id.Name+" := ") {
					clash = true
				}
			}
			if fl.ctxVar != nil && id.Name == fl.ctxVar.Name() {
				clash = true
			}
			if clash {
				report(fmt.Sprintf("fan-out loop: %s could replace the goroutines, but no fix is offered: the goroutine declares %s again", verb, id.Name))
				return
			}
		}
	}

	// Context for errgroup bodies.
	var ctxArg, ctxParam string
	if fl.kind == "errgroup" {
		ctxParam = "_"
		ctxArg = "context.Background()"
		if fl.ctxVar != nil {
			ctxArg = ps.text(fl.parent)
			if ps.mentions(fl.lit.Body, fl.ctxVar, nil) {
				ctxParam = fl.ctxVar.Name()
			}
		}
	}

	// Names the new code needs.
	parName, parImport := ps.importName(file, parPath, "par", fl.wait.Pos())
	if parName == "" {
		report(fmt.Sprintf("fan-out loop: %s could replace the goroutines, but no fix is offered: the name par is taken", verb))
		return
	}
	ctxName, ctxImport := "", false
	if fl.kind == "errgroup" {
		ctxName, ctxImport = ps.importName(file, "context", "context", fl.wait.Pos())
		if ctxName == "" {
			report(fmt.Sprintf("fan-out loop: %s could replace the goroutines, but no fix is offered: the name context is taken", verb))
			return
		}
		ctxArg = strings.Replace(ctxArg, "context.", ctxName+".", 1)
	}

	// Option for blocking bodies.
	opt := ""
	var blockingLimit string
	if blockWhy != "" {
		switch {
		case fl.limit != nil:
			// Evaluated once, as make or SetLimit evaluated it.
			blockingLimit = ps.text(fl.limit)
		case isPureCount(info, loop):
			// One goroutine per item, but at least 1: par.Blocking(0)
			// panics, and a loop over no items ran no goroutine (loki's
			// executor pipelines open zero inputs).
			blockingLimit = n
			if k, err := strconv.Atoi(n); err != nil || k < 1 {
				if fv := info.FileVersions[file]; fv != "" && version.Compare(fv, "go1.21") < 0 {
					report(fmt.Sprintf("fan-out loop whose body blocks (%s): use %s with %s.Blocking(max(1, %s)); no fix is offered: the file's Go version has no max", blockWhy, verb, parName, n))
					return
				}
				if obj := scopeLookup(ps.Pkg, fl.wait.Pos(), "max"); obj != types.Universe.Lookup("max") {
					report(fmt.Sprintf("fan-out loop whose body blocks (%s): use %s with %s.Blocking(max(1, %s)); no fix is offered: the name max is taken", blockWhy, verb, parName, n))
					return
				}
				blockingLimit = "max(1, " + n + ")"
			}
		default:
			report(fmt.Sprintf("fan-out loop whose body blocks (%s): use %s with %s.Blocking(k) rather than a plain %s; no fix is offered: the count has calls", blockWhy, verb, parName, verb))
			return
		}
		opt = ", " + parName + ".Blocking(" + blockingLimit + ")"
	}

	// The body's text, less the dropped statements.
	indent := indentOf(src, tf, fl.waitStmt.Pos())
	inner := indent + "\t"
	bs, be := tf.Offset(fl.lit.Body.Lbrace)+1, tf.Offset(fl.lit.Body.Rbrace)
	var drops []span
	for _, d := range fl.bodyDel {
		p, e := lineSpan(src, tf, d.Pos(), d.End())
		drops = append(drops, span{tf.Offset(p), tf.Offset(e)})
	}
	sort.Slice(drops, func(a, b int) bool { return drops[a].s < drops[b].s })
	var bodyText bytes.Buffer
	cur := bs
	for _, d := range drops {
		if d.s < cur {
			continue
		}
		bodyText.Write(src[cur:d.s])
		cur = d.e
	}
	bodyText.Write(src[cur:be])
	oldInner := indentOf(src, tf, fl.lit.Pos()) + "\t"
	bodyStr := reindent(bodyText.String(), oldInner, inner, ps.rawStrings(fl.lit.Body, bs))

	// Comments in the loop body outside the goroutine's body come along.
	var comments []string
	for _, cg := range file.Comments {
		if cg.Pos() > body.Lbrace && cg.End() < body.Rbrace && !(cg.Pos() >= fl.lit.Body.Lbrace && cg.End() <= fl.lit.Body.Rbrace) {
			if p, _ := lineSpan(src, tf, cg.Pos(), cg.End()); p != cg.Pos() || indentOf(src, tf, cg.Pos()) == "" {
				comments = append(comments, strings.TrimSpace(ps.text(cg)))
			}
		}
	}

	var b strings.Builder
	if fl.kind == "errgroup" {
		results := "error"
		if res := fl.lit.Type.Results; res != nil && len(res.List) == 1 && len(res.List[0].Names) == 1 {
			// func() (err error): keep the named result.
			name := res.List[0].Names[0].Name
			if name == idx || name == ctxParam || defined[name] {
				report(fmt.Sprintf("fan-out loop: %s could replace the goroutines, but no fix is offered: the goroutine's result %s shadows a loop variable", verb, name))
				return
			}
			results = ps.text(res)
		}
		fmt.Fprintf(&b, "%s.ForErr(%s, %s, func(%s %s.Context, %s int) %s {\n", parName, ctxArg, n, ctxParam, ctxName, idx, results)
	} else {
		fmt.Fprintf(&b, "%s.For(%s, func(%s int) {\n", parName, n, idx)
	}
	var prelude []string
	prelude = append(prelude, comments...)
	if valueDef != "" {
		prelude = append(prelude, valueDef)
	}
	prelude = append(prelude, keepText...)
	prelude = append(prelude, paramDefs...)
	for _, l := range prelude {
		b.WriteString(inner + l + "\n")
	}
	bodyStr = strings.TrimLeft(bodyStr, " \t")
	bodyStr = strings.TrimPrefix(bodyStr, "\n")
	bodyStr = strings.TrimRight(bodyStr, " \t")
	if bodyStr != "" && !strings.HasSuffix(bodyStr, "\n") {
		bodyStr += "\n"
	}
	if strings.TrimSpace(bodyStr) != "" && !strings.HasPrefix(bodyStr, inner) && !strings.HasPrefix(bodyStr, "\n") {
		bodyStr = inner + bodyStr
	}
	b.WriteString(bodyStr)
	b.WriteString(indent + "}" + opt + ")")

	// Removing the loop must not leave a local variable unused (a limit,
	// a count passed to wg.Add).
	newText := b.String()
	deleted := []ast.Node{fl.groupDel, loop, fl.wait}
	for _, s := range fl.extraDel {
		deleted = append(deleted, s)
	}
	params := ps.paramsOf(file)
	for _, dn := range deleted {
		for _, v := range freeVars(info, dn) {
			if v.Parent() == nil || v.Parent() == ps.Pkg.Scope() || params[v] || v.Name() == "_" {
				continue
			}
			inside := false
			for _, d := range deleted {
				if within(d, v.Pos()) {
					inside = true
				}
			}
			if inside || ps.usedOutside(v, deleted) || mentionsWord(newText, v.Name()) {
				continue
			}
			report(fmt.Sprintf("fan-out loop: %s could replace the goroutines, but no fix is offered: the rewrite would leave %s unused", verb, v.Name()))
			return
		}
	}

	// Edits.
	var edits []analysis.TextEdit
	del := func(n ast.Node) {
		p, e := lineSpan(src, tf, n.Pos(), n.End())
		edits = append(edits, analysis.TextEdit{Pos: p, End: e})
	}
	del(fl.groupDel)
	for _, s := range fl.extraDel {
		del(s)
	}
	del(loop)
	edits = append(edits, analysis.TextEdit{Pos: fl.wait.Pos(), End: fl.wait.End(), NewText: []byte(b.String())})

	var removed []span
	for _, e := range edits {
		removed = append(removed, span{tf.Offset(e.Pos), tf.Offset(e.End)})
	}
	var add []string
	if parImport {
		add = append(add, parPath)
	}
	if ctxImport {
		add = append(add, "context")
	}
	edits = append(edits, ps.importEdits(file, src, tf, add, removed)...)

	// Message.
	what := map[string]string{"WaitGroup": "a goroutine per item and a WaitGroup", "WaitGroup.Go": "wg.Go per item", "errgroup": "errgroup.Go per item"}[fl.kind]
	if fl.sem != nil {
		what += " limited by a semaphore channel"
	} else if fl.limit != nil {
		what += " with SetLimit"
	}
	var msg, title string
	call := verb + "(" + n + ", ...)"
	if fl.kind == "errgroup" {
		call = verb + "(ctx, " + n + ", ...)"
	}
	if blockWhy != "" {
		msg = fmt.Sprintf("fan-out loop (%s) whose body blocks (%s): rewrite it as %s with %s.Blocking(%s), which runs blocking bodies on goroutines of their own, not a plain %s", what, blockWhy, call, parName, blockingLimit, verb)
		title = fmt.Sprintf("Rewrite with %s and %s.Blocking(%s)", verb, parName, blockingLimit)
	} else {
		msg = fmt.Sprintf("fan-out loop (%s) can be %s: the body does not block", what, call)
		if fl.limit != nil {
			msg += "; the goroutine limit is dropped, the pool bounds the parallelism"
		}
		title = "Rewrite with " + verb
	}
	if fv := info.FileVersions[file]; fv != "" && version.Compare(fv, "go1.22") < 0 {
		for _, v := range []*types.Var{keyVar, valueVar} {
			if v != nil && ps.mentions(fl.lit, v, nil) {
				msg += fmt.Sprintf(" (below Go 1.22 the goroutines share the loop variable %s; the body's own copy fixes that)", v.Name())
				break
			}
		}
	}
	ps.Report(analysis.Diagnostic{
		Pos:            loop.Pos(),
		End:            body.Lbrace,
		Category:       "fanout",
		Message:        msg,
		SuggestedFixes: []analysis.SuggestedFix{{Message: title, TextEdits: edits}},
	})
}

func kindName(t types.Type) string {
	switch t.(type) {
	case *types.Chan:
		return "channel"
	case *types.Signature:
		return "function iterator"
	}
	return t.String()
}

func isIntType(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Kind() == types.Int || ok && b.Kind() == types.UntypedInt
}

func isPureCount(info *types.Info, loop ast.Stmt) bool {
	switch l := loop.(type) {
	case *ast.RangeStmt:
		return pure(info, l.X)
	case *ast.ForStmt:
		return true // countingLoop checked it
	}
	return false
}

// countingLoop recognises for i := 0; i < n; i++ with n pure and i not
// assigned in the body.
func (ps *pass) countingLoop(l *ast.ForStmt) (*types.Var, string, string) {
	info := ps.TypesInfo
	init, ok := l.Init.(*ast.AssignStmt)
	if !ok || init.Tok != token.DEFINE || len(init.Lhs) != 1 || len(init.Rhs) != 1 {
		return nil, "", "the loop is not a counting loop from 0"
	}
	id, ok := init.Lhs[0].(*ast.Ident)
	if !ok {
		return nil, "", "the loop is not a counting loop from 0"
	}
	iv, _ := info.Defs[id].(*types.Var)
	if lit, ok := init.Rhs[0].(*ast.BasicLit); !ok || lit.Value != "0" || iv == nil || !isIntType(iv.Type()) {
		return nil, "", "the loop is not a counting loop from 0 over ints"
	}
	post, ok := l.Post.(*ast.IncDecStmt)
	if !ok || post.Tok != token.INC || rootObj(info, post.X) != iv {
		return nil, "", "the loop does not count up by one"
	}
	cond, ok := l.Cond.(*ast.BinaryExpr)
	if !ok || cond.Op != token.LSS || rootObj(info, cond.X) != iv {
		return nil, "", "the loop's condition is not i < n"
	}
	if !pure(info, cond.Y) {
		return nil, "", "the loop's bound has calls"
	}
	if ps.assignedIn(l.Body, iv) {
		return nil, "", "the loop body assigns the index"
	}
	for _, m := range freeVars(info, cond.Y) {
		if ps.assignedIn(l.Body, m) {
			return nil, "", "the loop body changes the bound"
		}
	}
	return iv, ps.text(cond.Y), ""
}

// paramsOf returns the parameters and results of every function in file.
func (ps *pass) paramsOf(file *ast.File) map[*types.Var]bool {
	out := map[*types.Var]bool{}
	ast.Inspect(file, func(n ast.Node) bool {
		if ft, ok := n.(*ast.FuncType); ok {
			for _, fl := range []*ast.FieldList{ft.Params, ft.Results} {
				if fl == nil {
					continue
				}
				for _, f := range fl.List {
					for _, id := range f.Names {
						if v, ok := ps.TypesInfo.Defs[id].(*types.Var); ok {
							out[v] = true
						}
					}
				}
			}
		}
		return true
	})
	return out
}

// mentionsWord reports whether name occurs in text as a whole word.
func mentionsWord(text, name string) bool {
	isWord := func(c byte) bool {
		return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
	}
	for i := 0; ; {
		j := strings.Index(text[i:], name)
		if j < 0 {
			return false
		}
		j += i
		if (j == 0 || !isWord(text[j-1])) && (j+len(name) == len(text) || !isWord(text[j+len(name)])) {
			return true
		}
		i = j + 1
	}
}

func freeVars(info *types.Info, e ast.Node) []*types.Var {
	var out []*types.Var
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if v, ok := info.Uses[id].(*types.Var); ok {
				out = append(out, v)
			}
		}
		return true
	})
	return out
}

func (ps *pass) assignedIn(n ast.Node, v *types.Var) bool {
	if v == nil {
		return false
	}
	found := false
	is := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && ps.TypesInfo.Uses[id] == v
	}
	ast.Inspect(n, func(m ast.Node) bool {
		switch m := m.(type) {
		case *ast.AssignStmt:
			for _, l := range m.Lhs {
				if is(l) {
					found = true
				}
			}
		case *ast.IncDecStmt:
			if is(m.X) {
				found = true
			}
		case *ast.UnaryExpr:
			if m.Op == token.AND && is(m.X) {
				found = true
			}
		case *ast.RangeStmt:
			if m.Tok == token.ASSIGN && (m.Key != nil && is(m.Key) || m.Value != nil && is(m.Value)) {
				found = true
			}
		}
		return !found
	})
	return found
}

func (ps *pass) mentionsName(n ast.Node, name string) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		if id, ok := m.(*ast.Ident); ok && id.Name == name {
			found = true
		}
		return !found
	})
	return found
}

// rawStrings returns the byte ranges (relative to base) of multi-line raw
// strings, whose lines must not be reindented.
func (ps *pass) rawStrings(n ast.Node, base int) []span {
	var out []span
	tf := ps.Fset.File(n.Pos())
	ast.Inspect(n, func(m ast.Node) bool {
		if bl, ok := m.(*ast.BasicLit); ok && bl.Kind == token.STRING && strings.HasPrefix(bl.Value, "`") && strings.Contains(bl.Value, "\n") {
			out = append(out, span{tf.Offset(bl.Pos()) - base, tf.Offset(bl.End()) - base})
		}
		return true
	})
	return out
}

// reindent replaces the prefix old by new at the start of each line of s,
// except for lines that begin inside a raw string. raw holds offsets into
// the original text; drops before them shift it, so lines are matched by
// content: a line inside a raw string is left alone when its start falls in
// one of the ranges of the original text.
func reindent(s, old, new string, raw []span) string {
	if len(raw) > 0 {
		// Keep it simple and safe: leave the text as it is; gofmt fixes
		// the indentation of code, and raw strings keep theirs.
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, old) {
			lines[i] = new + l[len(old):]
		}
	}
	return strings.Join(lines, "\n")
}

// importName returns the name under which file can refer to path at pos,
// and whether an import must be added; "" when the name is taken.
func (ps *pass) importName(file *ast.File, path, name string, pos token.Pos) (string, bool) {
	for _, imp := range file.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if p != path {
			continue
		}
		if imp.Name != nil {
			if imp.Name.Name == "_" || imp.Name.Name == "." {
				continue
			}
			name = imp.Name.Name
		}
		if obj := lookup(ps.Pkg, file, name, pos); obj != nil {
			if pn, ok := obj.(*types.PkgName); ok && pn.Imported().Path() == path {
				return name, false
			}
			return "", false
		}
		return name, false
	}
	if obj := lookup(ps.Pkg, file, name, pos); obj != nil {
		return "", false
	}
	return name, true
}

// isStd reports whether a quoted import path is a standard package's.
func isStd(quoted string) bool {
	p, _ := strconv.Unquote(quoted)
	return !strings.Contains(strings.Split(p, "/")[0], ".")
}

func lookup(pkg *types.Package, file *ast.File, name string, pos token.Pos) types.Object {
	scope := pkg.Scope().Innermost(pos)
	if scope == nil {
		return nil
	}
	_, obj := scope.LookupParent(name, pos)
	return obj
}

// importEdits adds the paths in add and removes the imports of sync and
// errgroup when no use of them remains outside removed.
func (ps *pass) importEdits(file *ast.File, src []byte, tf *token.File, add []string, removed []span) []analysis.TextEdit {
	var edits []analysis.TextEdit
	drop := map[*ast.ImportSpec]bool{}
	for _, imp := range file.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if p != "sync" && p != errgroupPath {
			continue
		}
		if imp.Name != nil && (imp.Name.Name == "_" || imp.Name.Name == ".") {
			continue
		}
		used := false
		for id, obj := range ps.TypesInfo.Uses {
			pn, ok := obj.(*types.PkgName)
			if !ok || pn.Imported().Path() != p || ps.Fset.File(id.Pos()) != tf {
				continue
			}
			off := tf.Offset(id.Pos())
			in := false
			for _, r := range removed {
				if r.s <= off && off < r.e {
					in = true
				}
			}
			if !in {
				used = true
			}
		}
		if !used {
			drop[imp] = true
		}
	}
	var quoted []string
	for _, a := range add {
		quoted = append(quoted, strconv.Quote(a))
	}
	added := len(quoted) == 0
	for _, d := range file.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.IMPORT {
			continue
		}
		if !g.Lparen.IsValid() {
			spec := g.Specs[0].(*ast.ImportSpec)
			switch {
			case drop[spec] && !added:
				if len(quoted) == 1 {
					edits = append(edits, analysis.TextEdit{Pos: spec.Pos(), End: spec.End(), NewText: []byte(quoted[0])})
				} else {
					edits = append(edits, analysis.TextEdit{Pos: g.Pos(), End: g.End(), NewText: []byte("import (\n\t" + strings.Join(quoted, "\n\t") + "\n)")})
				}
				added = true
			case drop[spec]:
				p, e := lineSpan(src, tf, g.Pos(), g.End())
				edits = append(edits, analysis.TextEdit{Pos: p, End: e})
			case !added:
				edits = append(edits, analysis.TextEdit{Pos: g.End(), End: g.End(), NewText: []byte("\nimport " + strings.Join(quoted, "\nimport "))})
				added = true
			}
			continue
		}
		var keep *ast.ImportSpec
		for _, s := range g.Specs {
			if !drop[s.(*ast.ImportSpec)] && keep == nil {
				keep = s.(*ast.ImportSpec)
			}
		}
		first := true
		for _, s := range g.Specs {
			spec := s.(*ast.ImportSpec)
			if !drop[spec] {
				continue
			}
			if !added && keep == nil && first {
				edits = append(edits, analysis.TextEdit{Pos: spec.Pos(), End: spec.End(), NewText: []byte(strings.Join(quoted, "\n\t"))})
				added = true
				first = false
				continue
			}
			p, e := lineSpan(src, tf, spec.Pos(), spec.End())
			edits = append(edits, analysis.TextEdit{Pos: p, End: e})
		}
		if !added && keep != nil {
			// Standard packages join the last standard import; others go
			// after the last import, in a group of their own when that one
			// is standard.
			var lastStd, last *ast.ImportSpec
			for _, s := range g.Specs {
				spec := s.(*ast.ImportSpec)
				if drop[spec] {
					continue
				}
				last = spec
				if isStd(spec.Path.Value) {
					lastStd = spec
				}
			}
			var stdText, otherText string
			for _, q := range quoted {
				if isStd(q) && lastStd != nil {
					stdText += "\n\t" + q
				} else if isStd(last.Path.Value) {
					otherText += "\n\n\t" + q
				} else {
					otherText += "\n\t" + q
				}
			}
			if lastStd == last {
				edits = append(edits, analysis.TextEdit{Pos: last.End(), End: last.End(), NewText: []byte(stdText + otherText)})
			} else {
				if stdText != "" {
					edits = append(edits, analysis.TextEdit{Pos: lastStd.End(), End: lastStd.End(), NewText: []byte(stdText)})
				}
				if otherText != "" {
					edits = append(edits, analysis.TextEdit{Pos: last.End(), End: last.End(), NewText: []byte(otherText)})
				}
			}
			added = true
		}
	}
	if !added {
		edits = append(edits, analysis.TextEdit{Pos: file.Name.End(), End: file.Name.End(), NewText: []byte("\n\nimport (\n\t" + strings.Join(quoted, "\n\t") + "\n)")})
	}
	return edits
}

// scopeLookup resolves name at pos, as the code there would.
func scopeLookup(pkg *types.Package, pos token.Pos, name string) types.Object {
	sc := pkg.Scope().Innermost(pos)
	if sc == nil {
		return types.Universe.Lookup(name)
	}
	_, obj := sc.LookupParent(name, pos)
	return obj
}
