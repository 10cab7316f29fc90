//go:build !purego

#include "textflag.h"

// func dotCodesAVX2(a, b *byte, n int) uint64
// Σ a[i]·b[i] over n bytes, n a multiple of 32, every byte at most 127:
// VPMADDUBSW multiplies unsigned by signed bytes and adds pairs into int16
// (at most 2·127² = 32258, so never saturating), VPMADDWD by ones adds
// pairs of those into int32 lanes.
TEXT ·dotCodesAVX2(SB), NOSPLIT, $0-32
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPCMPEQW Y15, Y15, Y15
	VPSRLW $15, Y15, Y15

loop64:
	CMPQ CX, $64
	JL   tail32
	VMOVDQU (SI), Y2
	VMOVDQU 32(SI), Y3
	VPMADDUBSW (DI), Y2, Y2
	VPMADDUBSW 32(DI), Y3, Y3
	VPMADDWD Y15, Y2, Y2
	VPMADDWD Y15, Y3, Y3
	VPADDD Y2, Y0, Y0
	VPADDD Y3, Y1, Y1
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $64, CX
	JMP  loop64

tail32:
	CMPQ CX, $32
	JL   done
	VMOVDQU (SI), Y2
	VPMADDUBSW (DI), Y2, Y2
	VPMADDWD Y15, Y2, Y2
	VPADDD Y2, Y0, Y0

done:
	VPADDD Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0x4E, X0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0xB1, X0, X1
	VPADDD X1, X0, X0
	VMOVD X0, AX
	VZEROUPPER
	MOVQ AX, ret+24(FP)
	RET

// func prefetchRows(codes *byte, stride uintptr, terms *float32, ids *uint32, n int)
// For each of the n row ids, PREFETCHT0 every 64-byte line of the row's
// stride bytes of codes at codes+id·stride, and the line of its two terms
// at terms+id·8. A prefetch never faults, and the addresses stay in
// registers, out of the garbage collector's sight.
TEXT ·prefetchRows(SB), NOSPLIT, $0-40
	MOVQ codes+0(FP), SI
	MOVQ stride+8(FP), R8
	MOVQ terms+16(FP), R10
	MOVQ ids+24(FP), DI
	MOVQ n+32(FP), CX
	TESTQ CX, CX
	JLE   pdone

prow:
	MOVL (DI), AX
	LEAQ (R10)(AX*8), BX
	PREFETCHT0 (BX)
	IMULQ R8, AX
	ADDQ  SI, AX
	LEAQ  (AX)(R8*1), DX
	ANDQ  $-64, AX

pline:
	PREFETCHT0 (AX)
	ADDQ $64, AX
	CMPQ AX, DX
	JB   pline
	ADDQ $4, DI
	DECQ CX
	JNZ  prow

pdone:
	RET

// func prefetchSpan(p unsafe.Pointer, n uintptr)
// PREFETCHT0 every 64-byte line of the n > 0 bytes at p.
TEXT ·prefetchSpan(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), DX
	ADDQ AX, DX
	ANDQ $-64, AX

sline:
	PREFETCHT0 (AX)
	ADDQ $64, AX
	CMPQ AX, DX
	JB   sline
	RET

// func dotRows(q, codes *byte, stride uintptr, ids *uint32, n int, out *uint32)
// out[i] = Σ q[j]·row[j] over the stride bytes (a multiple of 8) of each
// of the n rows ids[i] at codes+ids[i]·stride: dotCodesAVX2 over a list of
// rows in one call, 64 bytes a step, then 32, then 8.
TEXT ·dotRows(SB), NOSPLIT, $0-48
	MOVQ q+0(FP), SI
	MOVQ codes+8(FP), R8
	MOVQ stride+16(FP), R9
	MOVQ ids+24(FP), R10
	MOVQ n+32(FP), R11
	MOVQ out+40(FP), R12
	VPCMPEQW Y15, Y15, Y15
	VPSRLW $15, Y15, Y15
	TESTQ R11, R11
	JLE   rdone

rrow:
	MOVL  (R10), DI
	IMULQ R9, DI
	ADDQ  R8, DI
	MOVQ  SI, AX
	MOVQ  R9, CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y4, Y4, Y4

r64:
	CMPQ CX, $64
	JL   r32
	VMOVDQU (AX), Y2
	VMOVDQU 32(AX), Y3
	VPMADDUBSW (DI), Y2, Y2
	VPMADDUBSW 32(DI), Y3, Y3
	VPMADDWD Y15, Y2, Y2
	VPMADDWD Y15, Y3, Y3
	VPADDD Y2, Y0, Y0
	VPADDD Y3, Y1, Y1
	ADDQ $64, AX
	ADDQ $64, DI
	SUBQ $64, CX
	JMP  r64

r32:
	CMPQ CX, $32
	JL   r8
	VMOVDQU (AX), Y2
	VPMADDUBSW (DI), Y2, Y2
	VPMADDWD Y15, Y2, Y2
	VPADDD Y2, Y0, Y0
	ADDQ $32, AX
	ADDQ $32, DI
	SUBQ $32, CX

r8:
	CMPQ CX, $8
	JL   rsum
	VMOVQ (AX), X2
	VMOVQ (DI), X3
	VPMADDUBSW X3, X2, X2
	VPMADDWD X15, X2, X2
	VPADDD X2, X4, X4
	ADDQ $8, AX
	ADDQ $8, DI
	SUBQ $8, CX
	JMP  r8

rsum:
	VPADDD Y1, Y0, Y0
	VPADDD Y4, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0x4E, X0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0xB1, X0, X1
	VPADDD X1, X0, X0
	VMOVD X0, (R12)
	ADDQ  $4, R10
	ADDQ  $4, R12
	DECQ  R11
	JNZ   rrow

rdone:
	VZEROUPPER
	RET
