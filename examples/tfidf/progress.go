package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// isTerminal reports whether w is a terminal, where a progress bar belongs.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// barTick is how often the bar is redrawn.
const barTick = 100 * time.Millisecond

// startBar draws a progress bar of a build on w, the files and bytes done
// out of the totals, with the rate and the time left, until the returned
// stop is called. It reads m from a goroutine of its own every barTick:
// par.Progress's Done and Total for parloop's strategies, the hand-written
// strategies' own count otherwise.
func startBar(w io.Writer, name string, files, bytes int64, m *meter) (stop func()) {
	bar := progressbar.NewOptions64(bytes,
		progressbar.OptionSetWriter(w),
		progressbar.OptionShowBytes(true),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(barTick),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetDescription(fmt.Sprintf("%-10s %6d/%d files", name, 0, files)),
	)
	quit, done := make(chan struct{}), make(chan struct{})
	update := func() {
		f, b := m.done()
		total := files
		if t := m.prog.Total(); t > 0 { // a parloop call has started
			total = t
		}
		bar.Describe(fmt.Sprintf("%-10s %6d/%d files", name, f, total))
		_ = bar.Set64(b)
	}
	go func() {
		defer close(done)
		tick := time.NewTicker(barTick)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				update()
			case <-quit:
				return
			}
		}
	}()
	return func() {
		close(quit)
		<-done
		update()
		_ = bar.Finish()
	}
}
