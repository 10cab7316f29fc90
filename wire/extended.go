package wire

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/cairn-db/cairn/exec/session"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgproto3/v2"
)

// parse handles Parse: the statement is prepared now and kept under its
// name (the unnamed one is replaced) among the session's prepared
// statements, which SQL PREPARE shares.
func (c *conn) parse(m *pgproto3.Parse) error {
	if err := checkText(m.Name); err != nil {
		return err
	}
	if err := checkText(m.Query); err != nil {
		return err
	}
	if m.Name == "" {
		c.sess.ClosePrepared("")
	}
	// A name already taken is refused when the statement is stored, as
	// PostgreSQL does: a syntax error, an aborted transaction (25P02) or
	// a binding error comes first.
	paramTypes := make([]types.T, len(m.ParameterOIDs))
	for i, oid := range m.ParameterOIDs {
		switch oid {
		case 0:
			paramTypes[i] = types.UnknownT
			continue
		case types.VoidOID:
			// pgjdbc's OUT parameter of {? = call f(?)}, which the
			// binder drops from the call.
			paramTypes[i] = types.VoidT
			continue
		}
		t, ok := c.sess.TypeByOID(oid)
		if !ok {
			return pgerr.NotSupported("parameter $%d of type OID %d", i+1, oid)
		}
		paramTypes[i] = t
	}
	stmts, err := c.sess.Prepare(m.Query, paramTypes)
	if err != nil {
		return err
	}
	if len(stmts) > 1 {
		return pgerr.New(pgerrcode.SyntaxError, "cannot insert multiple commands into a prepared statement")
	}
	st := &session.Statement{SQL: m.Query} // an empty query
	if len(stmts) == 1 {
		st = stmts[0]
	}
	if err := c.sess.StorePrepared(m.Name, st); err != nil {
		return err
	}
	c.send(&pgproto3.ParseComplete{})
	return nil
}

// bind handles Bind: parameters are decoded with the statement's parameter
// types in the formats the client chose, and the portal keeps the result
// formats for Describe and Execute.
func (c *conn) bind(m *pgproto3.Bind) error {
	if err := checkText(m.DestinationPortal + m.PreparedStatement); err != nil {
		return err
	}
	st, ok := c.sess.PreparedStatement(m.PreparedStatement)
	if !ok {
		return noStatement(m.PreparedStatement)
	}
	// PostgreSQL checks the counts, then the transaction, then decodes.
	if err := checkParamCounts(m, m.PreparedStatement, len(st.ParamTypes)); err != nil {
		return err
	}
	if err := c.sess.CheckBind(st, len(m.Parameters)); err != nil {
		return err
	}
	params, err := decodeParams(m, m.PreparedStatement, st.ParamTypes, c.textOptions)
	if err != nil {
		return err
	}
	p, err := c.sess.BindPortal(m.DestinationPortal, st, params)
	if err != nil {
		return err
	}
	// A portal that returns no rows takes any number of result formats,
	// as in PostgreSQL, which checks them against its columns only.
	if cols := p.Columns(); cols != nil {
		if p.ResultFormats, err = resultFormats(m.ResultFormatCodes, len(cols)); err != nil {
			c.sess.ClosePortal(p)
			return err
		}
	}
	c.send(&pgproto3.BindComplete{})
	return nil
}

// decodeParams turns Bind's parameter values into datums. textOptions
// gives the settings text input follows; it is called only when a
// parameter comes in text.
func decodeParams(m *pgproto3.Bind, stmtName string, paramTypes []types.T, textOptions func() *types.TextOptions) ([]any, error) {
	if err := checkParamCounts(m, stmtName, len(paramTypes)); err != nil {
		return nil, err
	}
	formats, err := expandFormats(m.ParameterFormatCodes, len(m.Parameters), "parameter formats", "parameters")
	if err != nil {
		return nil, err
	}
	params := make([]any, len(m.Parameters))
	var opts *types.TextOptions
	for i, raw := range m.Parameters {
		if raw == nil {
			continue // NULL
		}
		var f int16
		if formats != nil {
			f = formats[i]
		}
		if f == pgproto3.TextFormat && opts == nil {
			opts = textOptions()
		}
		v, err := decodeParam(raw, f, paramTypes[i], opts)
		if err != nil {
			return nil, paramError(err, i, f)
		}
		params[i] = v
	}
	return params, nil
}

