#include "textflag.h"

// func Line(p unsafe.Pointer)
TEXT ·Line(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ p+0(FP), AX
	PREFETCHT0 (AX)
	RET

// func Refs(x []float64, refs []int32)
TEXT ·Refs(SB), NOSPLIT|NOFRAME, $0-48
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), DX
	MOVQ refs_base+24(FP), DI
	MOVQ refs_len+32(FP), CX
	TESTQ CX, CX
	JEQ done
loop:
	MOVLQSX (DI), AX
	MOVQ AX, BX
	SARQ $63, BX
	XORQ BX, AX
	CMPQ AX, DX
	JAE skip
	PREFETCHT0 (SI)(AX*8)
skip:
	ADDQ $4, DI
	DECQ CX
	JNE loop
done:
	RET
