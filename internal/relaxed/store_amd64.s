#include "textflag.h"

// func StoreInt32(p *int32, v int32)
TEXT ·StoreInt32(SB), NOSPLIT|NOFRAME, $0-12
	MOVQ p+0(FP), AX
	MOVL v+8(FP), BX
	MOVL BX, 0(AX)
	RET
