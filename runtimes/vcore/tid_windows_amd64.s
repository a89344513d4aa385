#include "textflag.h"

// func threadID() uint64: GS:0x30 is the TEB's own address (NT_TIB.Self),
// as the Go runtime's getlasterror reads it.
TEXT ·threadID(SB),NOSPLIT,$0-8
	MOVQ	0x30(GS), AX
	MOVQ	AX, ret+0(FP)
	RET
