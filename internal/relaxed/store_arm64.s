#include "textflag.h"

// func StoreInt32(p *int32, v int32)
TEXT ·StoreInt32(SB), NOSPLIT|NOFRAME, $0-12
	MOVD p+0(FP), R0
	MOVW v+8(FP), R1
	MOVW R1, (R0)
	RET
