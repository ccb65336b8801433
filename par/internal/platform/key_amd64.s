#include "textflag.h"

// func getg() uintptr
// Returns the address of the current goroutine's g, read from thread-local
// storage. The g of a goroutine never moves (Go's heap is non-moving) and is
// fixed for the goroutine's life, so it is a valid key while the goroutine
// runs. See key.go.
TEXT ·getg(SB),NOSPLIT,$0-8
	MOVQ (TLS), AX
	MOVQ AX, ret+0(FP)
	RET
