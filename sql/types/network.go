package types

// The network address types inet, cidr, macaddr and macaddr8: their datums,
// text input and output (PostgreSQL's inet_net_pton, inet_net_ntop and
// inet_cidr_ntop, macaddr_in and macaddr8_in, which this file follows
// quirk for quirk), binary send and receive, and btree order. Columns of
// them are stored as their canonical text (like numeric), which ValueAt
// reads back into datums.

import (
	"strconv"
	"strings"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
)

// InetValue is an inet or cidr datum: an IPv4 (V6 false, the address in
// Addr[:4], the rest zero) or IPv6 address and its netmask length Bits. A
// cidr has no bit set to the right of its mask; an inet may. IsCIDR marks
// a cidr's datum, so that one whose type does not travel with it (a field
// of an anonymous record) still prints as cidr; comparisons and keys leave
// it out, as PostgreSQL's inet and cidr values compare alike.
type InetValue struct {
	Addr   [16]byte
	Bits   uint8
	V6     bool
	IsCIDR bool
}

// MacAddrValue is a macaddr datum (EUI-48).
type MacAddrValue [6]byte

// MacAddr8Value is a macaddr8 datum (EUI-64).
type MacAddr8Value [8]byte

// IsNetwork reports whether t is inet or cidr.
func (t T) IsNetwork() bool { return t.Family == Inet || t.Family == CIDR }

// isNetFamily reports whether f is one of the address types this file
// defines, whose columns hold canonical text.
func isNetFamily(f Family) bool {
	return f == Inet || f == CIDR || f == MacAddr || f == MacAddr8
}

// MaxBits is the address's width: 32 for IPv4, 128 for IPv6.
func (v InetValue) MaxBits() int {
	if v.V6 {
		return 128
	}
	return 32
}

// Size is the address's length in bytes: 4 or 16.
func (v InetValue) Size() int { return v.MaxBits() / 8 }

// Family is what family() returns: 4 or 6.
func (v InetValue) Family() int {
	if v.V6 {
		return 6
	}
	return 4
}

// pgFamily is the family byte of the binary format (PGSQL_AF_INET and
// PGSQL_AF_INET6).
func (v InetValue) pgFamily() byte {
	if v.V6 {
		return 3
	}
	return 2
}

// Network returns the cidr of v's first bits: every bit right of them
// cleared and the mask length bits (cidr_set_masklen_internal).
func (v InetValue) Network(bits int) InetValue {
	out := InetValue{V6: v.V6, Bits: uint8(bits), IsCIDR: true}
	n := (bits + 7) / 8
	copy(out.Addr[:n], v.Addr[:n])
	if bits%8 != 0 {
		out.Addr[bits/8] &^= 0xff >> (bits % 8)
	}
	return out
}

// HostBitsZero reports whether no bit right of the mask is set (addressOK).
func (v InetValue) HostBitsZero() bool {
	return v.Network(int(v.Bits)).Addr == v.Addr
}

// BitCompare compares the first n bits of two addresses (bitncmp).
func BitCompare(a, b *[16]byte, n int) int {
	for i := 0; i < n/8; i++ {
		if a[i] != b[i] {
			return cmpInt(int(a[i]), int(b[i]))
		}
	}
	if r := n % 8; r != 0 {
		mask := byte(0xff) << (8 - r)
		return cmpInt(int(a[n/8]&mask), int(b[n/8]&mask))
	}
	return 0
}

// CommonBits is how many leading bits, up to n, two addresses share
// (bitncommon).
func CommonBits(a, b *[16]byte, n int) int {
	i := 0
	for i < n && (a[i/8]^b[i/8])&(0x80>>(i%8)) == 0 {
		i++
	}
	return i
}

