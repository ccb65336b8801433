// Package budget shares one limit of goroutines among a tree of blocking
// calls (par's Blocking option).
//
// A Blocking call's limit is a budget of goroutines, which its goroutines
// carry (by goroutine key, while they run): a Blocking call or scope made
// by one of them, in a body or a task, spends the same budget instead of a
// new one. Such a nested call runs on its caller, which already holds a
// token, and starts a goroutine for each token it can take (Take), at most
// its own limit less one; each such goroutine gives its token back when it
// exits (Go). So however deep blocking calls nest, the goroutines of the
// tree never exceed the outermost limit, and a nested call with no token
// left still makes progress on its caller.
package budget

import (
	"sync/atomic"
	"unsafe"

	"github.com/parloop/parloop/par/internal/gtable"
	"github.com/parloop/parloop/par/internal/platform"
)

// A Budget counts the tokens (goroutines) left to a tree of blocking calls.
type Budget struct{ free atomic.Int64 }

// New returns a budget with free tokens left for the calls nested in the
// tree (its root's own goroutines already hold theirs).
func New(free int) *Budget {
	b := new(Budget)
	b.free.Store(int64(free))
	return b
}

// holders maps the keys of goroutines that hold a token to their budget,
// while they run.
var holders gtable.Table

// Here returns the budget of the calling goroutine, or nil if it holds
// none.
func Here() *Budget { return (*Budget)(holders.Get(platform.GoroutineKey())) }

// Free returns the number of tokens left.
func (b *Budget) Free() int { return int(b.free.Load()) }

// Take takes up to want tokens and returns how many it took.
func (b *Budget) Take(want int) int {
	for {
		f := b.free.Load()
		k := min(f, int64(want))
		if k <= 0 {
			return 0
		}
		if b.free.CompareAndSwap(f, f-k) {
			return int(k)
		}
	}
}

// Go starts f on a goroutine that holds one of b's tokens (taken by the
// caller with Take) and gives it back when f returns or calls Goexit.
func (b *Budget) Go(f func()) {
	go func() {
		k := platform.GoroutineKey()
		holders.Put(k, unsafe.Pointer(b))
		defer func() {
			holders.Delete(k)
			b.free.Add(1)
		}()
		f()
	}()
}

// Hold makes the calling goroutine a holder of b (one that has its token
// already, as a scope's owner does), until it calls Release.
func (b *Budget) Hold() { holders.Put(platform.GoroutineKey(), unsafe.Pointer(b)) }

// Release ends the calling goroutine's Hold.
func Release() { holders.Delete(platform.GoroutineKey()) }
