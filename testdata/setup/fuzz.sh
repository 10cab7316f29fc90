#!/usr/bin/env bash
# Fuzzes every `func FuzzX` target of the repository for a bounded time
# each (FUZZTIME, default 10s), one at a time. A crasher makes Go write a
# regression seed to the package's testdata/fuzz/FuzzX/; commit it (plain
# `go test` then replays it) with the fix. A target that fails is run once
# more (see below). Exits non-zero if any target failed, after running
# them all.
#
# Minimisation is off (-fuzzminimizetime 0): the coordinator minimises
# every input that finds new coverage, a byte at a time, and counts none
# of those runs; on a Parquet segment of a few kB that took the rest of
# the 10 s (0 execs/s), and when -fuzztime ran out mid-minimisation Go
# failed the target with "context deadline exceeded" and no crasher. A
# crasher is still written to testdata/fuzz, just not shrunk.
set -uo pipefail
cd "$(dirname "$0")/../.."
fuzztime=${FUZZTIME:-10s}

failed=()
while IFS=: read -r file name; do
  pkg=./$(dirname "$file")
  echo "=== fuzz $name ($pkg, $fuzztime)"
  if ! go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime 0 "$pkg" </dev/null; then
    # Go's fuzzing coordinator sometimes reports "context deadline
    # exceeded" when a busy worker answers late at the end of -fuzztime,
    # with no crasher. Run the target once more: a real crasher was
    # written to testdata/fuzz and fails the second run again at once.
    echo "=== fuzz $name failed; running it once more"
    if ! go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime 0 "$pkg" </dev/null; then
      failed+=("$name")
    fi
  fi
done < <(grep -r -E --include='*_test.go' --exclude-dir=node_modules '^func Fuzz[A-Za-z0-9_]*\(' . |
         sed -E 's|^\./([^:]*):func (Fuzz[A-Za-z0-9_]*)\(.*|\1:\2|' | sort)

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzzing failed: ${failed[*]} (new crashers are in the packages' testdata/fuzz/)" >&2
  exit 1
fi