// CompareInet is network_cmp: IPv4 before IPv6, then the network part
// (the bits both masks cover), then the mask length, then the whole
// address.
func CompareInet(a, b InetValue) int {
	if a.V6 != b.V6 {
		if b.V6 {
			return -1
		}
		return 1
	}
	if c := BitCompare(&a.Addr, &b.Addr, int(min(a.Bits, b.Bits))); c != 0 {
		return c
	}
	if c := cmpInt(int(a.Bits), int(b.Bits)); c != 0 {
		return c
	}
	return BitCompare(&a.Addr, &b.Addr, a.MaxBits())
}

// ParseInet is inet_in (cidr false) and cidr_in (cidr true).
func ParseInet(s string, cidr bool) (InetValue, error) {
	var v InetValue
	var bits int
	if strings.IndexByte(s, ':') >= 0 {
		v.V6 = true
		bits = parseIPv6(s, &v.Addr)
	} else if cidr {
		bits = parseCIDRv4(s, &v.Addr)
	} else {
		bits = parseInetv4(s, &v.Addr)
	}
	name := "inet"
	if cidr {
		name = "cidr"
	}
	if bits < 0 || bits > v.MaxBits() {
		return InetValue{}, pgerr.New(pgerrcode.InvalidTextRepresentation, "invalid input syntax for type %s: \"%s\"", name, s)
	}
	v.Bits, v.IsCIDR = uint8(bits), cidr
	if cidr && !v.HostBitsZero() {
		return InetValue{}, pgerr.New(pgerrcode.InvalidTextRepresentation, "invalid cidr value: \"%s\"", s).
			WithDetail("Value has bits set to right of mask.")
	}
	return v, nil
}

// HostAddr is the inet of a connection's IP address as Go's net package
// prints it, without an IPv6 zone (which inet cannot hold, and which
// PostgreSQL's clean_ipv6_addr drops); ok is false for "" (a Unix socket)
// and anything else that is no address.
func HostAddr(addr string) (v InetValue, ok bool) {
	if i := strings.IndexByte(addr, '%'); i >= 0 {
		addr = addr[:i]
	}
	v, err := ParseInet(addr, false)
	return v, err == nil && addr != ""
}

// at is s[i], or 0 past its end (the C string's NUL).
func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

// parseInetv4 is inet_net_pton_ipv4: dotted decimal octets and an optional
// /bits; without /bits all four octets are required. It returns the mask
// length or -1.
func parseInetv4(s string, dst *[16]byte) int {
	i, n := 0, 0
	var ch byte
	for {
		ch = at(s, i)
		i++
		if !isDigit(ch) {
			break
		}
		tmp := 0
		for {
			tmp = tmp*10 + int(ch-'0')
			if tmp > 255 {
				return -1
			}
			ch = at(s, i)
			i++
			if ch == 0 || !isDigit(ch) {
				break
			}
		}
		if n == 4 {
			return -1
		}
		dst[n] = byte(tmp)
		n++
		if ch == 0 || ch == '/' {
			break
		}
		if ch != '.' {
			return -1
		}
	}
	bits := -1
	if ch == '/' && isDigit(at(s, i)) && n > 0 {
		ch = at(s, i)
		i++
		bits = 0
		for {
			bits = bits*10 + int(ch-'0')
			if bits > 32 {
				return -1
			}
			ch = at(s, i)
			i++
			if ch == 0 || !isDigit(ch) {
				break
			}
		}
		if ch != 0 {
			return -1
		}
	}
	if ch != 0 {
		return -1
	}
	if bits == -1 {
		if n != 4 {
			return -1
		}
		bits = 32
	}
	if n == 0 || bits/8 > n {
		return -1
	}
	return bits
}

