package storage

import (
	"hash/maphash"
	"math"
	"slices"
	"sort"
)

// Locks on one-integer keys. The keys of a constraint over one integer
// column (the usual primary key) are locked by value, in an intLockSpace
// per constraint rather than one lockTable.held entry per key: a
// transaction's keys are kept as runs of consecutive values and a set of
// the others. A bulk load inserts batches of consecutive keys, mostly:
// each batch is then locked and released as one run, not key by key (a
// COPY spent about 7% of its time on the map of key locks). The locks
// mean what the others do: a transaction inserting a key another one holds
// waits for it (or fails with 40P01, 55P03 or its statement's end), and
// they count towards maxLocks like any other.

// intSpaceKey names the keys of one constraint: its table and the hash of
// its signature.
type intSpaceKey struct{ table, sig uint64 }

// sigHash is the hash of a constraint signature that names its
// intLockSpace.
func sigHash(sig string) uint64 { return maphash.String(keySeed, sig) }

// intLockSpace holds the locks on the keys of one constraint.
type intLockSpace struct {
	key     intSpaceKey
	holders map[*Tx]*intLocks
}

// intLocks are the keys of one constraint one transaction holds.
type intLocks struct {
	runs   []intRun           // sorted, disjoint and not adjacent
	set    map[int64]struct{} // keys in no run
	lo, hi int64              // the least and greatest key held
	n      int                // the number of keys held
}

// intRun is the keys lo to hi, both included.
type intRun struct{ lo, hi int64 }

// intLogEntry records keys lo to hi, none held before, that a
// transaction added to own (Tx.intLog).
type intLogEntry struct {
	own    *intLocks
	lo, hi int64
}

// logInts reports whether tx records the keys it locks in intLog: while
// it has a savepoint to roll back to (lt.mu held).
func (tx *Tx) logInts() bool { return len(tx.sps) > 0 }

// forgetIntLog drops tx's intLog once no savepoint is left to need it.
func (lt *lockTable) forgetIntLog(tx *Tx) {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	clear(tx.intLog)
	tx.intLog = tx.intLog[:0]
}

// addLogged adds key v to own for tx, noting it in tx's intLog when new
// and logged; it returns 1 if own did not hold v, else 0.
func (tx *Tx) addLogged(own *intLocks, v int64, logged bool) int {
	added := own.add(v)
	if added == 1 && logged {
		tx.intLog = append(tx.intLog, intLogEntry{own: own, lo: v, hi: v})
	}
	return added
}

// removeRun drops the keys lo to hi from l and returns how many it held.
// l's bounds may stay wider than its keys, which only makes them a looser
// filter.
func (l *intLocks) removeRun(lo, hi int64) int {
	removed := 0
	var inSet []int64
	l.setWithin(lo, hi, func(v int64) { inSet = append(inSet, v) })
	for _, v := range inSet {
		delete(l.set, v)
		removed++
	}
	i := l.run(lo)
	j := i
	var keep []intRun
	for ; j < len(l.runs) && l.runs[j].lo <= hi; j++ {
		r := l.runs[j]
		removed += int(min(hi, r.hi) - max(lo, r.lo) + 1)
		if r.lo < lo {
			keep = append(keep, intRun{r.lo, lo - 1})
		}
		if r.hi > hi {
			keep = append(keep, intRun{hi + 1, r.hi})
		}
	}
	l.runs = slices.Replace(l.runs, i, j, keep...)
	l.n -= removed
	return removed
}

// run returns the index of the first run that ends at or after v.
func (l *intLocks) run(v int64) int {
	return sort.Search(len(l.runs), func(i int) bool { return l.runs[i].hi >= v })
}

// has reports whether l holds v.
func (l *intLocks) has(v int64) bool {
	if l.n == 0 || v < l.lo || v > l.hi {
		return false
	}
	if _, ok := l.set[v]; ok {
		return true
	}
	i := l.run(v)
	return i < len(l.runs) && l.runs[i].lo <= v
}

// within returns a key from lo to hi that l holds, the least of its runs'
// or any of its set's.
func (l *intLocks) within(lo, hi int64) (int64, bool) {
	if l.n == 0 || hi < l.lo || lo > l.hi {
		return 0, false
	}
	if i := l.run(lo); i < len(l.runs) && l.runs[i].lo <= hi {
		return max(lo, l.runs[i].lo), true
	}
	var found int64
	ok := false
	l.setWithin(lo, hi, func(v int64) { found, ok = v, true })
	return found, ok
}

