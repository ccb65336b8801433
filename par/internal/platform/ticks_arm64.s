#include "textflag.h"

// func Ticks() int64
// Reads the virtual counter (CNTVCT_EL0), the generic timer every arm64
// Linux system provides to user space.
TEXT ·Ticks(SB),NOSPLIT,$0-8
	MRS CNTVCT_EL0, R0
	MOVD R0, ret+0(FP)
	RET