// parseCIDRv4 is inet_cidr_pton_ipv4: hex (0x...) or dotted decimal
// octets, possibly fewer than four, and an optional /bits; without /bits
// the mask comes from the address's class.
func parseCIDRv4(s string, dst *[16]byte) int {
	i, n := 0, 0
	ch := at(s, i)
	i++
	switch {
	case ch == '0' && (at(s, i) == 'x' || at(s, i) == 'X') && hexVal(at(s, i+1)) >= 0:
		i++
		dirty, tmp := 0, 0
		for {
			ch = at(s, i)
			i++
			if ch == 0 || hexVal(ch) < 0 {
				break
			}
			if dirty == 0 {
				tmp = hexVal(ch)
			} else {
				tmp = tmp<<4 | hexVal(ch)
			}
			dirty++
			if dirty == 2 {
				if n == 4 {
					return -1
				}
				dst[n] = byte(tmp)
				n++
				dirty = 0
			}
		}
		if dirty != 0 {
			if n == 4 {
				return -1
			}
			dst[n] = byte(tmp << 4)
			n++
		}
	case isDigit(ch):
		for {
			tmp := 0
			for {
				tmp = tmp*10 + int(ch-'0')
				if tmp > 255 {
					return -1
				}
				ch = at(s, i)
				i++
				if ch == 0 || !isDigit(ch) {
					break
				}
			}
			if n == 4 {
				return -1
			}
			dst[n] = byte(tmp)
			n++
			if ch == 0 || ch == '/' {
				break
			}
			if ch != '.' {
				return -1
			}
			ch = at(s, i)
			i++
			if !isDigit(ch) {
				return -1
			}
		}
	default:
		return -1
	}
	bits := -1
	if ch == '/' && isDigit(at(s, i)) && n > 0 {
		ch = at(s, i)
		i++
		bits = 0
		for {
			bits = bits*10 + int(ch-'0')
			if bits > 1000 {
				return -1
			}
			ch = at(s, i)
			i++
			if ch == 0 || !isDigit(ch) {
				break
			}
		}
		if ch != 0 || bits > 32 {
			return -1
		}
	}
	if ch != 0 || n == 0 {
		return -1
	}
	if bits == -1 {
		switch first := dst[0]; {
		case first >= 240:
			bits = 32
		case first >= 224:
			bits = 4
		case first >= 192:
			bits = 24
		case first >= 128:
			bits = 16
		default:
			bits = 8
		}
		if bits >= 8 && bits < n*8 {
			bits = n * 8
		}
	}
	return bits
}

// parseIPv6 is inet_cidr_pton_ipv6: groups of up to four hex digits, one
// "::", an optional trailing dotted IPv4 part and /bits (no leading zeros,
// at most 128).
func parseIPv6(s string, dst *[16]byte) int {
	var tmp [16]byte
	tp, colonp := 0, -1
	i := 0
	if at(s, i) == ':' {
		i++
		if at(s, i) != ':' {
			return -1
		}
	}
	curtok := i
	sawX, val, digits, bits := false, 0, 0, -1
	for i < len(s) {
		ch := s[i]
		i++
		if h := hexVal(ch); h >= 0 {
			val = val<<4 | h
			digits++
			if digits > 4 {
				return -1
			}
			sawX = true
			continue
		}
		if ch == ':' {
			curtok = i
			if !sawX {
				if colonp >= 0 {
					return -1
				}
				colonp = tp
				continue
			} else if i >= len(s) {
				return -1
			}
			if tp+2 > 16 {
				return -1
			}
			tmp[tp], tmp[tp+1] = byte(val>>8), byte(val)
			tp += 2
			sawX, digits, val = false, 0, 0
			continue
		}
		if ch == '.' && tp+4 <= 16 && getv4(s[curtok:], tmp[tp:tp+4], &bits) {
			tp += 4
			sawX = false
			break
		}
		if ch == '/' {
			if b, ok := getBits(s[i:]); ok {
				bits = b
				break
			}
		}
		return -1
	}
	if sawX {
		if tp+2 > 16 {
			return -1
		}
		tmp[tp], tmp[tp+1] = byte(val>>8), byte(val)
		tp += 2
	}
	if bits == -1 {
		bits = 128
	}
	if colonp >= 0 {
		if tp == 16 {
			return -1
		}
		n := tp - colonp
		for k := 1; k <= n; k++ {
			tmp[16-k] = tmp[colonp+n-k]
			tmp[colonp+n-k] = 0
		}
		tp = 16
	}
	if tp != 16 {
		return -1
	}
	*dst = tmp
	return bits
}

