// Package iter is a stub of github.com/parloop/parloop/iter for the analyzers' tests.
package iter

import "context"

type Seq[V any] func(yield func(V) bool)

type Option struct{}

type Pipe[T any] struct{}

func Slice[T any](s []T, opts ...Option) Pipe[T] { return Pipe[T]{} }
func Range(n int, opts ...Option) Pipe[int]      { return Pipe[int]{} }
func Blocking(n int) Option                      { return Option{} }

func Map[T, U any](p Pipe[T], f func(T) U, opts ...Option) Pipe[U] { return Pipe[U]{} }
func MapErr[T, U any](p Pipe[T], f func(context.Context, T) (U, error), opts ...Option) Pipe[U] {
	return Pipe[U]{}
}
func FlatMap[T, U any](p Pipe[T], f func(T) Seq[U], opts ...Option) Pipe[U] { return Pipe[U]{} }
func FlatMapErr[T, U any](p Pipe[T], f func(ctx context.Context, v T, yield func(U) bool) error, opts ...Option) Pipe[U] {
	return Pipe[U]{}
}
func (p Pipe[T]) Filter(keep func(T) bool, opts ...Option) Pipe[T] { return p }
func (p Pipe[T]) FilterErr(keep func(context.Context, T) (bool, error), opts ...Option) Pipe[T] {
	return p
}
func (p Pipe[T]) ForEach(f func(T)) error                                { return nil }
func (p Pipe[T]) Reduce(identity T, combine func(a, b T) T) (T, error)   { return identity, nil }
func (p Pipe[T]) Find(pred func(T) bool) (v T, found bool, err error)    { return v, false, nil }
func (p Pipe[T]) FindAny(pred func(T) bool) (v T, found bool, err error) { return v, false, nil }
func (p Pipe[T]) Any(pred func(T) bool) (bool, error)                    { return false, nil }
func (p Pipe[T]) Every(pred func(T) bool) (bool, error)                  { return true, nil }
func (p Pipe[T]) Collect() ([]T, error)                                  { return nil, nil }
func Fold[T, A any](p Pipe[T], init func() A, step func(acc *A, v T), merge func(a, b A) A) (acc A, err error) {
	return init(), nil
}
