package session

import (
	"github.com/cairn-db/cairn/exec"
	"github.com/cairn-db/cairn/storage"
)

// guard runs fn, the work of one of the session's entry points that parse
// or bind a statement before it runs (Prepare, Bind), so that a panic in
// the parser, binder or planner fails just that protocol message, as
// statement does for a statement's execution: the panic is logged with
// its stack and text, the open transaction is marked failed as after any
// error there, and the caller gets the XX000 error. The wire layer then
// answers as for any other error (the extended protocol skips to Sync).
func (s *Session) guard(what, text string, fn func() error) error {
	err := exec.CatchPanic(fn)
	if pe := exec.AsPanic(err); pe != nil {
		s.engine.logger.Error("panic "+what, "panic", pe.Value, "statement", redactPasswords(text), "stack", string(pe.Stack))
		s.fail()
		return pe.Err
	}
	return err
}

// abandonRun releases what a statement that panicked left open in p: its
// operator and its own read transaction (whose snapshot would otherwise
// pin old files). A second panic while closing is logged and dropped.
func (s *Session) abandonRun(p *Portal) {
	err := exec.CatchPanic(func() error {
		if p.run != nil {
			p.run.failed = true
		}
		p.closeRun()
		return nil
	})
	if pe := exec.AsPanic(err); pe != nil {
		s.engine.logger.Error("panic closing a failed statement", "panic", pe.Value, "stack", string(pe.Stack))
	}
}

// catchFnPanic runs a statement's work in tx, a panic becoming its error,
// so that the transaction is rolled back (its row locks released) as
// after any other failure.
func catchFnPanic(fn func(tx *storage.Tx) (Tag, error), tx *storage.Tx) (tag Tag, err error) {
	err = exec.CatchPanic(func() error {
		tag, err = fn(tx)
		return err
	})
	return tag, err
}