// getBits reads the /bits of an IPv6 address: decimal, no leading zeros,
// at most 128.
func getBits(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	val := 0
	for n, c := range []byte(s) {
		if !isDigit(c) {
			return 0, false
		}
		if n != 0 && val == 0 {
			return 0, false
		}
		val = val*10 + int(c-'0')
		if val > 128 {
			return 0, false
		}
	}
	return val, true
}

// getv4 reads the dotted IPv4 tail of an IPv6 address (and its /bits)
// into dst: up to four octets without leading zeros.
func getv4(s string, dst []byte, bits *int) bool {
	n, val, digits := 0, 0, 0
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if isDigit(ch) {
			if digits != 0 && val == 0 {
				return false
			}
			digits++
			val = val*10 + int(ch-'0')
			if val > 255 {
				return false
			}
			continue
		}
		if ch == '.' || ch == '/' {
			if n > 3 {
				return false
			}
			dst[n] = byte(val)
			n++
			if ch == '/' {
				b, ok := getBits(s[i+1:])
				if ok {
					*bits = b
				}
				return ok
			}
			val, digits = 0, 0
			continue
		}
		return false
	}
	if digits == 0 || n > 3 {
		return false
	}
	dst[n] = byte(val)
	return true
}

// AppendInet appends inet_out's (cidr false) or cidr_out's text of v: the
// address, then /bits unless it is the full width (always for cidr).
func AppendInet(dst []byte, v InetValue, cidr bool) []byte {
	dst = appendInetAddr(dst, v)
	if cidr || int(v.Bits) != v.MaxBits() {
		dst = append(dst, '/')
		dst = strconv.AppendInt(dst, int64(v.Bits), 10)
	}
	return dst
}

// InetHost is host(): the address alone.
func InetHost(v InetValue) string { return string(appendInetAddr(nil, v)) }

// InetText is the inet and cidr cast to text (network_show): the address
// and always its /bits.
func InetText(v InetValue) string { return string(AppendInet(nil, v, true)) }

// appendInetAddr is inet_net_ntop without the mask: all four IPv4 octets,
// or IPv6 with its longest run of two or more zero groups as "::" and an
// IPv4-mapped or -compatible tail in dotted form.
func appendInetAddr(dst []byte, v InetValue) []byte {
	if !v.V6 {
		for i := 0; i < 4; i++ {
			if i > 0 {
				dst = append(dst, '.')
			}
			dst = strconv.AppendInt(dst, int64(v.Addr[i]), 10)
		}
		return dst
	}
	var words [8]int
	for i := range words {
		words[i] = int(v.Addr[2*i])<<8 | int(v.Addr[2*i+1])
	}
	bestBase, bestLen, curBase, curLen := -1, 0, -1, 0
	for i, w := range words {
		if w == 0 {
			if curBase == -1 {
				curBase, curLen = i, 1
			} else {
				curLen++
			}
			continue
		}
		if curBase != -1 {
			if bestBase == -1 || curLen > bestLen {
				bestBase, bestLen = curBase, curLen
			}
			curBase = -1
		}
	}
	if curBase != -1 && (bestBase == -1 || curLen > bestLen) {
		bestBase, bestLen = curBase, curLen
	}
	if bestBase != -1 && bestLen < 2 {
		bestBase = -1
	}
	for i := 0; i < 8; i++ {
		if bestBase != -1 && i >= bestBase && i < bestBase+bestLen {
			if i == bestBase {
				dst = append(dst, ':')
			}
			continue
		}
		if i != 0 {
			dst = append(dst, ':')
		}
		if i == 6 && bestBase == 0 && (bestLen == 6 || (bestLen == 7 && words[7] != 1) || (bestLen == 5 && words[5] == 0xffff)) {
			for k := 12; k < 16; k++ {
				if k > 12 {
					dst = append(dst, '.')
				}
				dst = strconv.AppendInt(dst, int64(v.Addr[k]), 10)
			}
			return dst
		}
		dst = strconv.AppendInt(dst, int64(words[i]), 16)
	}
	if bestBase != -1 && bestBase+bestLen == 8 {
		dst = append(dst, ':')
	}
	return dst
}

