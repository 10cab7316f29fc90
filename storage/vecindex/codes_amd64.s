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
