package fanout

import (
	"os"
	"sync"
	"time"
)

// Sem limits the goroutines with a channel; the body reads files.
func Sem(paths []string) [][]byte { // want Sem:"blocks: sends on a channel"
	out := make([][]byte, len(paths))
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, p := range paths { // want `fan-out loop \(a goroutine per item and a WaitGroup limited by a semaphore channel\) whose body blocks \(calls os.ReadFile\): rewrite it as par.For\(len\(paths\), ...\) with par.Blocking\(8\)`
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			b, err := os.ReadFile(p)
			if err != nil {
				return
			}
			out[i] = b
		}()
	}
	wg.Wait()
	return out
}

// Sleeper sleeps through a helper: blocking is found through the call.
func Sleeper(n int) { // want Sleeper:"blocks: calls sync\\.WaitGroup\\.Wait"
	var wg sync.WaitGroup
	for i := 0; i < n; i++ { // want `whose body blocks \(calls fanout.nap, which calls time.Sleep\): rewrite it as par.For\(n, ...\) with par.Blocking\(max\(1, n\)\)`
		wg.Add(1)
		go func() {
			defer wg.Done()
			nap(i)
		}()
	}
	wg.Wait()
}

func nap(i int) { time.Sleep(time.Duration(i)) } // want nap:"blocks: calls time\\.Sleep"

// Sends sends on a channel.
func Sends(xs []int, ch chan<- int) { // want Sends:"blocks: sends on a channel"
	var wg sync.WaitGroup
	for _, x := range xs { // want `whose body blocks \(sends on a channel\)`
		wg.Add(1)
		go func() {
			defer wg.Done()
			ch <- x
		}()
	}
	wg.Wait()
}

// FourNaps has a constant count: the limit is the count itself.
func FourNaps() { // want FourNaps:"blocks: calls time\\.Sleep"
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ { // want `rewrite it as par.For\(4, ...\) with par.Blocking\(4\)`
		wg.Add(1)
		go func() {
			defer wg.Done()
			nap(i)
		}()
	}
	wg.Wait()
}

// ShadowedMax: the limit would need max(1, n), and max is a local name.
func ShadowedMax(n, max int) { // want ShadowedMax:"blocks: calls time\\.Sleep"
	var wg sync.WaitGroup
	for i := 0; i < n; i++ { // want `use par.For with par.Blocking\(max\(1, n\)\); no fix is offered: the name max is taken`
		wg.Add(1)
		go func() {
			defer wg.Done()
			nap(i + max)
		}()
	}
	wg.Wait()
}