// checkParamCounts checks Bind's counts as PostgreSQL does first: the
// parameter formats (when more than one) against the parameters, and
// the parameters against the statement's n.
func checkParamCounts(m *pgproto3.Bind, stmtName string, n int) error {
	if k := len(m.ParameterFormatCodes); k > 1 && k != len(m.Parameters) {
		return pgerr.New(pgerrcode.ProtocolViolation, "bind message has %d parameter formats but %d parameters", k, len(m.Parameters))
	}
	if len(m.Parameters) != n {
		return pgerr.New(pgerrcode.ProtocolViolation,
			"bind message supplies %d parameters, but prepared statement %q requires %d",
			len(m.Parameters), stmtName, n)
	}
	return nil
}

// paramError gives a codec error that carries no SQLSTATE the one
// PostgreSQL uses for bad bind parameters, and bytes left over after a
// binary value the message of exec_bind_message, which checks for them.
func paramError(err error, i int, format int16) error {
	if pe := pgerr.From(err); format == pgproto3.BinaryFormat && pe.Code == pgerrcode.InvalidBinaryRepresentation && pe.Message == "incorrect binary data format" {
		return pgerr.New(pgerrcode.InvalidBinaryRepresentation, "incorrect binary data format in bind parameter %d", i+1)
	}
	if pgerr.Code(err) != pgerrcode.InternalError {
		return err
	}
	if format == pgproto3.BinaryFormat {
		return pgerr.New(pgerrcode.InvalidBinaryRepresentation,
			"incorrect binary data format in bind parameter %d", i+1).WithDetail("%s", err.Error())
	}
	return pgerr.New(pgerrcode.InvalidTextRepresentation, "invalid input in bind parameter %d: %s", i+1, err.Error())
}

// resultFormats checks Bind's result format codes against the portal's
// column count and returns one code per column (nil: all text).
func resultFormats(codes []int16, ncols int) ([]int16, error) {
	return expandFormats(codes, ncols, "result formats", "columns")
}

// expandFormats applies the protocol's rule for format codes: none means
// all text, one applies to all, otherwise one each. It returns nil for all
// text.
func expandFormats(codes []int16, n int, what, of string) ([]int16, error) {
	for _, f := range codes {
		if f != pgproto3.TextFormat && f != pgproto3.BinaryFormat {
			return nil, pgerr.New(pgerrcode.InvalidParameterValue, "unsupported format code: %d", f)
		}
	}
	switch {
	case len(codes) == 0:
		return nil, nil
	case len(codes) == 1:
		if codes[0] == pgproto3.TextFormat {
			return nil, nil
		}
		out := make([]int16, n)
		for i := range out {
			out[i] = codes[0]
		}
		return out, nil
	case len(codes) == n:
		return append([]int16(nil), codes...), nil
	}
	if of == "columns" {
		return nil, pgerr.New(pgerrcode.ProtocolViolation, "bind message has %d result formats but query has %d columns", len(codes), n)
	}
	return nil, pgerr.New(pgerrcode.ProtocolViolation, "bind message has %d %s but %d %s", len(codes), what, n, of)
}

// decodeParam decodes one non-NULL parameter value.
func decodeParam(raw []byte, format int16, t types.T, opts *types.TextOptions) (any, error) {
	if format == pgproto3.BinaryFormat {
		return decodeBinary(raw, t)
	}
	if err := checkTextBytes(raw); err != nil {
		return nil, err
	}
	if t.IsOID() && t.Family != types.Oid {
		// A reg* value names an object; the session looks it up in the
		// catalog (session.Session.Bind).
		return string(raw), nil
	}
	return parseText(string(raw), t, opts)
}

// describe handles Describe of a statement (ParameterDescription, then
// RowDescription in text format or NoData) or of a portal (RowDescription
// in the portal's formats or NoData).
func (c *conn) describe(m *pgproto3.Describe) error {
	switch m.ObjectType {
	case 'S':
		st, ok := c.sess.PreparedStatement(m.Name)
		if !ok {
			return noStatement(m.Name)
		}
		var pd pgproto3.ParameterDescription
		pd.ParameterOIDs = make([]uint32, len(st.ParamTypes))
		for i, t := range st.ParamTypes {
			pd.ParameterOIDs[i] = t.OID()
		}
		cols := st.Columns
		if err := c.sess.CheckDescribe(cols); err != nil {
			return err
		}
		c.send(&pd)
		if err := c.sess.CheckStatementColumns(st); err != nil {
			return err
		}
		c.sendColumns(cols, nil)
	case 'P':
		// A cursor of DECLARE is a portal too (psycopg describes its named
		// cursors so); its rows come in text.
		p, ok := c.sess.Portal(m.Name)
		if !ok {
			return noPortal(m.Name)
		}
		if err := c.sess.CheckDescribe(p.Columns()); err != nil {
			return err
		}
		c.sendColumns(p.Columns(), p.ResultFormats)
	default:
		return pgerr.New(pgerrcode.ProtocolViolation, "invalid DESCRIBE message subtype %d", m.ObjectType)
	}
	return nil
}

