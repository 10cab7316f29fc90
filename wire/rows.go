package wire

import (
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/cairn-db/cairn/exec/session"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgproto3/v2"
)

// rowDescription describes cols; formats holds one format code per column,
// or is nil for all text.
func rowDescription(cols []session.Column, formats []int16) *pgproto3.RowDescription {
	rd := &pgproto3.RowDescription{Fields: make([]pgproto3.FieldDescription, len(cols))}
	for i, col := range cols {
		var f int16
		if formats != nil {
			f = formats[i]
		}
		rd.Fields[i] = pgproto3.FieldDescription{
			Name:                 []byte(col.Name),
			TableOID:             col.TableOID,
			TableAttributeNumber: uint16(col.Attnum),
			DataTypeOID:          col.Type.OID(),
			DataTypeSize:         col.Type.TypLen(),
			TypeModifier:         typmod(col.Type),
			Format:               f,
		}
	}
	return rd
}

// typmod is the type modifier as pg_attribute.atttypmod holds it: -1 when
// there is none, the declared length plus the 4-byte varlena header for
// varchar(n) and char(n), precision<<16|scale plus 4 for numeric(p,s), the
// dimension count for pgvector's vector(n). An array column reports its
// element's modifier.
func typmod(t types.T) int32 {
	if t.Family == types.ArrayFamily && t.Elem != nil {
		t = *t.Elem
	}
	if t.Mod < 0 {
		return -1
	}
	switch t.Family {
	case types.Varchar, types.Char, types.Numeric:
		return t.Mod + 4
	case types.Vector:
		if t.Mod > 0 {
			return t.Mod
		}
	}
	return -1
}

// writeRecord sends each row of rec as a DataRow. cols describes the
// columns, formats holds their format codes (nil: all text) and opts the
// session settings for text output. The record is not retained.
func (c *conn) writeRecord(rec arrow.Record, cols []session.Column, formats []int16, opts *types.TextOptions) error {
	if c.werr != nil {
		return c.werr
	}
	if int(rec.NumCols()) != len(cols) {
		return pgerr.New(pgerrcode.InternalError, "result batch has %d columns, expected %d", rec.NumCols(), len(cols))
	}
	arrs := rec.Columns()
	n := int(rec.NumRows())
	for i := 0; i < n; i++ {
		start := len(c.out)
		c.out = append(c.out, 'D', 0, 0, 0, 0)
		c.out = binary.BigEndian.AppendUint16(c.out, uint16(len(cols)))
		for j, arr := range arrs {
			if isNull(arr, i) {
				c.out = binary.BigEndian.AppendUint32(c.out, math.MaxUint32) // -1: NULL
				continue
			}
			var f int16
			if formats != nil {
				f = formats[j]
			}
			lenAt := len(c.out)
			c.out = append(c.out, 0, 0, 0, 0)
			var err error
			c.out, err = appendValue(c.out, arr, i, cols[j].Type, f, opts)
			if err != nil {
				c.out = c.out[:start]
				return err
			}
			binary.BigEndian.PutUint32(c.out[lenAt:], uint32(len(c.out)-lenAt-4))
		}
		size := len(c.out) - start - 1
		if size > math.MaxInt32 {
			c.out = c.out[:start]
			return pgerr.New(pgerrcode.ProgramLimitExceeded, "result row of %d bytes is too large to send", size)
		}
		binary.BigEndian.PutUint32(c.out[start+1:], uint32(size))
		if len(c.out) >= flushThreshold {
			if err := c.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}
