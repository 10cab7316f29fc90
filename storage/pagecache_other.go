//go:build !linux

package storage

import "os"

// warmBudget is zero where the machine's memory is not known: no table's
// raw vectors are read ahead of use.
func warmBudget() int64 { return 0 }

// warmFile does nothing where the budget is unknown: pages come into the
// page cache as searches read them.
func warmFile(*os.File, int64) (release func(), ok bool) { return nil, false }

// adviseWillNeed has no portable equivalent: reads wait for the disk.
func adviseWillNeed(*os.File, int64, int64) {}