// CIDRAbbrev is abbrev(cidr) (inet_cidr_ntop): the network with only the
// octets (IPv4) or groups (IPv6) its mask covers, and /bits.
func CIDRAbbrev(v InetValue) string {
	var dst []byte
	bits := int(v.Bits)
	if !v.V6 {
		if bits == 0 {
			dst = append(dst, '0')
		}
		for b := 0; b < bits/8; b++ {
			if b > 0 {
				dst = append(dst, '.')
			}
			dst = strconv.AppendInt(dst, int64(v.Addr[b]), 10)
		}
		if r := bits % 8; r > 0 {
			if len(dst) > 0 {
				dst = append(dst, '.')
			}
			m := byte(((1 << r) - 1) << (8 - r))
			dst = strconv.AppendInt(dst, int64(v.Addr[bits/8]&m), 10)
		}
		return string(strconv.AppendInt(append(dst, '/'), int64(bits), 10))
	}
	if bits == 0 {
		return "::/0"
	}
	s := v.Network(bits).Addr
	words := (bits + 15) / 16
	if words == 1 {
		words = 2
	}
	zeroS, zeroL, tmpS, tmpL := 0, 0, 0, 0
	for i := 0; i < words*2; i += 2 {
		if s[i]|s[i+1] == 0 {
			if tmpL == 0 {
				tmpS = i / 2
			}
			tmpL++
		} else if tmpL != 0 && zeroL < tmpL {
			zeroS, zeroL, tmpL = tmpS, tmpL, 0
		}
	}
	if tmpL != 0 && zeroL < tmpL {
		zeroS, zeroL = tmpS, tmpL
	}
	isV4 := zeroL != words && zeroS == 0 && (zeroL == 6 || (zeroL == 5 && s[10] == 0xff && s[11] == 0xff) || (zeroL == 7 && s[14] != 0 && s[15] != 1))
	k := 0
	for p := 0; p < words; p++ {
		if zeroL != 0 && p >= zeroS && p < zeroS+zeroL {
			if p == zeroS {
				dst = append(dst, ':')
			}
			if p == words-1 {
				dst = append(dst, ':')
			}
			k += 2
			continue
		}
		if isV4 && p > 5 {
			if p == 6 {
				dst = append(dst, ':')
			} else {
				dst = append(dst, '.')
			}
			dst = strconv.AppendInt(dst, int64(s[k]), 10)
			k++
			if p != 7 || bits > 120 {
				dst = append(dst, '.')
				dst = strconv.AppendInt(dst, int64(s[k]), 10)
				k++
			}
			continue
		}
		if len(dst) > 0 {
			dst = append(dst, ':')
		}
		dst = strconv.AppendInt(dst, int64(s[k])*256+int64(s[k+1]), 16)
		k += 2
	}
	return string(strconv.AppendInt(append(dst, '/'), int64(bits), 10))
}

// appendInetBinary is network_send.
func appendInetBinary(dst []byte, v InetValue, cidr bool) []byte {
	isCIDR := byte(0)
	if cidr {
		isCIDR = 1
	}
	dst = append(dst, v.pgFamily(), v.Bits, isCIDR, byte(v.Size()))
	return append(dst, v.Addr[:v.Size()]...)
}

