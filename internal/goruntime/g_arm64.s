#include "textflag.h"

// func G() uintptr: arm64 keeps the current g in a register (R28, named g).
TEXT ·G(SB),NOSPLIT,$0-8
	MOVD	g, R0
	MOVD	R0, ret+0(FP)
	RET
