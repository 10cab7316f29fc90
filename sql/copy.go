package sql

import (
	"strings"

	"github.com/jackc/pgerrcode"
	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
)

// Copy is COPY ... FROM STDIN or COPY ... TO STDOUT. Server-side files and
// programs are refused: the data always travels over the connection.
type Copy struct {
	// From is COPY ... FROM STDIN; otherwise the statement is COPY ... TO
	// STDOUT.
	From bool
	// Table is the table copied; nil for COPY (query) TO.
	Table *catalog.TableDef
	// Columns are the columns of the data, in its order: the table's (all,
	// or the listed ones) or the query's. HEADER lines hold their names.
	Columns []Col
	// Insert is what COPY FROM runs: its Input computes the table's row
	// from a CopySource (the rows read) as INSERT with a column list does,
	// with the DEFAULT of every column not copied, then keeps the rows
	// WHERE passes.
	Insert *Insert
	// Query yields the rows of COPY TO: a scan of the copied columns or
	// the bound query.
	Query   Node
	Options CopyOptions
}

// CopySource stands for the rows COPY FROM reads: the copied columns, each
// already converted by its type's input function.
type CopySource struct {
	Out []Col
}

// Columns implements Node.
func (n *CopySource) Columns() []Col { return n.Out }

// Children implements Node.
func (n *CopySource) Children() []Node { return nil }

// String implements Node.
func (n *CopySource) String() string { return "Copy Source" }

// CopyFormat is the data format of a COPY.
type CopyFormat uint8

// COPY data formats.
const (
	CopyText CopyFormat = iota
	CopyCSV
	CopyBinary
)

// CopyOptions are a COPY's options with PostgreSQL's defaults filled in.
type CopyOptions struct {
	Format CopyFormat
	// Header: COPY FROM skips the first line, COPY TO writes the column
	// names first. HeaderMatch (COPY FROM only) also checks the names.
	Header      bool
	HeaderMatch bool
	Delimiter   byte
	// Null is the text of a NULL: \N in text format, the empty string in
	// CSV.
	Null string
	// Quote and Escape are CSV's quote and escape characters.
	Quote, Escape byte
	// ForceQuote, ForceNotNull and ForceNull flag copied columns (by
	// position in Copy.Columns) for the CSV options of those names; nil
	// when the option is absent.
	ForceQuote, ForceNotNull, ForceNull []bool
	// Freeze (COPY FROM) asks for rows visible as frozen: PostgreSQL allows
	// it only on a table the transaction created or truncated, which is
	// what the session checks (55000 otherwise); such a table's rows are
	// then the transaction's alone, and cairn has no freezing to skip.
	// COPY TO accepts and ignores it, as PostgreSQL does.
	Freeze bool
}

// bindCopy binds a CopyStmt.
func (b *Binder) bindCopy(s *pg_query.CopyStmt) (Statement, error) {
	dir := "TO"
	if s.IsFrom {
		dir = "FROM"
	}
	if s.IsProgram {
		return nil, pgerr.NotSupported("COPY %s PROGRAM", dir).
			WithHint("COPY %s STDIN/STDOUT sends the data over the connection; psql's \\copy uses it.", dir)
	}
	if s.Filename != "" {
		return nil, pgerr.NotSupported("COPY %s a server-side file", dir).
			WithHint("Use COPY ... FROM STDIN or TO STDOUT, which send the data over the connection, for example with psql's \\copy.")
	}
	c := &Copy{From: s.IsFrom}
	if s.Query != nil {
		if err := b.bindCopyQuery(c, s.Query); err != nil {
			return nil, err
		}
	} else if err := b.bindCopyTable(c, s); err != nil {
		return nil, err
	}
	if s.WhereClause != nil {
		// Only COPY FROM has one: the grammar refuses it on COPY TO.
		cond, err := b.bindCondition(&scope{cols: tableCols(c.Table, c.Table.Name)}, s.WhereClause, "COPY FROM WHERE")
		if err != nil {
			return nil, err
		}
		c.Insert.Input = &Filter{Input: c.Insert.Input, Cond: cond}
	}
	opts, err := bindCopyOptions(c, s.Options)
	if err != nil {
		return nil, err
	}
	c.Options = *opts
	return c, nil
}

