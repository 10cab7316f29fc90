//go:build !linux

package storage

// physicalMemory is the machine's RAM in bytes (0 if unknown).
func physicalMemory() int64 { return 0 }
