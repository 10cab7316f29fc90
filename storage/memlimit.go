package storage

import (
	"runtime/debug"
	"sync"
)

// The process's soft memory limit (Go's GOMEMLIMIT) is a base the server
// is configured with plus the memory of the vector indexes its databases
// have loaded. An index must stay in memory to be searched, and at ten
// million 384-d rows the indexes alone are 5.5 GB: a fixed limit below
// them would make the garbage collector run back to back (up to half
// the CPU) without ever getting under it. The decoded column cache still
// gives way to the indexes (colCache.reserve), so the base bounds what
// the server holds besides them.
var memLimit struct {
	mu    sync.Mutex
	base  int64 // 0: no limit set (SetMemoryLimit)
	index int64 // loaded vector indexes' bytes, all databases
}

// SetMemoryLimit sets the process's soft memory limit to base plus the
// memory of the vector indexes loaded now and later, as they come and
// go; base <= 0 leaves Go's limit alone (no limit).
func SetMemoryLimit(base int64) {
	memLimit.mu.Lock()
	defer memLimit.mu.Unlock()
	memLimit.base = max(base, 0)
	applyMemoryLimitLocked()
}

// addIndexMemory records delta bytes of vector index memory loaded
// (negative: released) and moves the limit with it.
func addIndexMemory(delta int64) {
	memLimit.mu.Lock()
	defer memLimit.mu.Unlock()
	memLimit.index += delta
	applyMemoryLimitLocked()
}

func applyMemoryLimitLocked() {
	if memLimit.base > 0 {
		debug.SetMemoryLimit(memLimit.base + max(memLimit.index, 0))
	}
}
