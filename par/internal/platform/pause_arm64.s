#include "textflag.h"

// func Pause(n uint32)
// Executes YIELD n times: the busy-wait hint (no syscall, no yield to Go).
TEXT ·Pause(SB),NOSPLIT,$0-4
	MOVWU n+0(FP), R0
	CBZ R0, done
again:
	YIELD
	SUBW $1, R0
	CBNZ R0, again
done:
	RET
