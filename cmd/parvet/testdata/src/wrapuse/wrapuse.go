package wrapuse

import "wrapdef"

func use(xs []int, out []int) {
	total := 0
	wrapdef.Each(len(xs), func(i int) {
		total += xs[i] // want `body passed to wrapdef.Each \(which runs it concurrently via par.For\) updates captured variable total`
		out[i] = xs[i]
	})
	wrapdef.Items(xs, func(i int, x int) {
		out[i] = x
		total = x // want `body passed to wrapdef.Items \(which runs it concurrently via par.For\) assigns captured variable total`
	})
	wrapdef.Twice(len(xs), func(i int) {
		out[i] = 1
		out[0] = 2 // want `wrapdef.Twice .* writes out\[0\]`
	})
	wrapdef.Serial(len(xs), func(i int) {
		total += xs[i]
	})
	local(len(xs), func(i int) {
		total++ // want `body passed to local \(which runs it concurrently via par.For\) total\+\+`
	})
}

func local(n int, f func(int)) { // want local:`runs argument 1 concurrently via par.For`
	wrapdef.Each(n, f)
}
