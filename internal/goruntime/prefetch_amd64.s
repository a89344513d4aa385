#include "textflag.h"

// func PrefetchLines(addr uintptr, n uintptr)
TEXT ·PrefetchLines(SB),NOSPLIT|NOFRAME,$0-16
	MOVQ	addr+0(FP), AX
	MOVQ	n+8(FP), CX
	TESTQ	CX, CX
	JZ	done
loop:
	PREFETCHT0	(AX)
	ADDQ	$64, AX
	DECQ	CX
	JNZ	loop
done:
	RET
