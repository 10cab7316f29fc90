package wire

import (
	"context"
	"net/http"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgproto3/v2"

	"github.com/cairn-db/cairn/exec/session"
	"github.com/cairn-db/cairn/sql/ident"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// listTablesSQL lists a schema's tables, as information_schema shows them
// to any client.
const listTablesSQL = `SELECT table_name::text FROM information_schema.tables
WHERE table_schema = $1 AND table_type = 'BASE TABLE' ORDER BY table_name`

// tableName is an element of GET /workspaces/{ws}/tables's answer.
type tableName struct {
	TableName string `json:"table_name"`
}

// listTables answers GET /workspaces/{ws}/tables with the workspace's
// tables sorted by name, in pg_deeplake's shape:
//
//	{"tables": [{"table_name": "memory"}, {"table_name": "sessions"}]}
//
// A workspace that has no schema yet has no tables.
func (a *httpAPI) listTables(w http.ResponseWriter, r *http.Request) {
	tables, err := a.tables(r)
	if err != nil {
		a.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string][]tableName{"tables": tables})
}

func (a *httpAPI) tables(r *http.Request) ([]tableName, error) {
	ws := r.PathValue("ws")
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	sess, err := a.workspaceSession(r, ws, cancel)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	names, err := queryTexts(ctx, sess, listTablesSQL, ws)
	tables := []tableName{}
	for _, n := range names {
		tables = append(tables, tableName{n})
	}
	return tables, err
}

// queryTexts runs query, whose parameters are the texts params, in sess
// and returns its first column as text.
func queryTexts(ctx context.Context, sess *session.Session, query string, params ...string) ([]string, error) {
	ptypes := make([]types.T, len(params))
	args := make([]any, len(params))
	for i, p := range params {
		ptypes[i], args[i] = types.TextT, p
	}
	st, err := prepareOne(sess, query, ptypes)
	if err != nil {
		return nil, err
	}
	opts := sessionTextOptions(sess)
	var out []string
	_, _, err = execute(ctx, sess, st, args, func(cols []session.Column, rec arrow.Record) error {
		for i := 0; i < int(rec.NumRows()); i++ {
			v, err := appendValue(nil, rec.Column(0), i, cols[0].Type, pgproto3.TextFormat, opts)
			if err != nil {
				return err
			}
			out = append(out, string(v))
		}
		return nil
	})
	return out, err
}

// dropTable answers DELETE /workspaces/{ws}/tables/{name}: the table is
// dropped, {"table_name": name} comes back; a table that does not exist
// is a 404 with the 42P01 error.
func (a *httpAPI) dropTable(w http.ResponseWriter, r *http.Request) {
	name, err := pathTable(r)
	if err != nil {
		a.fail(w, err)
		return
	}
	if err := a.drop(r, name); err != nil {
		if pgerr.Code(err) == pgerrcode.UndefinedTable {
			writeError(w, http.StatusNotFound, codeQuery, pgerr.From(err))
			return
		}
		a.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, tableName{name})
}

// pathTable is the {name} of r's path, a table name: one that is not
// UTF-8 or holds a NUL is 22021 in a 400, as in a query's text, rather
// than the parser's error about the statement built around it.
func pathTable(r *http.Request) (string, error) {
	name := r.PathValue("name")
	if err := checkTextBytes([]byte(name)); err != nil {
		return "", &requestError{http.StatusBadRequest, codeBadRequest, pgerr.From(err)}
	}
	return name, nil
}

func (a *httpAPI) drop(r *http.Request, name string) error {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	sess, err := a.workspaceSession(r, r.PathValue("ws"), cancel)
	if err != nil {
		return err
	}
	defer sess.Close()
	st, err := prepareOne(sess, "DROP TABLE "+ident.Quote(name), nil)
	if err != nil {
		return err
	}
	_, _, err = execute(ctx, sess, st, nil, nil)
	return err
}
