//go:build unix

package vecindex

import "golang.org/x/sys/unix"

// mapAnonymous maps n bytes of private zeroed memory, or returns nil.
func mapAnonymous(n int) []byte {
	m, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil
	}
	return m
}

// unmap releases a mapping of mapAnonymous.
func unmap(m []byte) { _ = unix.Munmap(m) }
