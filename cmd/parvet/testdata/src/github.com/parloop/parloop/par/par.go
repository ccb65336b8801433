// Package par is a stub of github.com/parloop/parloop/par for the analyzers' tests.
package par

import "context"

type Pool struct{}

type Option struct{}

func On(p *Pool) Option                                     { return Option{} }
func Grain(n int) Option                                    { return Option{} }
func Deterministic() Option                                 { return Option{} }
func Blocking(limit int) Option                             { return Option{} }
func For(n int, body func(i int), opts ...Option)           {}
func ForRange(n int, body func(lo, hi int), opts ...Option) {}
func Map[T, U any](in []T, f func(T) U, opts ...Option) []U { return nil }
func ForErr(ctx context.Context, n int, body func(ctx context.Context, i int) error, opts ...Option) error {
	return nil
}
func MapErr[T, U any](ctx context.Context, in []T, f func(context.Context, T) (U, error), opts ...Option) ([]U, error) {
	return nil, nil
}
func Reduce[T any](in []T, identity T, combine func(a, b T) T, opts ...Option) T { return identity }
func ReduceRange[T any](n int, identity T, leaf func(lo, hi int) T, combine func(a, b T) T, opts ...Option) T {
	return identity
}
func Join(f, g func(), opts ...Option)    {}
func Invoke(fns []func(), opts ...Option) {}
func Both[A, B any](f func() A, g func() B, opts ...Option) (A, B) {
	var a A
	var b B
	return a, b
}
func BothOf[X, Y, A, B any](f func(X) A, x X, g func(Y) B, y Y, opts ...Option) (A, B) {
	var a A
	var b B
	return a, b
}
func Fold[L any](n int, init func() L, body func(acc *L, lo, hi int), merge func(a, b L) L, opts ...Option) L {
	return init()
}

type Spawner struct{}

func (s *Spawner) Go(f func()) {}

type ErrSpawner struct{}

func (s *ErrSpawner) Go(f func() error) {}

func Scope(body func(s *Spawner), opts ...Option) {}
func ScopeErr(ctx context.Context, body func(ctx context.Context, s *ErrSpawner) error, opts ...Option) error {
	return nil
}
