#include "textflag.h"

// func G() uintptr: the runtime's get_tls and g(r) macros (go_tls.h),
// written out because user packages cannot include that header. The
// assembler turns the TLS pseudo-register into this OS's g slot.
TEXT ·G(SB),NOSPLIT,$0-8
	MOVQ	TLS, CX
	MOVQ	0(CX)(TLS*1), AX
	MOVQ	AX, ret+0(FP)
	RET
