#include "textflag.h"

// func threadID() uint64: on windows/arm64, X18 holds the TEB's address,
// as the Go runtime's getlasterror reads it.
TEXT ·threadID(SB),NOSPLIT,$0-8
	MOVD	R18_PLATFORM, R0
	MOVD	R0, ret+0(FP)
	RET
