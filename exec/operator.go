package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
)

// Operator is a running plan node that produces Arrow batches.
//
// Next returns the next batch, or io.EOF after the last one. The returned
// record belongs to the operator and stays valid only until the next call
// to Next or Close; a consumer that keeps it longer calls Retain (and later
// Release). Batches may have zero rows. An operator is used by one
// goroutine at a time; Close releases its resources and is safe to call
// more than once.
type Operator interface {
	Schema() *arrow.Schema
	Next(ctx context.Context) (arrow.Record, error)
	Close()
}
