package par

// PLACEHOLDER: serial implementation so that tests and benchmarks can be
// written against the final API while the scheduler is built.

import (
	"context"
	"runtime/debug"
	"sync"
	"time"
)


const defaultPinning = false

type Pool struct{ cfg poolConfig }

func NewPool(opts ...PoolOption) *Pool {
	c := defaultPoolConfig()
	for _, o := range opts {
		o(&c)
	}
	return &Pool{cfg: c}
}

var defaultPool struct {
	once sync.Once
	p    *Pool
}

func Default() *Pool {
	defaultPool.once.Do(func() { defaultPool.p = NewPool() })
	return defaultPool.p
}

func (p *Pool) Close()          {}
func (p *Pool) Workers() int    { return 1 }
func (p *Pool) Stats() Stats    { return Stats{Workers: make([]WorkerStats, 1), Wall: time.Second} }
func (p *Pool) ResetStats()     {}
func (p *Pool) Placement() string { return "" }
func (p *Pool) Invoke(fns ...func()) {
	var pe *PanicError
	for _, f := range fns {
		func() {
			defer func() {
				if r := recover(); r != nil && pe == nil {
					pe = &PanicError{Value: r, Stack: debug.Stack()}
				}
			}()
			f()
		}()
	}
	if pe != nil {
		panic(pe)
	}
}
func (p *Pool) Join(f, g func()) { p.Invoke(f, g) }

func For(n int, body func(i int), opts ...Option) {
	ForRange(n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			body(i)
		}
	}, opts...)
}

func ForRange(n int, body func(lo, hi int), opts ...Option) {
	if n <= 0 {
		return
	}
	var pe *PanicError
	func() {
		defer func() {
			if r := recover(); r != nil {
				pe = &PanicError{Value: r, Stack: debug.Stack()}
			}
		}()
		body(0, n)
	}()
	if pe != nil {
		panic(pe)
	}
}

func Map[T, U any](in []T, f func(T) U, opts ...Option) []U {
	out := make([]U, len(in))
	For(len(in), func(i int) { out[i] = f(in[i]) }, opts...)
	return out
}

func Reduce[T any](in []T, identity T, combine func(a, b T) T, opts ...Option) T {
	acc := identity
	for _, x := range in {
		acc = combine(acc, x)
	}
	return acc
}

func Invoke(fns ...func()) { Default().Invoke(fns...) }
func Join(f, g func())     { Default().Invoke(f, g) }

func ForErr(ctx context.Context, n int, body func(ctx context.Context, i int) error, opts ...Option) error {
	for i := 0; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := body(ctx, i); err != nil {
			return err
		}
	}
	return nil
}
