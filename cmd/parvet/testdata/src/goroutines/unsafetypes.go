package goroutines

import (
	"bytes"
	"container/list"
	"math/rand"
	"strings"
	"sync"
)

// Methods that change a standard value that is not safe for concurrent
// use: reported on shared values, not on per-iteration ones, nor under a
// lock, nor for methods that only read.
func unsafeTypes(xs []string, r *rand.Rand) int {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var buf, locked bytes.Buffer
	var sb strings.Builder
	l := list.New()
	bufs := make([]bytes.Buffer, len(xs))
	n := 0
	for i, x := range xs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf.WriteString(x) // want `goroutine started per loop iteration calls buf.WriteString, which changes captured buf \(\*bytes.Buffer is not safe for concurrent use\)`
			sb.WriteByte(x[0]) // want `goroutine started per loop iteration calls sb.WriteByte, which changes captured sb \(\*strings.Builder is not safe`
			_ = r.Intn(10)     // want `goroutine started per loop iteration calls r.Intn, which changes captured r \(\*rand.Rand is not safe`
			l.PushBack(x)      // want `goroutine started per loop iteration calls l.PushBack, which changes captured l \(\*list.List is not safe`
			bufs[i].WriteString(x)
			var own bytes.Buffer
			own.WriteString(x)
			_ = rand.Intn(10) // the package's functions are safe
			mu.Lock()
			locked.WriteString(x)
			mu.Unlock()
			if locked.Len() > 0 { // reading while another writes is a race too, but only writes are reported
				n++ // want `goroutine started per loop iteration n\+\+ updates captured variable n`
			}
		}()
	}
	wg.Wait()
	return n
}