// setWithin calls fn with each key of l's set from lo to hi, going
// through the range or the set, whichever is smaller.
func (l *intLocks) setWithin(lo, hi int64, fn func(v int64)) {
	if len(l.set) == 0 {
		return
	}
	if uint64(hi-lo) < uint64(len(l.set)) {
		for v := lo; ; v++ {
			if _, ok := l.set[v]; ok {
				fn(v)
			}
			if v == hi {
				return
			}
		}
	}
	for v := range l.set {
		if lo <= v && v <= hi {
			fn(v)
		}
	}
}

// bound widens l's bounds to take in lo to hi.
func (l *intLocks) bound(lo, hi int64) {
	if l.n == 0 {
		l.lo, l.hi = lo, hi
		return
	}
	l.lo, l.hi = min(l.lo, lo), max(l.hi, hi)
}

// addRun adds the keys lo to hi and returns how many l did not hold.
func (l *intLocks) addRun(lo, hi int64) int {
	added := int(hi - lo + 1)
	var inSet []int64
	l.setWithin(lo, hi, func(v int64) { inSet = append(inSet, v) })
	for _, v := range inSet {
		delete(l.set, v)
		added--
	}
	// Merge the runs that overlap or touch lo to hi.
	i := l.run(lo)
	if i > 0 && lo != math.MinInt64 && l.runs[i-1].hi == lo-1 {
		i--
	}
	j := i
	nlo, nhi := lo, hi
	for ; j < len(l.runs); j++ {
		r := l.runs[j]
		if r.lo > hi && (hi == math.MaxInt64 || r.lo != hi+1) {
			break
		}
		added -= int(max(0, min(hi, r.hi)-max(lo, r.lo)+1))
		nlo, nhi = min(nlo, r.lo), max(nhi, r.hi)
	}
	l.runs = slices.Replace(l.runs, i, j, intRun{nlo, nhi})
	l.bound(nlo, nhi)
	l.n += added
	return added
}

// add adds key v and returns 1 if l did not hold it, else 0.
func (l *intLocks) add(v int64) int {
	if len(l.runs) > 0 && v >= l.lo && v <= l.hi {
		if i := l.run(v); i < len(l.runs) && l.runs[i].lo <= v {
			return 0
		}
	}
	if l.set == nil {
		l.set = map[int64]struct{}{}
	}
	before := len(l.set)
	l.set[v] = struct{}{}
	if len(l.set) == before {
		return 0
	}
	l.bound(v, v)
	l.n++
	return 1
}

// intBatch are keys to lock: vals, but for the rows at which null (when
// set) reports true; dense when they are exactly the keys lo to hi.
type intBatch struct {
	vals   []int64
	null   func(i int) bool
	n      int // keys
	dense  bool
	lo, hi int64
}

// newIntBatch describes the keys of vals (none repeated) less the rows
// null reports (nil: none).
func newIntBatch(vals []int64, null func(i int) bool) *intBatch {
	b := &intBatch{vals: vals, null: null}
	for i, v := range vals {
		if null != nil && null(i) {
			continue
		}
		if b.n == 0 {
			b.lo, b.hi = v, v
		}
		b.lo, b.hi = min(b.lo, v), max(b.hi, v)
		b.n++
	}
	// No key repeats, so n keys from lo to hi are all of them.
	b.dense = b.n > 0 && uint64(b.hi-b.lo) == uint64(b.n-1)
	return b
}

// heldBy returns a key of b that l holds.
func (b *intBatch) heldBy(l *intLocks) (int64, bool) {
	if l.n == 0 || b.hi < l.lo || b.lo > l.hi {
		return 0, false
	}
	if b.dense {
		return l.within(b.lo, b.hi)
	}
	for i, v := range b.vals {
		if (b.null == nil || !b.null(i)) && l.has(v) {
			return v, true
		}
	}
	return 0, false
}