// sendColumns sends RowDescription, or NoData when cols is nil. The
// encoded message is kept for the next Describe of the same columns (a
// prepared statement's binding keeps its columns' slice) in the same
// formats, which then costs a copy.
func (c *conn) sendColumns(cols []session.Column, formats []int16) {
	if cols == nil {
		c.send(&pgproto3.NoData{})
		return
	}
	rd := &c.lastRowDesc
	if len(cols) > 0 && len(rd.cols) == len(cols) && &rd.cols[0] == &cols[0] && slices.Equal(rd.formats, formats) {
		if c.werr == nil {
			c.out = append(c.out, rd.msg...)
		}
		return
	}
	start := len(c.out)
	c.send(rowDescription(cols, formats))
	if c.werr == nil && len(cols) > 0 && len(c.out) > start {
		rd.cols, rd.formats = cols, slices.Clone(formats)
		rd.msg = append(rd.msg[:0], c.out[start:]...)
	}
}

// execute handles Execute: up to MaxRows rows (0: all), then
// PortalSuspended when rows remain or CommandComplete. A COPY runs whole
// (runCopy).
func (c *conn) execute(m *pgproto3.Execute) error {
	p, ok := c.sess.Portal(m.Portal)
	if !ok {
		return noPortal(m.Portal)
	}
	if p.Empty() {
		c.send(&pgproto3.EmptyQueryResponse{})
		return nil
	}
	// A data-modifying statement that is its block's only Execute, with
	// the client's Sync already read behind it, runs as an autocommit
	// statement: it commits before its CommandComplete instead of at
	// Sync, which no client can tell apart, and under READ COMMITTED it
	// runs again when its commit meets a concurrent update or loses the
	// log to another server (40001 at Sync otherwise), as a simple-query
	// statement does.
	if !(c.blockExecutes == 0 && p.ModifiesData() && c.cr.syncNext()) {
		c.sess.BeginImplicit()
	}
	c.blockExecutes++
	ctx, done := c.statementContext()
	if info := p.Copy(); info.Dir != session.NotCopy {
		tag, err := c.runCopy(ctx, p, info)
		done()
		c.sendNotices()
		if err != nil {
			// extended flushes it at once: a client still sending COPY
			// data sees it and can stop.
			return err
		}
		c.send(&pgproto3.CommandComplete{CommandTag: []byte(tag.String())})
		return nil
	}
	opts := c.outputOptions()
	cols := p.Columns()
	tag, suspended, err := c.sess.Execute(ctx, p, int(m.MaxRows), func(rec arrow.Record) error {
		return c.writeRecord(rec, cols, p.ResultFormats, opts)
	})
	done()
	c.sendNotices()
	if err != nil {
		return err
	}
	if suspended {
		c.send(&pgproto3.PortalSuspended{})
	} else {
		c.sendCommandComplete(tag)
	}
	return nil
}

// close handles Close of a statement or a portal; closing one that does
// not exist is not an error.
func (c *conn) close(m *pgproto3.Close) error {
	switch m.ObjectType {
	case 'S':
		c.sess.ClosePrepared(m.Name)
	case 'P':
		if p, ok := c.sess.Portal(m.Name); ok {
			c.sess.ClosePortal(p)
		}
	default:
		return pgerr.New(pgerrcode.ProtocolViolation, "invalid CLOSE message subtype %d", m.ObjectType)
	}
	c.send(&pgproto3.CloseComplete{})
	return nil
}

func noStatement(name string) error {
	if name == "" {
		return pgerr.New(pgerrcode.InvalidSQLStatementName, "unnamed prepared statement does not exist")
	}
	return pgerr.New(pgerrcode.InvalidSQLStatementName, "prepared statement %q does not exist", name)
}

func noPortal(name string) error {
	return pgerr.New(pgerrcode.InvalidCursorName, "portal %q does not exist", name)
}