// decodeInetBinary is network_recv: family, bits, is_cidr (ignored),
// length, address.
func decodeInetBinary(src []byte, cidr bool) (InetValue, error) {
	name := "inet"
	if cidr {
		name = "cidr"
	}
	var v InetValue
	if len(src) < 1 {
		return v, errInsufficient()
	}
	switch src[0] {
	case 2:
	case 3:
		v.V6 = true
	default:
		return v, errBinaryMsg("invalid address family in external \"%s\" value", name)
	}
	if len(src) < 2 {
		return v, errInsufficient()
	}
	if int(src[1]) > v.MaxBits() {
		return v, errBinaryMsg("invalid bits in external \"%s\" value", name)
	}
	v.Bits = src[1]
	if len(src) < 4 {
		return v, errInsufficient()
	}
	if int(src[3]) != v.Size() {
		return v, errBinaryMsg("invalid length in external \"%s\" value", name)
	}
	if len(src) < 4+v.Size() {
		return v, errInsufficient()
	}
	if len(src) > 4+v.Size() {
		return v, errBinaryFormat()
	}
	copy(v.Addr[:], src[4:])
	v.IsCIDR = cidr
	if cidr && !v.HostBitsZero() {
		return v, errBinaryMsg("invalid external \"cidr\" value").WithDetail("Value has bits set to right of mask.")
	}
	return v, nil
}

// macFormats are macaddr_in's sscanf formats, tried in order: each is six
// hex fields, with a field width (0 for none) and the separator that
// follows the field.
var macFormats = [][6]struct {
	width int
	sep   byte
}{
	{{0, ':'}, {0, ':'}, {0, ':'}, {0, ':'}, {0, ':'}, {0, 0}},
	{{0, '-'}, {0, '-'}, {0, '-'}, {0, '-'}, {0, '-'}, {0, 0}},
	{{2, 0}, {2, 0}, {2, ':'}, {2, 0}, {2, 0}, {2, 0}},
	{{2, 0}, {2, 0}, {2, '-'}, {2, 0}, {2, 0}, {2, 0}},
	{{2, 0}, {2, '.'}, {2, 0}, {2, '.'}, {2, 0}, {2, 0}},
	{{2, 0}, {2, '-'}, {2, 0}, {2, '-'}, {2, 0}, {2, 0}},
	{{2, 0}, {2, 0}, {2, 0}, {2, 0}, {2, 0}, {2, 0}},
}

// scanHex is sscanf's %x (width 0: unlimited): leading white space, an
// optional sign and 0x prefix, then hex digits.
func scanHex(s string, i, width int) (val int64, next int, ok bool) {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	limit := len(s)
	if width > 0 && i+width < limit {
		limit = i + width
	}
	neg := false
	if i < limit && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if i+1 < limit && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') && i+2 < limit && hexVal(s[i+2]) >= 0 {
		i += 2
	}
	start := i
	for i < limit && hexVal(s[i]) >= 0 {
		if val < 1<<40 {
			val = val<<4 | int64(hexVal(s[i]))
		}
		i++
	}
	if i == start {
		return 0, i, false
	}
	if neg {
		val = -val
	}
	return val, i, true
}

// ParseMacAddr is macaddr_in: six hex fields in one of its seven forms.
func ParseMacAddr(s string) (MacAddrValue, error) {
	var v MacAddrValue
	for _, f := range macFormats {
		var vals [6]int64
		i, ok := 0, true
		for k, field := range f {
			vals[k], i, ok = scanHex(s, i, field.width)
			if !ok {
				break
			}
			if field.sep != 0 {
				if at(s, i) != field.sep {
					ok = false
					break
				}
				i++
			}
		}
		if !ok || strings.TrimLeft(s[i:], " \t\n\v\f\r") != "" {
			continue
		}
		for k, x := range vals {
			if x < 0 || x > 255 {
				return v, pgerr.New(pgerrcode.NumericValueOutOfRange, "invalid octet value in \"macaddr\" value: \"%s\"", s)
			}
			v[k] = byte(x)
		}
		return v, nil
	}
	return v, pgerr.New(pgerrcode.InvalidTextRepresentation, "invalid input syntax for type macaddr: \"%s\"", s)
}