// lockInts locks the keys of b of the constraint space for tx, waiting
// for the holders of any another transaction holds (as lock does); none
// once tx holds maxLocks.
func (lt *lockTable) lockInts(tx *Tx, space intSpaceKey, b *intBatch) error {
	if b.n == 0 {
		return nil
	}
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if tx.lockCount()+b.n > maxLocks {
		return nil
	}
	logged := tx.logInts()
	if h, _ := lt.intHolder(tx, space, b); h == nil {
		own := lt.ownInts(tx, space)
		if b.dense {
			// Logged, a run is one entry when tx held none of its keys.
			if _, some := own.within(b.lo, b.hi); !logged || !some {
				tx.intHeld += own.addRun(b.lo, b.hi)
				if logged {
					tx.intLog = append(tx.intLog, intLogEntry{own: own, lo: b.lo, hi: b.hi})
				}
				return nil
			}
		}
		for i, v := range b.vals {
			if b.null == nil || !b.null(i) {
				tx.intHeld += tx.addLogged(own, v, logged)
			}
		}
		return nil
	}
	// Another transaction holds one of the keys: take them one at a time
	// in order, waiting for each holder in turn, as lock does (the keys
	// before the one waited for are held meanwhile).
	for i, v := range b.vals {
		if b.null != nil && b.null(i) {
			continue
		}
		for {
			h, _ := lt.intHolder(tx, space, &intBatch{vals: []int64{v}, n: 1, dense: true, lo: v, hi: v})
			if h == nil {
				break
			}
			if err := lt.waitFor(tx, h, keyLockInt(space, v)); err != nil {
				return err
			}
		}
		tx.intHeld += tx.addLogged(lt.ownInts(tx, space), v, logged)
	}
	return nil
}

// ownInts returns tx's locks in space, making them (lt.mu held).
func (lt *lockTable) ownInts(tx *Tx, space intSpaceKey) *intLocks {
	if lt.ints == nil {
		lt.ints = map[intSpaceKey]*intLockSpace{}
	}
	sp := lt.ints[space]
	if sp == nil {
		sp = &intLockSpace{key: space, holders: map[*Tx]*intLocks{}}
		lt.ints[space] = sp
	}
	own := sp.holders[tx]
	if own == nil {
		own = &intLocks{}
		sp.holders[tx] = own
		tx.intSpaces = append(tx.intSpaces, sp)
		if tx.ended == nil {
			tx.ended = make(chan struct{})
		}
	}
	return own
}

// intHolder returns a transaction other than tx that holds a key of b in
// space, and the key; nil if there is none (lt.mu held).
func (lt *lockTable) intHolder(tx *Tx, space intSpaceKey, b *intBatch) (*Tx, int64) {
	sp := lt.ints[space]
	if sp == nil {
		return nil, 0
	}
	for h, l := range sp.holders {
		if h == tx {
			continue
		}
		if v, ok := b.heldBy(l); ok {
			return h, v
		}
	}
	return nil, 0
}

// releaseInts drops tx's locks on one-integer keys (lt.mu held).
func (lt *lockTable) releaseInts(tx *Tx) {
	for _, sp := range tx.intSpaces {
		delete(sp.holders, tx)
		if len(sp.holders) == 0 {
			delete(lt.ints, sp.key)
		}
	}
	tx.intSpaces, tx.intHeld, tx.intLog = nil, 0, nil
}

// keyLockInt names the lock of key v of a constraint as pg_locks shows it
// (a hash of the constraint and the value).
func keyLockInt(space intSpaceKey, v int64) lockKey {
	return lockKey{table: space.table, kind: keyKind, id: maphash.Comparable(keySeed, [2]uint64{space.sig, uint64(v)})}
}

// appendIntLocks appends the locks held on one-integer keys, one per key
// (lt.mu held).
func (lt *lockTable) appendIntLocks(out []Lock) []Lock {
	for _, sp := range lt.ints {
		for tx, l := range sp.holders {
			add := func(v int64) {
				k := keyLockInt(sp.key, v)
				out = append(out, Lock{Table: k.table, Key: true, ID: k.id, Owner: tx.owner, Granted: true})
			}
			for _, r := range l.runs {
				for v := r.lo; ; v++ {
					add(v)
					if v == r.hi {
						break
					}
				}
			}
			for v := range l.set {
				add(v)
			}
		}
	}
	return out
}
