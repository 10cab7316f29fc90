# `make test` is the test command (README "## Test", run by .ci/run): it
# sets up what the tests need on a fresh machine, checks formatting and
# vet, runs the whole suite under the race detector, then fuzzes every
# fuzz target for a bounded time.

# FUZZTIME is how long each fuzz target runs in `make test` / `make fuzz`.
FUZZTIME ?= 10s

.PHONY: test setup lint race fuzz

test: setup lint race fuzz

# setup installs the clients the tests drive (psql, Python drivers, pgjdbc,
# node-postgres), only those missing. The S3 server that storage/objstore's
# tests start on loopback (gofakes3) is a Go module: nothing to install.
setup:
	testdata/setup/clients.sh

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted" >&2; exit 1; fi
	go vet ./...

# cmd/cairn's end-to-end suite takes 6-8 minutes under -race on two cores;
# the default 10-minute test timeout leaves too little room on a busy machine.
race:
	go test -race -timeout 25m ./...

fuzz:
	FUZZTIME=$(FUZZTIME) testdata/setup/fuzz.sh
