// Package wrapdef has functions that run their arguments concurrently.
package wrapdef

import "github.com/parloop/parloop/par"

// Each runs body for each index, in parallel.
func Each(n int, body func(i int)) { // want Each:`runs argument 1 concurrently via par.For`
	par.For(n, body, par.Grain(1))
}

// Items calls f with each item, in parallel: it calls its argument inside
// a verb's body.
func Items[T any](xs []T, f func(int, T)) { // want Items:`runs argument 1 concurrently via par.For`
	par.For(len(xs), func(i int) { f(i, xs[i]) })
}

// Twice goes through Each.
func Twice(n int, body func(i int)) { // want Twice:`runs argument 1 concurrently via par.For`
	Each(2*n, body)
}

// Serial runs body one index at a time: no fact.
func Serial(n int, body func(i int)) {
	for i := range n {
		body(i)
	}
}
