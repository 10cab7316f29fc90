package functions

// The functions and operators of the network address types, as
// PostgreSQL's network.c, mac.c and mac8.c define them: inet's and
// cidr's accessors (host, masklen, network, broadcast, ...), the subnet
// containment operators << <<= >> >>= &&, bitwise ~ & | and address
// arithmetic + -, the MAC addresses' trunc and bitwise operators, and
// inet_client_addr() and its kin, which read the session's connection.
// cidr arguments reach the inet overloads through cidr's implicit cast
// to inet, as in PostgreSQL, where cidr is binary coercible to inet.

import (
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func init() {
	inet, cidr := types.InetT, types.CIDRT
	mac, mac8 := types.MacAddrT, types.MacAddr8T
	for op := opEq; op <= opGe; op++ {
		for _, t := range []types.T{inet, mac, mac8} {
			Register(cmpOverload(op, t, t))
		}
	}
	ip := func(v any) types.InetValue { return v.(types.InetValue) }
	Register(
		fn1("abbrev", inet, tText, func(a any) (any, error) { return string(types.AppendInet(nil, ip(a), false)), nil }),
		fn1("abbrev", cidr, tText, func(a any) (any, error) { return types.CIDRAbbrev(ip(a)), nil }),
		fn1("host", inet, tText, func(a any) (any, error) { return types.InetHost(ip(a)), nil }),
		fn1("masklen", inet, tInt4, func(a any) (any, error) { return int64(ip(a).Bits), nil }),
		fn1("family", inet, tInt4, func(a any) (any, error) { return int64(ip(a).Family()), nil }),
		fn1("network", inet, cidr, func(a any) (any, error) { return ip(a).Network(int(ip(a).Bits)), nil }),
		fn1("broadcast", inet, inet, func(a any) (any, error) { return inetBroadcast(ip(a)), nil }),
		fn1("netmask", inet, inet, func(a any) (any, error) { return inetNetmask(ip(a), false), nil }),
		fn1("hostmask", inet, inet, func(a any) (any, error) { return inetNetmask(ip(a), true), nil }),
		fn("set_masklen", targs(inet, tInt4), inet, func(_ *Context, a []any) (any, error) {
			v := ip(a[0])
			bits, err := maskLen(v, a[1].(int64))
			v.Bits = uint8(bits)
			return v, err
		}),
		fn("set_masklen", targs(cidr, tInt4), cidr, func(_ *Context, a []any) (any, error) {
			bits, err := maskLen(ip(a[0]), a[1].(int64))
			if err != nil {
				return nil, err
			}
			return ip(a[0]).Network(bits), nil
		}),
		fn("inet_same_family", targs(inet, inet), tBool, func(_ *Context, a []any) (any, error) {
			return ip(a[0]).V6 == ip(a[1]).V6, nil
		}),
		fn("inet_merge", targs(inet, inet), cidr, func(_ *Context, a []any) (any, error) {
			x, y := ip(a[0]), ip(a[1])
			if x.V6 != y.V6 {
				return nil, pgerr.New(pgerrcode.InvalidParameterValue, "cannot merge addresses from different families")
			}
			return x.Network(types.CommonBits(&x.Addr, &y.Addr, int(min(x.Bits, y.Bits)))), nil
		}),

		fn("<<", targs(inet, inet), tBool, func(_ *Context, a []any) (any, error) { return subnet(ip(a[0]), ip(a[1]), false), nil }),
		fn("<<=", targs(inet, inet), tBool, func(_ *Context, a []any) (any, error) { return subnet(ip(a[0]), ip(a[1]), true), nil }),
		fn(">>", targs(inet, inet), tBool, func(_ *Context, a []any) (any, error) { return subnet(ip(a[1]), ip(a[0]), false), nil }),
		fn(">>=", targs(inet, inet), tBool, func(_ *Context, a []any) (any, error) { return subnet(ip(a[1]), ip(a[0]), true), nil }),
		fn("&&", targs(inet, inet), tBool, func(_ *Context, a []any) (any, error) {
			x, y := ip(a[0]), ip(a[1])
			return x.V6 == y.V6 && types.BitCompare(&x.Addr, &y.Addr, int(min(x.Bits, y.Bits))) == 0, nil
		}),

		fn1("~", inet, inet, func(a any) (any, error) {
			v := ip(a)
			for i := 0; i < v.Size(); i++ {
				v.Addr[i] = ^v.Addr[i]
			}
			return v, nil
		}),
		fn("&", targs(inet, inet), inet, func(_ *Context, a []any) (any, error) {
			return inetBitwise(ip(a[0]), ip(a[1]), "AND", func(x, y byte) byte { return x & y })
		}),
		fn("|", targs(inet, inet), inet, func(_ *Context, a []any) (any, error) {
			return inetBitwise(ip(a[0]), ip(a[1]), "OR", func(x, y byte) byte { return x | y })
		}),
		fn("+", targs(inet, tInt8), inet, func(_ *Context, a []any) (any, error) { return inetPlus(ip(a[0]), a[1].(int64)) }),
		fn("+", targs(tInt8, inet), inet, func(_ *Context, a []any) (any, error) { return inetPlus(ip(a[1]), a[0].(int64)) }),
		fn("-", targs(inet, tInt8), inet, func(_ *Context, a []any) (any, error) { return inetPlus(ip(a[0]), -a[1].(int64)) }),
		fn("-", targs(inet, inet), tInt8, func(_ *Context, a []any) (any, error) { return inetMinus(ip(a[0]), ip(a[1])) }),

		fn1("trunc", mac, mac, func(a any) (any, error) {
			m := a.(types.MacAddrValue)
			return types.MacAddrValue{m[0], m[1], m[2]}, nil
		}),
		fn1("trunc", mac8, mac8, func(a any) (any, error) {
			m := a.(types.MacAddr8Value)
			return types.MacAddr8Value{m[0], m[1], m[2]}, nil
		}),
		fn1("macaddr8_set7bit", mac8, mac8, func(a any) (any, error) {
			m := a.(types.MacAddr8Value)
			m[0] |= 0x02
			return m, nil
		}),
	)
	Register(allStable(
		&Overload{Name: "inet_client_addr", Result: inet, Eval: func(ctx *Context, _ []any) (any, error) {
			return endpointAddr(endpoints(ctx, Endpoints.ClientEndpoint))
		}},
		&Overload{Name: "inet_client_port", Result: tInt4, Eval: func(ctx *Context, _ []any) (any, error) {
			return endpointPort(endpoints(ctx, Endpoints.ClientEndpoint))
		}},
		&Overload{Name: "inet_server_addr", Result: inet, Eval: func(ctx *Context, _ []any) (any, error) {
			return endpointAddr(endpoints(ctx, Endpoints.ServerEndpoint))
		}},
		&Overload{Name: "inet_server_port", Result: tInt4, Eval: func(ctx *Context, _ []any) (any, error) {
			return endpointPort(endpoints(ctx, Endpoints.ServerEndpoint))
		}},
	)...)
	Register(macBitwise(mac)...)
	Register(macBitwise(mac8)...)
}

// Endpoints is the optional part of a SessionInfo that inet_client_addr(),
// inet_server_addr() and their ports read: the connection's client and
// server IP addresses and TCP ports ("" and 0 when unknown, a port of -1
// for a Unix socket). Like SessionInfo it is safe for concurrent use.
type Endpoints interface {
	ClientEndpoint() (addr string, port int)
	ServerEndpoint() (addr string, port int)
}

// endpoints reads one end of the session's connection; "" and 0 without
// one.
func endpoints(ctx *Context, end func(Endpoints) (string, int)) (string, int) {
	if ctx != nil {
		if e, ok := ctx.Session.(Endpoints); ok {
			return end(e)
		}
	}
	return "", 0
}

// endpointAddr is an endpoint's address as inet; NULL for a Unix socket
// or none.
func endpointAddr(addr string, _ int) (any, error) {
	if v, ok := types.HostAddr(addr); ok {
		return v, nil
	}
	return nil, nil
}

// endpointPort is an endpoint's TCP port; NULL for a Unix socket or none.
func endpointPort(_ string, port int) (any, error) {
	if port <= 0 {
		return nil, nil
	}
	return int64(port), nil
}

// macBitwise are ~ & | on macaddr or macaddr8, byte by byte.
func macBitwise(t types.T) []*Overload {
	bytes := func(v any) []byte {
		switch m := v.(type) {
		case types.MacAddrValue:
			return m[:]
		case types.MacAddr8Value:
			return m[:]
		}
		return nil
	}
	build := func(b []byte) any {
		if t.Family == types.MacAddr {
			return types.MacAddrValue(b)
		}
		return types.MacAddr8Value(b)
	}
	op := func(f func(x, y byte) byte) func(_ *Context, a []any) (any, error) {
		return func(_ *Context, a []any) (any, error) {
			x, y := bytes(a[0]), bytes(a[1])
			out := make([]byte, len(x))
			for i := range x {
				out[i] = f(x[i], y[i])
			}
			return build(out), nil
		}
	}
	return []*Overload{
		fn1("~", t, t, func(a any) (any, error) {
			x := bytes(a)
			out := make([]byte, len(x))
			for i := range x {
				out[i] = ^x[i]
			}
			return build(out), nil
		}),
		fn("&", targs(t, t), t, op(func(x, y byte) byte { return x & y })),
		fn("|", targs(t, t), t, op(func(x, y byte) byte { return x | y })),
	}
}

// maskLen checks set_masklen's length: -1 means the full width.
func maskLen(v types.InetValue, bits int64) (int, error) {
	if bits == -1 {
		bits = int64(v.MaxBits())
	}
	if bits < 0 || bits > int64(v.MaxBits()) {
		return 0, pgerr.New(pgerrcode.InvalidParameterValue, "invalid mask length: %d", bits)
	}
	return int(bits), nil
}

// subnet is << (eq false) and <<= (eq true): whether a lies within the
// network b.
func subnet(a, b types.InetValue, eq bool) bool {
	if a.V6 != b.V6 {
		return false
	}
	if a.Bits < b.Bits || (!eq && a.Bits == b.Bits) {
		return false
	}
	return types.BitCompare(&a.Addr, &b.Addr, int(b.Bits)) == 0
}

// inetBroadcast is broadcast(): every host bit set.
func inetBroadcast(v types.InetValue) types.InetValue {
	out := v
	for i := 0; i < v.Size(); i++ {
		out.Addr[i] |= hostMaskByte(i, int(v.Bits))
	}
	return out
}

// inetNetmask is netmask() (host false) and hostmask() (host true), at
// the full mask length.
func inetNetmask(v types.InetValue, host bool) types.InetValue {
	out := types.InetValue{V6: v.V6, Bits: uint8(v.MaxBits())}
	for i := 0; i < v.Size(); i++ {
		m := hostMaskByte(i, int(v.Bits))
		if !host {
			m = ^m
		}
		out.Addr[i] = m
	}
	return out
}

// hostMaskByte is byte i of the host mask of a bits-long netmask.
func hostMaskByte(i, bits int) byte {
	switch {
	case bits >= (i+1)*8:
		return 0
	case bits <= i*8:
		return 0xff
	}
	return 0xff >> (bits - i*8)
}

// inetBitwise is & and | of two addresses of one family; the mask length
// is the larger of the two.
func inetBitwise(x, y types.InetValue, name string, f func(a, b byte) byte) (any, error) {
	if x.V6 != y.V6 {
		return nil, pgerr.New(pgerrcode.InvalidParameterValue, "cannot %s inet values of different sizes", name)
	}
	out := types.InetValue{V6: x.V6, Bits: max(x.Bits, y.Bits)}
	for i := 0; i < x.Size(); i++ {
		out.Addr[i] = f(x.Addr[i], y.Addr[i])
	}
	return out, nil
}

func errInetRange() error {
	return pgerr.New(pgerrcode.NumericValueOutOfRange, "result is out of range")
}

// inetPlus is internal_inetpl: the address plus n, which must stay within
// the family's addresses.
func inetPlus(v types.InetValue, n int64) (any, error) {
	out := v
	carry := 0
	addend := n
	for i := v.Size() - 1; i >= 0; i-- {
		carry = int(v.Addr[i]) + int(addend&0xff) + carry
		out.Addr[i] = byte(carry)
		carry >>= 8
		addend &^= 0xff
		addend /= 0x100
	}
	if !((addend == 0 && carry == 0) || (addend == -1 && carry == 1)) {
		return nil, errInetRange()
	}
	return out, nil
}

// inetMinus is inetmi: the difference of two addresses of one family, as
// a bigint.
func inetMinus(x, y types.InetValue) (any, error) {
	if x.V6 != y.V6 {
		return nil, pgerr.New(pgerrcode.InvalidParameterValue, "cannot subtract inet values of different sizes")
	}
	var res int64
	carry := 1
	b := 0
	for i := x.Size() - 1; i >= 0; i-- {
		carry = int(x.Addr[i]) + int(^y.Addr[i]) + carry
		lo := carry & 0xff
		if b < 8 {
			res |= int64(lo) << (b * 8)
		} else if (res < 0 && lo != 0xff) || (res >= 0 && lo != 0) {
			return nil, errInetRange()
		}
		carry >>= 8
		b++
	}
	if carry == 0 && b < 8 {
		res |= -1 << (b * 8)
	}
	return res, nil
}
