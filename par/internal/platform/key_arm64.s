#include "textflag.h"

// func getg() uintptr
// Returns the current g, which arm64 Go code keeps in register R28 (named g
// by the assembler). See key.go.
TEXT ·getg(SB),NOSPLIT,$0-8
	MOVD g, R0
	MOVD R0, ret+0(FP)
	RET