// bindCopyTable binds the table (and column list) of COPY table FROM/TO.
// COPY FROM a view runs its INSTEAD OF INSERT trigger on each row, as
// INSERT does; any other COPY of a view is PostgreSQL's 42809.
func (b *Binder) bindCopyTable(c *Copy, s *pg_query.CopyStmt) error {
	def, err := b.rangeVarTable(s.Relation)
	var view *catalog.ViewDef
	if pgerr.Code(err) == pgerrcode.WrongObjectType {
		view = b.lookupView(s.Relation.Schemaname, s.Relation.Relname)
	}
	switch {
	case view != nil && !c.From:
		return pgerr.New(pgerrcode.WrongObjectType, "cannot copy from view \"%s\"", view.Name).WithHint("Try the COPY (SELECT ...) TO variant.")
	case view != nil && !view.InsteadOf("INSERT"):
		return pgerr.New(pgerrcode.WrongObjectType, "cannot copy to view \"%s\"", view.Name).WithHint("To enable copying to a view, provide an INSTEAD OF INSERT trigger.")
	case view != nil:
		def = view.TriggerTable()
	case err != nil:
		return err
	}
	c.Table = def
	var names []string
	for _, n := range s.Attlist {
		names = append(names, n.GetString_().GetSval())
	}
	positions, err := copyColumns(def, names)
	if err != nil {
		return err
	}
	switch {
	case view != nil:
		b.accesses = append(b.accesses, Access{View: view, Privs: catalog.PrivInsert})
	case c.From:
		b.need(def, catalog.PrivInsert, positions...)
	default:
		b.need(def, catalog.PrivSelect, positions...)
	}
	all := tableCols(def, def.Name)
	for _, pos := range positions {
		c.Columns = append(c.Columns, all[pos])
	}
	on, err := b.rowSecurity(def)
	if err != nil {
		return err
	}
	if on && c.From {
		return pgerr.New(pgerrcode.FeatureNotSupported, "COPY FROM not supported with row-level security").WithHint("Use INSERT statements instead.")
	}
	if !c.From {
		c.Query = &Scan{Table: def, Alias: def.Name, Cols: positions, Out: c.Columns}
		if on {
			// As PostgreSQL does, COPY t TO reads SELECT cols FROM t.
			scan := tableScan(def, false)
			filtered, err := b.securityFilter(def, scan, catalog.PolicySelect)
			if err != nil {
				return err
			}
			exprs := make([]Expr, len(positions))
			for i, pos := range positions {
				exprs[i] = columnRef(def, pos, 0)
			}
			c.Query = &Project{Input: filtered, Exprs: exprs, Out: c.Columns}
		}
		return nil
	}
	row, err := b.tableRow(def, positions, &CopySource{Out: c.Columns})
	if err != nil {
		return err
	}
	c.Insert = &Insert{Table: def, Input: row, Instead: view != nil}
	return nil
}

// bindCopyQuery binds the query of COPY (query) TO.
func (b *Binder) bindCopyQuery(c *Copy, query *pg_query.Node) error {
	bound, err := b.bindStatement(query)
	if err != nil {
		return err
	}
	q, ok := bound.(*Query)
	if !ok {
		return pgerr.NotSupported("COPY of statement %s", statementName(query))
	}
	switch q.Plan.(type) {
	case *Insert, *Update, *Delete:
		// PostgreSQL copies their RETURNING rows; cairn does not.
		return pgerr.NotSupported("COPY (%s ... RETURNING) TO", strings.ToUpper(statementName(query)))
	}
	c.Query = q.Plan
	for _, col := range q.Plan.Columns() {
		if !col.Hidden {
			c.Columns = append(c.Columns, col)
		}
	}
	return nil
}

