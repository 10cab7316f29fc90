// Package vecindex is the approximate nearest-neighbour index storage keeps
// per immutable segment for one vector column: an HNSW graph (Malkov and
// Yashunin) walked over 7-bit scalar-quantised codes, whose best candidates
// are re-ranked with exact float32 distances read from the caller's own
// vectors. It knows nothing of tables, files or SQL; a node's id is its row
// number in the segment.
//
// Layout. The graph is flat: layer 0 is one []uint32 with a fixed stride of
// 2M+1 words per row (a count, then up to 2M neighbours); the few rows that
// reach the upper layers keep M+1 words per layer in a second array. The
// codes are one byte per dimension, so a 384-d row costs 384 bytes of codes,
// 132 bytes of layer-0 links and 8 bytes of per-row terms (M = 16).
//
// Quantisation (quant.go). A value x[d] is coded as u = round((x[d] -
// lo[d]) / s) in 0..127, with a per-dimension offset lo and one global step
// s. A query is coded against the same offsets with its own step and base,
// so no query is clipped. Every metric's distance then reduces to one
// integer dot product of codes plus per-row and per-query terms. That dot
// product is AVX2 assembly on amd64 (codes_amd64.s, 32 codes per
// instruction pair) and elsewhere, or with the purego tag, pure Go that
// multiplies four codes at once in a 64-bit word (SWAR). Build links rows
// by the Euclidean distance of their codes; under InnerProduct each row is
// first extended by one coordinate that turns the largest inner product
// into the nearest neighbour.
//
// Memory. A walk is bound by cache misses on the rows it scores, each at a
// random place in the codes. So the walks (search and build alike) list a
// node's unvisited neighbours first, prefetch all their rows at once
// (codes_amd64.s; a no-op elsewhere) so that the misses overlap, and then
// score the list in one assembly call; a row's two terms sit side by side
// so they cost one line, and the visited set is a bitset that stays in
// cache. The large arrays sit on huge pages where the kernel allows, so
// the row reads do not miss the TLB as well. A large build groups the
// rows into cells of near rows and inserts them cell by cell on a copy
// laid out in that order (order.go), so that consecutive insertions
// read the same few megabytes.
//
// Filters. Search takes an allow predicate. A row it rejects still routes
// the walk but never enters the results; where few of a node's neighbours
// are accepted, the walk looks through the rejected ones to their own
// neighbours (ACORN-1). The walk goes on until it holds ef accepted rows or
// spends its budget; a filter so selective that the walk would cost more
// than scanning, or a walk that ends with fewer than k accepted rows, is
// answered by an exact scan of the accepted rows, so a filtered search
// returns min(k, accepted) rows.
package vecindex
