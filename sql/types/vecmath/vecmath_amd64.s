//go:build !purego

#include "textflag.h"

// AVX2 + FMA versions of the sums in vecmath.go. Elements are float32,
// sums float64: each step widens four floats (VCVTPS2PD) and fuses the
// multiply-add. Every routine has the same shape, so a sum computed by two
// of them is the same to the bit (dotAVX2(b, b) equals the third result of
// dotNormsAVX2(a, b)):
//
//	- blocks of 16 elements into four accumulators of four lanes,
//	- accumulators reduced as ((acc0+acc1) + (acc2+acc3)), then the lanes
//	  as ((l0+l2) + (l1+l3)),
//	- the last n%16 elements added one by one with scalar FMAs.
//
// The loops prefetch 4 KiB ahead of both operands: a scan reads rows that
// lie one after the other in the Arrow values buffer, and the hardware
// prefetcher alone keeps too few cache lines in flight for one core to
// reach the memory bandwidth (13 to 16 GB/s without, 21 to 25 GB/s with,
// on the 2-core Xeon the benchmarks were run on). Prefetching past the end
// of a buffer is harmless: prefetches never fault.
#define PREFETCH_AHEAD 4096

// REDUCE sums the four accumulators a0..a3 into the low lane of xa0
// (the X register of a0), using xt as scratch.
#define REDUCE(a0, a1, a2, a3, xa0, xt) \
	VADDPD a1, a0, a0 \
	VADDPD a3, a2, a2 \
	VADDPD a2, a0, a0 \
	VEXTRACTF128 $1, a0, xt \
	VADDPD xt, xa0, xa0 \
	VPERMILPD $1, xa0, xt \
	VADDSD xt, xa0, xa0

// func dotAVX2(a, b *float32, n int) float64
TEXT ·dotAVX2(SB), NOSPLIT, $0-32
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	MOVQ CX, BX
	SHRQ $4, BX
	JZ   dot_reduce

dot_loop:
	PREFETCHT0 PREFETCH_AHEAD(SI)
	PREFETCHT0 PREFETCH_AHEAD(DI)
	VCVTPS2PD 0(SI), Y8
	VCVTPS2PD 0(DI), Y9
	VFMADD231PD Y8, Y9, Y0
	VCVTPS2PD 16(SI), Y8
	VCVTPS2PD 16(DI), Y9
	VFMADD231PD Y8, Y9, Y1
	VCVTPS2PD 32(SI), Y8
	VCVTPS2PD 32(DI), Y9
	VFMADD231PD Y8, Y9, Y2
	VCVTPS2PD 48(SI), Y8
	VCVTPS2PD 48(DI), Y9
	VFMADD231PD Y8, Y9, Y3
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ BX
	JNZ  dot_loop

dot_reduce:
	REDUCE(Y0, Y1, Y2, Y3, X0, X15)
	ANDQ $15, CX
	JZ   dot_done

dot_tail:
	VMOVSS (SI), X8
	VMOVSS (DI), X9
	VCVTSS2SD X8, X8, X8
	VCVTSS2SD X9, X9, X9
	VFMADD231SD X8, X9, X0
	ADDQ $4, SI
	ADDQ $4, DI
	DECQ CX
	JNZ  dot_tail

dot_done:
	VZEROUPPER
	MOVSD X0, ret+24(FP)
	RET

// func dotNormAVX2(a, b *float32, n int, pf uintptr) (dot, aa float64)
// b is the constant side (a query vector, in cache): only pf, the next
// memory the caller will read, is prefetched.
TEXT ·dotNormAVX2(SB), NOSPLIT, $0-48
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	MOVQ pf+24(FP), R8
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	MOVQ CX, BX
	SHRQ $4, BX
	JZ   dn_reduce

dn_loop:
	PREFETCHT0 (R8)
	VCVTPS2PD 0(SI), Y8
	VCVTPS2PD 0(DI), Y9
	VFMADD231PD Y8, Y9, Y0
	VFMADD231PD Y8, Y8, Y4
	VCVTPS2PD 16(SI), Y8
	VCVTPS2PD 16(DI), Y9
	VFMADD231PD Y8, Y9, Y1
	VFMADD231PD Y8, Y8, Y5
	VCVTPS2PD 32(SI), Y8
	VCVTPS2PD 32(DI), Y9
	VFMADD231PD Y8, Y9, Y2
	VFMADD231PD Y8, Y8, Y6
	VCVTPS2PD 48(SI), Y8
	VCVTPS2PD 48(DI), Y9
	VFMADD231PD Y8, Y9, Y3
	VFMADD231PD Y8, Y8, Y7
	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ $64, R8
	DECQ BX
	JNZ  dn_loop

dn_reduce:
	REDUCE(Y0, Y1, Y2, Y3, X0, X15)
	REDUCE(Y4, Y5, Y6, Y7, X4, X15)
	ANDQ $15, CX
	JZ   dn_done

