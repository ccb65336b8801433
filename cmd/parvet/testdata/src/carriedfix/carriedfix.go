// Package carried holds a fan-out loop whose goroutine races (parrace's
// goroutine rule reports the same shape in package goroutines): fanout
// rewrites it, and the race goes with the body into par.For, where parrace
// reports it again (package carriedfix holds the rewritten file).
package carriedfix

import (
	"github.com/parloop/parloop/par"
)

func square(x int) int { return x * x }

func Sum(xs []int) int {
	total := 0
	par.For(len(xs), func(i int) {
		x := xs[i]
		total += square(x) // want `par.For body updates captured variable total with \+= \(data race\)`
	})
	return total
}