// ParseMacAddr8 is macaddr8_in: six or eight pairs of hex digits, each
// pair optionally followed by one separator (':', '-' or '.', the same
// throughout); six bytes become EUI-64 with FF:FE in the middle.
func ParseMacAddr8(s string) (MacAddr8Value, error) {
	var b [8]byte
	fail := pgerr.New(pgerrcode.InvalidTextRepresentation, "invalid input syntax for type macaddr8: \"%s\"", s)
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	count := 0
	var spacer byte
	for i+1 < len(s) {
		count++
		if count > 8 {
			return MacAddr8Value{}, fail
		}
		hi, lo := hexVal(s[i]), hexVal(s[i+1])
		if hi < 0 || lo < 0 {
			return MacAddr8Value{}, fail
		}
		b[count-1] = byte(hi<<4 | lo)
		i += 2
		if c := at(s, i); c == ':' || c == '-' || c == '.' {
			if spacer == 0 {
				spacer = c
			} else if spacer != c {
				return MacAddr8Value{}, fail
			}
			i++
		}
		if (count == 6 || count == 8) && isSpace(at(s, i)) {
			for i++; i < len(s) && isSpace(s[i]); i++ {
			}
			if i < len(s) {
				return MacAddr8Value{}, fail
			}
		}
	}
	switch count {
	case 6:
		return MacAddr8Value{b[0], b[1], b[2], 0xff, 0xfe, b[3], b[4], b[5]}, nil
	case 8:
		return MacAddr8Value(b), nil
	}
	return MacAddr8Value{}, fail
}

// MacAddrTo8 is the macaddr to macaddr8 cast: FF:FE in the middle.
func MacAddrTo8(m MacAddrValue) MacAddr8Value {
	return MacAddr8Value{m[0], m[1], m[2], 0xff, 0xfe, m[3], m[4], m[5]}
}

// MacAddr8To6 is the macaddr8 to macaddr cast, which only addresses with
// FF:FE as their 4th and 5th bytes survive.
func MacAddr8To6(m MacAddr8Value) (MacAddrValue, error) {
	if m[3] != 0xff || m[4] != 0xfe {
		return MacAddrValue{}, pgerr.New(pgerrcode.NumericValueOutOfRange, "macaddr8 data out of range to convert to macaddr").
			WithHint("Only addresses that have FF and FE as values in the 4th and 5th bytes from the left, for example xx:xx:xx:ff:fe:xx:xx:xx, are eligible to be converted from macaddr8 to macaddr.")
	}
	return MacAddrValue{m[0], m[1], m[2], m[5], m[6], m[7]}, nil
}

// appendMac appends the bytes of a MAC address as colon-separated lower
// case hex pairs (macaddr_out, macaddr8_out).
func appendMac(dst []byte, b []byte) []byte {
	const hexDigits = "0123456789abcdef"
	for i, x := range b {
		if i > 0 {
			dst = append(dst, ':')
		}
		dst = append(dst, hexDigits[x>>4], hexDigits[x&15])
	}
	return dst
}

// toInet accepts an InetValue or its text (read as inet, or as cidr for a
// cidr column).
func toInet(v any, t T) (InetValue, bool) {
	switch x := v.(type) {
	case InetValue:
		return x, true
	case string:
		iv, err := ParseInet(x, t.Family == CIDR)
		return iv, err == nil
	}
	return InetValue{}, false
}

func toMacAddr(v any) (MacAddrValue, bool) {
	switch x := v.(type) {
	case MacAddrValue:
		return x, true
	case string:
		m, err := ParseMacAddr(x)
		return m, err == nil
	}
	return MacAddrValue{}, false
}

