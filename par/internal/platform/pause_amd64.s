#include "textflag.h"

// func Pause(n uint32)
// Executes PAUSE n times: the polite busy-wait hint (no syscall, no yield).
TEXT ·Pause(SB),NOSPLIT,$0-4
	MOVL n+0(FP), AX
	TESTL AX, AX
	JZ done
again:
	PAUSE
	SUBL $1, AX
	JNZ again
done:
	RET
