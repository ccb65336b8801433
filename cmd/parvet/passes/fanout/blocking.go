package fanout

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

// Blocking: which calls and bodies are taken to block (the seed lists, I/O
// methods, and Blocks facts exported by imported packages).

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
		// A function value: judged by its arguments alone.
		if _, isConv := info.Types[call.Fun]; isConv && info.Types[call.Fun].IsType() {
			return ""
		}
		for _, a := range call.Args {
			if t := info.TypeOf(a); t != nil && isContext(t) {
				return "passes a context to " + types.ExprString(call.Fun)
			}
		}
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
			if !ps.skipped(m) {
				why = ps.callBlocks(m)
			}
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
