// Package pslices is a stub of github.com/parloop/parloop/pslices for the analyzers' tests.
package pslices

import (
	"cmp"

	"github.com/parloop/parloop/par"
)

func Sort[S ~[]E, E cmp.Ordered](x S, opts ...par.Option)                         {}
func SortFunc[S ~[]E, E any](x S, cmp func(a, b E) int, opts ...par.Option)       {}
func SortStableFunc[S ~[]E, E any](x S, cmp func(a, b E) int, opts ...par.Option) {}
