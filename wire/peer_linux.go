package wire

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// peerClosed reports whether the client closed (or reset) its end of nc,
// without reading from it: poll(2) with POLLRDHUP, as PostgreSQL's
// client_connection_check_interval does. Pipelined input waiting to be
// read does not hide a close.
func peerClosed(nc net.Conn) bool {
	for {
		inner, ok := nc.(interface{ NetConn() net.Conn }) // TLS
		if !ok {
			break
		}
		nc = inner.NetConn()
	}
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	closed := false
	raw.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLRDHUP}}
		n, err := unix.Poll(fds, 0)
		closed = err == nil && n > 0 && fds[0].Revents&(unix.POLLRDHUP|unix.POLLHUP|unix.POLLERR) != 0
	})
	return closed
}