// bindCopyOptions checks COPY's options as PostgreSQL's
// ProcessCopyOptions does (same messages and SQLSTATEs) and fills in the
// defaults of the format.
func bindCopyOptions(c *Copy, list []*pg_query.Node) (*CopyOptions, error) {
	o := &CopyOptions{}
	var delim, null, quote, escape *string
	seen := map[string]bool{}
	var forceQuoteAll bool
	var forceQuote, forceNotNull, forceNull []string
	for _, n := range list {
		d := n.GetDefElem()
		if d == nil {
			continue
		}
		pos := d.Location + 1
		if seen[d.Defname] {
			return nil, pgerr.New(pgerrcode.SyntaxError, "conflicting or redundant options").WithPosition(pos)
		}
		seen[d.Defname] = true
		str := func() *string { v := defString(d.Arg); return &v }
		switch d.Defname {
		case "format":
			switch v := defString(d.Arg); v {
			case "text":
				o.Format = CopyText
			case "csv":
				o.Format = CopyCSV
			case "binary":
				o.Format = CopyBinary
			default:
				return nil, pgerr.New(pgerrcode.InvalidParameterValue, "COPY format \"%s\" not recognized", v).WithPosition(pos)
			}
		case "freeze":
			v, err := copyBool(d)
			if err != nil {
				return nil, err
			}
			o.Freeze = v
		case "delimiter":
			delim = str()
		case "null":
			null = str()
		case "header":
			if err := copyHeader(o, d, c.From); err != nil {
				return nil, err
			}
		case "quote":
			quote = str()
		case "escape":
			escape = str()
		case "force_quote", "force_not_null", "force_null":
			var names []string
			switch a := d.Arg.GetNode().(type) {
			case *pg_query.Node_AStar:
				if d.Defname != "force_quote" {
					return nil, copyListError(d)
				}
				forceQuoteAll = true
			case *pg_query.Node_List:
				names = strList(a.List.Items)
			default:
				return nil, copyListError(d)
			}
			switch d.Defname {
			case "force_quote":
				forceQuote = names
			case "force_not_null":
				forceNotNull = names
			default:
				forceNull = names
			}
		case "encoding":
			if err := copyEncoding(d); err != nil {
				return nil, err
			}
		default:
			return nil, pgerr.New(pgerrcode.SyntaxError, "option \"%s\" not recognized", d.Defname).WithPosition(pos)
		}
	}
	csv := o.Format == CopyCSV
	switch {
	case o.Format == CopyBinary && delim != nil:
		return nil, pgerr.New(pgerrcode.SyntaxError, "cannot specify DELIMITER in BINARY mode")
	case o.Format == CopyBinary && null != nil:
		return nil, pgerr.New(pgerrcode.SyntaxError, "cannot specify NULL in BINARY mode")
	case o.Format == CopyBinary && o.Header:
		return nil, unsupported("cannot specify HEADER in BINARY mode")
	}
	o.Delimiter, o.Null = '\t', `\N`
	if csv {
		o.Delimiter, o.Null = ',', ""
	}
	if null != nil {
		o.Null = *null
	}
	if delim != nil {
		if len(*delim) != 1 {
			return nil, unsupported("COPY delimiter must be a single one-byte character")
		}
		o.Delimiter = (*delim)[0]
	}
	switch {
	case o.Delimiter == '\n' || o.Delimiter == '\r':
		return nil, pgerr.New(pgerrcode.InvalidParameterValue, "COPY delimiter cannot be newline or carriage return")
	case strings.ContainsAny(o.Null, "\r\n"):
		return nil, pgerr.New(pgerrcode.InvalidParameterValue, "COPY null representation cannot use newline or carriage return")
	case !csv && strings.IndexByte(`\.abcdefghijklmnopqrstuvwxyz0123456789`, o.Delimiter) >= 0:
		return nil, pgerr.New(pgerrcode.InvalidParameterValue, "COPY delimiter cannot be \"%c\"", o.Delimiter)
	case !csv && quote != nil:
		return nil, unsupported("COPY quote available only in CSV mode")
	case quote != nil && len(*quote) != 1:
		return nil, unsupported("COPY quote must be a single one-byte character")
	case csv && quote != nil && (*quote)[0] == o.Delimiter, csv && quote == nil && o.Delimiter == '"':
		return nil, pgerr.New(pgerrcode.InvalidParameterValue, "COPY delimiter and quote must be different")
	case !csv && escape != nil:
		return nil, unsupported("COPY escape available only in CSV mode")
	case escape != nil && len(*escape) != 1:
		return nil, unsupported("COPY escape must be a single one-byte character")
	}
	if csv {
		o.Quote = '"'
		if quote != nil {
			o.Quote = (*quote)[0]
		}
		o.Escape = o.Quote
		if escape != nil {
			o.Escape = (*escape)[0]
		}
	}
	for _, f := range []struct {
		set      bool
		name     string
		fromOnly bool
	}{
		{forceQuoteAll || forceQuote != nil, "force quote", false},
		{forceNotNull != nil, "force not null", true},
		{forceNull != nil, "force null", true},
	} {
		switch {
		case !f.set:
		case !csv:
			return nil, unsupported("COPY %s available only in CSV mode", f.name)
		case f.fromOnly && !c.From:
			return nil, unsupported("COPY %s only available using COPY FROM", f.name)
		case !f.fromOnly && c.From:
			return nil, unsupported("COPY %s only available using COPY TO", f.name)
		}
	}
	if strings.IndexByte(o.Null, o.Delimiter) >= 0 {
		return nil, unsupported("COPY delimiter must not appear in the NULL specification")
	}
	if csv && strings.IndexByte(o.Null, o.Quote) >= 0 {
		return nil, unsupported("CSV quote character must not appear in the NULL specification")
	}
	var err error
	if forceQuoteAll {
		o.ForceQuote = make([]bool, len(c.Columns))
		for i := range o.ForceQuote {
			o.ForceQuote[i] = true
		}
	} else if o.ForceQuote, err = copyColumnFlags(c, "FORCE_QUOTE", forceQuote); err != nil {
		return nil, err
	}
	if o.ForceNotNull, err = copyColumnFlags(c, "FORCE_NOT_NULL", forceNotNull); err != nil {
		return nil, err
	}
	if o.ForceNull, err = copyColumnFlags(c, "FORCE_NULL", forceNull); err != nil {
		return nil, err
	}
	return o, nil
}