dn_tail:
	VMOVSS (SI), X8
	VMOVSS (DI), X9
	VCVTSS2SD X8, X8, X8
	VCVTSS2SD X9, X9, X9
	VFMADD231SD X8, X9, X0
	VFMADD231SD X8, X8, X4
	ADDQ $4, SI
	ADDQ $4, DI
	DECQ CX
	JNZ  dn_tail

dn_done:
	VZEROUPPER
	MOVSD X0, dot+32(FP)
	MOVSD X4, aa+40(FP)
	RET

// func dotNormsAVX2(a, b *float32, n int) (dot, aa, bb float64)
TEXT ·dotNormsAVX2(SB), NOSPLIT, $0-48
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	VXORPD Y12, Y12, Y12
	VXORPD Y13, Y13, Y13
	MOVQ CX, BX
	SHRQ $4, BX
	JZ   dns_reduce

dns_loop:
	PREFETCHT0 PREFETCH_AHEAD(SI)
	PREFETCHT0 PREFETCH_AHEAD(DI)
	VCVTPS2PD 0(SI), Y8
	VCVTPS2PD 0(DI), Y9
	VFMADD231PD Y8, Y9, Y0
	VFMADD231PD Y8, Y8, Y4
	VFMADD231PD Y9, Y9, Y10
	VCVTPS2PD 16(SI), Y8
	VCVTPS2PD 16(DI), Y9
	VFMADD231PD Y8, Y9, Y1
	VFMADD231PD Y8, Y8, Y5
	VFMADD231PD Y9, Y9, Y11
	VCVTPS2PD 32(SI), Y8
	VCVTPS2PD 32(DI), Y9
	VFMADD231PD Y8, Y9, Y2
	VFMADD231PD Y8, Y8, Y6
	VFMADD231PD Y9, Y9, Y12
	VCVTPS2PD 48(SI), Y8
	VCVTPS2PD 48(DI), Y9
	VFMADD231PD Y8, Y9, Y3
	VFMADD231PD Y8, Y8, Y7
	VFMADD231PD Y9, Y9, Y13
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ BX
	JNZ  dns_loop

dns_reduce:
	REDUCE(Y0, Y1, Y2, Y3, X0, X15)
	REDUCE(Y4, Y5, Y6, Y7, X4, X15)
	REDUCE(Y10, Y11, Y12, Y13, X10, X15)
	ANDQ $15, CX
	JZ   dns_done

dns_tail:
	VMOVSS (SI), X8
	VMOVSS (DI), X9
	VCVTSS2SD X8, X8, X8
	VCVTSS2SD X9, X9, X9
	VFMADD231SD X8, X9, X0
	VFMADD231SD X8, X8, X4
	VFMADD231SD X9, X9, X10
	ADDQ $4, SI
	ADDQ $4, DI
	DECQ CX
	JNZ  dns_tail

dns_done:
	VZEROUPPER
	MOVSD X0, dot+24(FP)
	MOVSD X4, aa+32(FP)
	MOVSD X10, bb+40(FP)
	RET

// func sqDistAVX2(a, b *float32, n int) float64
TEXT ·sqDistAVX2(SB), NOSPLIT, $0-32
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	MOVQ CX, BX
	SHRQ $4, BX
	JZ   sq_reduce

sq_loop:
	PREFETCHT0 PREFETCH_AHEAD(SI)
	PREFETCHT0 PREFETCH_AHEAD(DI)
	VCVTPS2PD 0(SI), Y8
	VCVTPS2PD 0(DI), Y9
	VSUBPD Y9, Y8, Y8
	VFMADD231PD Y8, Y8, Y0
	VCVTPS2PD 16(SI), Y8
	VCVTPS2PD 16(DI), Y9
	VSUBPD Y9, Y8, Y8
	VFMADD231PD Y8, Y8, Y1
	VCVTPS2PD 32(SI), Y8
	VCVTPS2PD 32(DI), Y9
	VSUBPD Y9, Y8, Y8
	VFMADD231PD Y8, Y8, Y2
	VCVTPS2PD 48(SI), Y8
	VCVTPS2PD 48(DI), Y9
	VSUBPD Y9, Y8, Y8
	VFMADD231PD Y8, Y8, Y3
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ BX
	JNZ  sq_loop

sq_reduce:
	REDUCE(Y0, Y1, Y2, Y3, X0, X15)
	ANDQ $15, CX
	JZ   sq_done

sq_tail:
	VMOVSS (SI), X8
	VMOVSS (DI), X9
	VCVTSS2SD X8, X8, X8
	VCVTSS2SD X9, X9, X9
	VSUBSD X9, X8, X8
	VFMADD231SD X8, X8, X0
	ADDQ $4, SI
	ADDQ $4, DI
	DECQ CX
	JNZ  sq_tail

sq_done:
	VZEROUPPER
	MOVSD X0, ret+24(FP)
	RET
