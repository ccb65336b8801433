package par

// The dispatcher: how every call runs.
//
// Every call runs the way of the first row that matches (route):
//
//	condition                                                way
//	Blocking(limit)                                          blocking: goroutines of its own (blocking.go)
//	crowded: from outside, on the default pool, the Ps       plain, watching the crowd; the rest,
//	  saturated (plain.go)                                     once it leaves, framed
//	no seat: the pool is closed, or every guest seat held    plain, whole
//	the pool has parallelism 1                               plain, whole, on its seat; with no
//	                                                           option and no trace, by the verb
//	                                                           itself (direct)
//	nested on a slot whose deque offers thieves work, no     plain, by the verb (direct), watching
//	  seat of the pool spinning, no option and no trace        the deque; the rest, once a thief
//	                                                           empties it or a seat spins, framed
//	otherwise                                                framed (frame.go)
//
//	a fork (Join, Both, BothOf, Invoke): a seat                the fork protocol on it (fork.go)
//	a fork without a seat                                    its functions one after the other
//	a scope (Scope, ScopeErr) with Blocking(limit)           its tasks on its caller and goroutines of its own (scope.go)
//	a scope with a seat                                      its tasks in the deques of the seats they are
//	                                                           spawned on, the caller helping
//	a scope without a seat                                   its tasks one after another on the caller
//
// A plain run that hands over its rest and the framed run of that rest are
// one call: one trace task, one result (the two folds combined in index
// order), one error. Why plain runs: a frame costs a seat, a frame, a task
// and two clock reads a grain, wasted on a call nobody could take a part
// of, and paid for offers nobody takes by a crowded call or a nested call
// on a slot already offering older, larger work.
//
// A nested call on a slot that offers work runs in chunks of 1, 2, 4, ...
// indices, the last taking the rest once less than twice its length
// remains (8 items go as 1, 2 and 5), and looks at the deque between
// chunks: once a thief has emptied it, the call hands its rest over,
// framed, where thieves find it. Older work feeds the thieves only while
// nobody is left without: a seat that spins looking for work (more idle
// workers than offered tasks, as in a deep, narrow recursion on many
// workers) makes nested calls framed, so that every level's rest is
// offered (the idlecheck heuristic, docs/DESIGN.md).

import (
	"runtime/trace"
	"strconv"
	"sync/atomic"

	"github.com/parloop/parloop/par/internal/crowd"
	"github.com/parloop/parloop/par/internal/grain"
	"github.com/parloop/parloop/par/internal/platform"
)

// spec is what the verbs tell the scheduler about a call.
type spec struct {
	verb     string
	n        int           // the call's items (functions, for Invoke)
	pool     *Pool         // On's pool, or nil
	grain    int           // the Grain hint, or 0
	blocking int           // Blocking's limit, or 0
	prefix   []int64       // Weighted's prefix sums, or nil
	progress *atomic.Int64 // Track's count of items done, or nil
	seat     *slot         // the caller's seat (nil: none), once looked
	looked   bool          // seat was looked up: by the verb (callerSeat), else by route
	from     int           // the first index to run: the verb ran [0, from) itself (direct)
}

// way is how a call runs: route's decision.
type way uint8

const (
	wayBlocking way = iota // goroutines of its own (blocking.go)
	wayCrowded             // plain, watching the crowd (plain.go); the rest routed again
	wayPlain               // plain, whole: no seat, or parallelism 1
	wayFramed              // framed (frame.go)
)

// route decides how a call with spec sp runs (the table above; crowded
// only if crowd), and returns the seat it runs on (guest: acquired for it,
// to release after), the pool, and for a crowded call the tick it read.
func route(sp *spec, crowd bool) (w way, s *slot, guest bool, p *Pool, now int64) {
	if sp.blocking > 0 {
		return wayBlocking, nil, false, nil, 0
	}
	if !sp.looked {
		sp.seat, sp.looked = seatOf(platform.GoroutineKey()), true
	}
	if crowd && sp.seat == nil && platform.SaturatedHint() {
		if p, now = crowdedPool(sp); p != nil {
			return wayCrowded, nil, false, p, now
		}
	}
	s, guest, p = enter(sp.pool, sp.seat)
	if s == nil || p.solo.Load() {
		return wayPlain, s, guest, p, 0
	}
	return wayFramed, s, guest, p, 0
}

// callerSeat returns the calling goroutine's seat (nil: none), and whether
// a call with opts made there is one its verb runs itself (direct): no
// options and no trace recorded (a traced call gets its task in run), on a
// seat whose pool has parallelism 1 or whose deque offers thieves work
// (the table's rows "by the verb"). Any other call goes to route with the
// seat in its spec.
func callerSeat(opts []Option) (s *slot, byVerb bool) {
	s = seatOf(platform.GoroutineKey())
	return s, s != nil && len(opts) == 0 && (s.pool.solo.Load() || s.tasks.Offers() && !s.othersSpin() && !s.pool.exp.NoPlainNested) && !trace.IsEnabled()
}

// othersSpin reports whether a seat of s's pool spins looking for work
// (never with the experiment idlecheck=off). A parked one is not counted:
// the pool chose not to wake it for the work on offer (sleep.go's policy),
// and a framed call would not change that.
func (s *slot) othersSpin() bool {
	return s.pool.sleep.Spinning() != 0 && !s.pool.exp.NoIdleCheck
}

