//go:build !linux

package storage

// prefaultBudget is zero where madvise cannot populate a mapping: no
// table's raw vectors are prefaulted.
func prefaultBudget() int64 { return 0 }

// prefault does nothing where madvise cannot populate a mapping: pages
// come in as searches touch them.
func prefault(any, []byte) (release func(), ok bool) { return nil, false }