// unsupported is a 0A000 error with PostgreSQL's own wording (unlike
// pgerr.NotSupported, which appends "is not supported").
func unsupported(format string, args ...any) *pgerr.Error {
	return pgerr.New(pgerrcode.FeatureNotSupported, format, args...)
}

// copyBool reads a Boolean option as PostgreSQL's defGetBoolean: no value
// is true; 0, 1, true, false, on and off are accepted.
func copyBool(d *pg_query.DefElem) (bool, error) {
	if d.Arg == nil {
		return true, nil
	}
	switch v := d.Arg.Node.(type) {
	case *pg_query.Node_Boolean:
		return v.Boolean.Boolval, nil
	case *pg_query.Node_Integer:
		switch v.Integer.Ival {
		case 0:
			return false, nil
		case 1:
			return true, nil
		}
	default:
		switch strings.ToLower(defString(d.Arg)) {
		case "true", "on":
			return true, nil
		case "false", "off":
			return false, nil
		}
	}
	return false, pgerr.New(pgerrcode.SyntaxError, "%s requires a Boolean value", d.Defname)
}

// copyHeader reads HEADER: a Boolean, or MATCH (COPY FROM only), which
// checks the header line against the column names.
func copyHeader(o *CopyOptions, d *pg_query.DefElem, from bool) error {
	if d.Arg != nil && strings.EqualFold(defString(d.Arg), "match") {
		if !from {
			return unsupported("cannot use \"%s\" with HEADER in COPY TO", defString(d.Arg))
		}
		o.Header, o.HeaderMatch = true, true
		return nil
	}
	v, err := copyBool(d)
	if err != nil {
		return pgerr.New(pgerrcode.SyntaxError, "%s requires a Boolean value or \"match\"", d.Defname)
	}
	o.Header = v
	return nil
}

func copyListError(d *pg_query.DefElem) error {
	return pgerr.New(pgerrcode.InvalidParameterValue, "argument to option \"%s\" must be a list of column names", d.Defname).
		WithPosition(d.Location + 1)
}

// copyEncoding accepts ENCODING for UTF8, the only encoding cairn reads
// and writes.
func copyEncoding(d *pg_query.DefElem) error {
	name := defString(d.Arg)
	norm := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return -1
	}, name)
	if norm == "utf8" || norm == "unicode" {
		return nil
	}
	return pgerr.NotSupported("COPY ENCODING \"%s\"", name).WithHint("cairn reads and writes UTF8 only.")
}

// copyColumnFlags resolves the column list of FORCE_QUOTE, FORCE_NOT_NULL
// or FORCE_NULL to flags over c.Columns; nil when the option is absent.
func copyColumnFlags(c *Copy, option string, names []string) ([]bool, error) {
	if names == nil {
		return nil, nil
	}
	flags := make([]bool, len(c.Columns))
	for _, name := range names {
		i := 0
		for i < len(c.Columns) && c.Columns[i].Name != name {
			i++
		}
		switch {
		case i < len(c.Columns):
			flags[i] = true
		case c.Table == nil:
			return nil, pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" does not exist", name)
		default:
			if _, col := c.Table.Column(name); col != nil {
				return nil, pgerr.New(pgerrcode.InvalidColumnReference, "%s column \"%s\" not referenced by COPY", option, name)
			}
			return nil, pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, c.Table.Name)
		}
	}
	return flags, nil
}

// copyColumns resolves COPY's column list to column positions, as
// targetColumns does, leaving out the generated columns when the list is
// empty and refusing them when it names one (42P10), as PostgreSQL does.
func copyColumns(def *catalog.TableDef, names []string) ([]int, error) {
	positions, err := targetColumns(def, names, nil)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, pos := range positions {
		col := def.Columns[pos]
		if col.Generated == "" {
			out = append(out, pos)
			continue
		}
		if len(names) > 0 {
			return nil, pgerr.New(pgerrcode.InvalidColumnReference, "column \"%s\" is a generated column", col.Name).
				WithDetail("Generated columns cannot be used in COPY.")
		}
	}
	return out, nil
}
