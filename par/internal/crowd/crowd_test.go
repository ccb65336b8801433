package crowd

import (
	"testing"

	"github.com/parloop/parloop/par/internal/platform"
)

// The tests date a Watch's last clock read (its t) in the past, for a slow
// chunk, or in the future, for a chunk that took no time at all, whatever
// the machine's load.

func fast() Watch { return Start(platform.Ticks() + platform.NsToTicks(1e9)) }

func ago(ns int64) int64 { return platform.Ticks() - platform.NsToTicks(ns) }

// Chunks double, for as long as no chunk lasts ChunkNs, at looks that read
// the clock and at looks that do not.
func TestChunksDoubleUntilOneIsLong(t *testing.T) {
	w := fast()
	size, ran := 1, 0
	for i := range 6 {
		ran += size
		if _, clocked := w.Look(ran); clocked != (i == 0) {
			t.Fatalf("look %d (%d indices) read the clock: %v; want only the first", i+1, ran, clocked)
		}
		next := w.Next(size)
		if next != 2*size {
			t.Fatalf("look %d: next chunk %d after %d, want double", i+1, next, size)
		}
		size = next
	}
	w.Look(ClockFrom) // from here on every look reads the clock
	w.t = platform.Ticks() + platform.NsToTicks(1e9)
	if w.Look(ClockFrom + 1); w.fixed || w.Next(size) != 2*size {
		t.Fatal("a short chunk stopped the doubling")
	}
	w.t = ago(ChunkNs)
	if _, clocked := w.Look(ClockFrom + 2); !clocked {
		t.Fatal("a look after ClockFrom indices did not read the clock")
	}
	if got := w.Next(size); got != size {
		t.Fatalf("after a chunk of ChunkNs the next chunk is %d, want %d (fixed)", got, size)
	}
	w.t = platform.Ticks() + platform.NsToTicks(1e9)
	w.Look(ClockFrom + 3)
	if got := w.Next(size); got != size {
		t.Fatalf("a fixed size changed to %d after a short chunk", got)
	}
}

// The first look always reads the clock; a slow first chunk makes every
// later look read it; a fast one lets the looks load the last answer
// until ClockFrom indices have run, and then read the clock at every look.
func TestWhenTheClockIsRead(t *testing.T) {
	w := Start(ago(SlowNs))
	if now, clocked := w.Look(1); !clocked || now == 0 {
		t.Fatalf("the first look: clocked %v at %d; want the clock read", clocked, now)
	}
	for ran := 2; ran < 10; ran++ {
		if _, clocked := w.Look(ran); !clocked {
			t.Fatalf("after a slow first chunk, the look at %d indices did not read the clock", ran)
		}
	}

	w = fast()
	if _, clocked := w.Look(1); !clocked {
		t.Fatal("the first look did not read the clock")
	}
	for ran := 2; ran < ClockFrom; ran *= 2 {
		if now, clocked := w.Look(ran); clocked || now != 0 {
			t.Fatalf("after a fast first chunk, the look at %d indices read the clock", ran)
		}
	}
	before := platform.Ticks()
	now, clocked := w.Look(ClockFrom)
	if !clocked || now < before {
		t.Fatalf("the look at ClockFrom indices: clocked %v at %d, want the clock read after %d", clocked, now, before)
	}
	w.t = platform.Ticks() + platform.NsToTicks(1e9) // fast chunks from here on
	for ran := ClockFrom + 1; ran < ClockFrom+5; ran++ {
		if _, clocked := w.Look(ran); !clocked {
			t.Fatalf("the look at %d indices, past ClockFrom, did not read the clock", ran)
		}
	}
}

// The first look, however long the first chunk, does not fix the size; it
// makes the later looks read the clock.
func TestFirstChunkNeverFixesTheSize(t *testing.T) {
	w := Start(ago(2 * ChunkNs))
	w.Look(1)
	if w.Next(4) != 8 {
		t.Fatal("a long first chunk stopped the doubling")
	}
	if !w.clock {
		t.Fatal("a long first chunk did not make the looks read the clock")
	}
}