func toMacAddr8(v any) (MacAddr8Value, bool) {
	switch x := v.(type) {
	case MacAddr8Value:
		return x, true
	case MacAddrValue:
		return MacAddrTo8(x), true
	case string:
		m, err := ParseMacAddr8(x)
		return m, err == nil
	}
	return MacAddr8Value{}, false
}

// netDatum converts a value of a network type to its datum: text (a
// stored column's canonical form, or input) is parsed; ok is false when
// v is neither the datum nor valid text.
func netDatum(v any, t T) (any, bool) {
	switch t.Family {
	case Inet, CIDR:
		return toInet(v, t)
	case MacAddr:
		return toMacAddr(v)
	case MacAddr8:
		return toMacAddr8(v)
	}
	return nil, false
}

// appendNetText is the output function of the network types.
func appendNetText(dst []byte, v any, t T) ([]byte, bool) {
	d, ok := netDatum(v, t)
	if !ok {
		return dst, false
	}
	switch x := d.(type) {
	case InetValue:
		return AppendInet(dst, x, t.Family == CIDR), true
	case MacAddrValue:
		return appendMac(dst, x[:]), true
	case MacAddr8Value:
		return appendMac(dst, x[:]), true
	}
	return dst, false
}

// parseNetText is the input function of the network types.
func parseNetText(s string, t T) (any, error) {
	switch t.Family {
	case Inet, CIDR:
		return ParseInet(s, t.Family == CIDR)
	case MacAddr:
		return ParseMacAddr(s)
	}
	return ParseMacAddr8(s)
}

// compareNet orders two datums of a network type; ok is false when either
// is not one.
func compareNet(a, b any, t T) (int, bool) {
	x, ok1 := netDatum(a, t)
	y, ok2 := netDatum(b, t)
	if !ok1 || !ok2 {
		return 0, false
	}
	switch x := x.(type) {
	case InetValue:
		return CompareInet(x, y.(InetValue)), true
	case MacAddrValue:
		y := y.(MacAddrValue)
		return strings.Compare(string(x[:]), string(y[:])), true
	case MacAddr8Value:
		y := y.(MacAddr8Value)
		return strings.Compare(string(x[:]), string(y[:])), true
	}
	return 0, false
}

// appendNetKey appends KeyBytes' encoding of a network datum.
func appendNetKey(dst []byte, v any, t T) ([]byte, bool) {
	d, ok := netDatum(v, t)
	if !ok {
		return dst, false
	}
	switch x := d.(type) {
	case InetValue:
		fam := byte(4)
		if x.V6 {
			fam = 6
		}
		return append(append(dst, fam, x.Bits), x.Addr[:]...), true
	case MacAddrValue:
		return append(dst, x[:]...), true
	case MacAddr8Value:
		return append(dst, x[:]...), true
	}
	return dst, false
}

// encodeNetBinary is the send function of the network types.
func encodeNetBinary(buf []byte, v any, t T) ([]byte, bool) {
	d, ok := netDatum(v, t)
	if !ok {
		return buf, false
	}
	switch x := d.(type) {
	case InetValue:
		return appendInetBinary(buf, x, t.Family == CIDR), true
	case MacAddrValue:
		return append(buf, x[:]...), true
	case MacAddr8Value:
		return append(buf, x[:]...), true
	}
	return buf, false
}

// decodeNetBinary is the receive function of the network types.
func decodeNetBinary(src []byte, t T, elem int) (any, error) {
	switch t.Family {
	case Inet, CIDR:
		return decodeInetBinary(src, t.Family == CIDR)
	case MacAddr:
		if err := fixedLen(src, 6, elem); err != nil {
			return nil, err
		}
		return MacAddrValue(src), nil
	}
	// macaddr8_recv takes six bytes as EUI-48 too.
	if len(src) == 6 {
		return MacAddrTo8(MacAddrValue(src)), nil
	}
	if err := fixedLen(src, 8, elem); err != nil {
		return nil, err
	}
	return MacAddr8Value(src), nil
}