// direct runs a call over [0, n), n > 0, on seat s, where its verb runs it
// itself (callerSeat): whole at parallelism 1, else as the doc comment
// above says. It returns next, the first index it did not run, and the
// fold of what it ran: combine(identity, fold) if next is n, else the fold
// alone, and the verb routes the rest [next, n) (spec.from). A panic is
// wrapped as a routed call wraps it; a Goexit goes on: nothing else is in
// flight. It is the plain run's nested case, and its whole case again: a
// call at every node of a recursion costs no spec, job or box (the figures
// are in docs/DESIGN.md, "How a call runs"); TestWholeCallsFailAsRoutedOnes
// runs every failure both ways.
func direct[A, T any](s *slot, n int, arg A, run func(arg A, lo, hi int) T, identity T, combine func(a, b T) T) (acc T, next int) {
	s.unflushedPieces++
	c := catcher{lo: 0, hi: n}
	defer c.catch(nil, reraise)
	if s.pool.solo.Load() {
		acc, next = run(arg, 0, n), n
	} else {
		size := 1
		next = grain.ChunkEnd(0, n, size)
		c.hi = next
		acc = run(arg, 0, next)
		// Until a thief takes the older work (the rest then goes where
		// thieves see it), the next chunk, twice as long: 2*size cannot
		// overflow, as the chunk before and the rest it left, at least as
		// long, fit in n.
		for next < n && s.tasks.Public().Len() != 0 && !s.othersSpin() {
			size *= 2
			hi := grain.ChunkEnd(next, n, size)
			c.lo, c.hi = next, hi
			v := run(arg, next, hi)
			if combine != nil {
				c.lo, c.hi = -1, -1 // outside the bodies
				acc = combine(acc, v)
			}
			next = hi
		}
	}
	if combine != nil && next == n {
		c.lo, c.hi = -1, -1
		acc = combine(identity, acc)
	}
	c.returned = true
	return acc, next
}

// The verbs' functions over [lo, hi), as direct runs them. eachWhole is
// eachIndex's loop without stop, written out: calling eachIndex (not
// inlined) costs a nested For of 8 a fifth more instructions.
func eachWhole(body func(int), lo, hi int) none {
	for i := lo; i < hi; i++ {
		body(i)
	}
	return none{}
}
func rangeWhole(body func(lo, hi int), lo, hi int) none      { body(lo, hi); return none{} }
func leafWhole[T any](leaf func(lo, hi int) T, lo, hi int) T { return leaf(lo, hi) }
func forOfWhole[A any](b forOfBox[A], lo, hi int) none       { return b.runRange(lo, hi, nil) }

// run runs b over [0, n), n > 0, the way route says, and returns the fold
// of its pieces (have: any piece delivered a value) and the first error; a
// body's panic or Goexit is re-raised once every running body returned.
func run[T any](sp *spec, b *job[T], n int) (acc T, have bool, err error) {
	w, s, guest, p, now := route(sp, true)
	if w == wayBlocking {
		return acc, false, runBlocking(sp, b, n)
	}
	var tc traced
	if tc.startTrace(sp.verb, n, s, b.ctx); tc.Ctx != nil {
		defer tc.End()
	}
	lo := sp.from
	if w == wayCrowded {
		cw := crowdWatch{Watch: crowd.Start(now), p: p, start: now}
		lo, acc, have, err = plainCall(sp, b, &tc, &cw, nil, false, lo, n)
		cw.done()
		if lo == n || err != nil {
			return acc, have, err
		}
		w, s, guest, p, _ = route(sp, false)
	}
	if w == wayPlain {
		_, v, h, err := plainCall(sp, b, &tc, nil, s, guest, lo, n)
		if have { // a crowded part ran first
			v, h = fold(b, acc, have, v, h)
		}
		return v, h, err
	}
	v, h, err := runFramed(sp, b, tc, s, guest, p, lo, n)
	acc, have = fold(b, acc, have, v, h)
	return acc, have, err
}

// plainCall runs b over [lo, n) on the caller, watching the crowd if cw is
// not nil (else in one go, but for Track: runPlain), and returns the first
// index not run, the fold of what ran (have: any), and a body's error; on
// an error or a done context it returns n. Around the run: the piece counted on s (if any),
// the guest seat released, a panic wrapped as in a framed run (a Goexit
// goes on: nothing else is in flight), a piece region while tracing.
func plainCall[T any](sp *spec, b *job[T], tc *traced, cw *crowdWatch, s *slot, guest bool, lo, n int) (next int, acc T, have bool, err error) {
	var t0 int64
	if s != nil {
		s.unflushedPieces++
		if guest {
			t0 = platform.Ticks()
			s.pool.maybeResize() // splits check GOMAXPROCS, and this call never splits
		}
	}
	var c catcher
	defer c.catch(nil, func(pe *PanicError) {
		if guest {
			releaseGuest(s, t0)
		}
		reraise(pe)
	})
	var r *trace.Region
	if tc.Ctx != nil {
		r = trace.StartRegion(tc.Ctx, "piece")
	}
	if cw == nil && sp.progress == nil { // whole, in one go
		c.lo, c.hi = lo, n
		if acc, err = b.run(lo, n, nil); err != nil {
			err = b.settle(err)
		}
		next, have = n, b.combine != nil
	} else {
		next, acc, have, err = runPlain(b, sp, cw, lo, n, &c)
	}
	c.returned = true
	if r != nil {
		trace.Log(tc.Ctx, "range", strconv.Itoa(lo)+"-"+strconv.Itoa(next))
		r.End()
	}
	if guest {
		releaseGuest(s, t0)
	}
	return next, acc, have, err
}

// fold combines two folds of adjacent ranges, the left one first.
func fold[T any](b *job[T], a T, haveA bool, c T, haveC bool) (T, bool) {
	switch {
	case b.combine == nil || !haveC:
		return a, haveA
	case !haveA:
		return c, true
	}
	out, pe := catchCombine(b.combine, a, c)
	if pe != nil {
		panic(pe)
	}
	return out, true
}
