package pslices

import (
	"sync/atomic"
	"time"

	"github.com/parloop/parloop/par"
)

// Searching with early exit.
//
// find looks for a hit in [0, n) through scan, which returns the first hit
// in a range it is given, or -1. It starts on the calling goroutine, in
// chunks of 32, 64, 128, ... elements, reading the clock after each: an
// early hit costs what a plain loop costs, and the pool is only woken once
// the caller has scanned for callerScan, by when the cost of an element is
// known. The rest is cut into blocks of about blockTarget of work, which
// the pool's workers claim in index order from one counter, so that all of
// them scan the front of what is left: a hit at the middle of the slice is
// found after half the slice, not after the half a thief took first.
//
// Invariant: found holds the smallest hit known so far (n while none is).
// A block is claimed only if it starts below found, and a running block
// re-reads found every sub-block and stops once the hit lies before its
// next sub-block: once a hit at i is known, nothing beyond i keeps running
// for longer than a sub-block. Blocks below i go on, since a hit there
// comes first. With any set (Contains, Equal, IsSorted: any hit will do),
// everything stops at the first hit found.
//
// Each call allocates the finder and the closures: a few allocations, none
// per element.
//
// found and next are atomics; the answer is read after par.ForRange
// returns, which happens after every body, so the last store is seen.

const (
	firstChunk  = 32
	callerScan  = 8 * time.Microsecond  // scanned on the caller before the pool is woken
	blockTarget = 16 * time.Microsecond // work of one parallel block
	minBlock    = 256
	maxBlocks   = 4096
)

type finder struct {
	found atomic.Int64
	next  atomic.Int64
}

// find returns the smallest i in [0, n) that scan reports as a hit or, with
// anyHit, some hit; -1 if there is none. The caller has scanned [0,
// firstChunk) itself (the functions do, in a plain loop, before they build
// the closure scan: an early hit then allocates nothing).
func find(n int, scan func(lo, hi int) int, anyHit bool, c config) int {
	hi := min(n, firstChunk)
	start := time.Now()
	chunk := firstChunk
	var spent time.Duration
	for hi < n {
		lo := hi
		chunk *= 2
		hi = min(n, hi+chunk)
		if r := scan(lo, hi); r >= 0 {
			return r
		}
		if spent = time.Since(start); spent >= callerScan {
			break
		}
	}
	if hi == n {
		return -1
	}
	perElem := float64(spent) / float64(hi-firstChunk)
	rest := n - hi
	block := int(float64(blockTarget) / max(perElem, 0.1))
	block = max(block, minBlock, (rest+maxBlocks-1)/maxBlocks)
	if rest <= block {
		return scan(hi, n)
	}
	return findParallel(hi, n, block, scan, anyHit, c)
}

func findParallel(base, n, block int, scan func(lo, hi int) int, anyHit bool, c config) int {
	f := new(finder)
	f.found.Store(int64(n))
	sub := max(block/8, minBlock/2)
	blocks := (n - base + block - 1) / block
	par.ForRange(blocks, func(lo, hi int) {
		for range hi - lo {
			b := int(f.next.Add(1) - 1)
			from := base + b*block
			if f.stopAt(from, n, anyHit) {
				return
			}
			to := min(from+block, n)
			for s := from; s < to; s += sub {
				e := min(s+sub, to)
				if r := scan(s, e); r >= 0 {
					f.lower(r)
					return
				}
				if f.stopAt(e, n, anyHit) {
					return
				}
			}
		}
	}, c.pool...)
	if r := int(f.found.Load()); r < n {
		return r
	}
	return -1
}

// stopAt reports whether a scan that would go on at position i is no longer
// needed.
func (f *finder) stopAt(i, n int, anyHit bool) bool {
	found := int(f.found.Load())
	if anyHit {
		return found < n
	}
	return found <= i
}

// lower sets found to i if i is smaller.
func (f *finder) lower(i int) {
	for {
		cur := f.found.Load()
		if int64(i) >= cur || f.found.CompareAndSwap(cur, int64(i)) {
			return
		}
	}
}
