package syscat

// The pg_catalog relations that database tools read beyond psql's \d:
// DBeaver's and pgAdmin's object browsers, Metabase's table sync
// (pg_stat_user_tables), pgjdbc (pg_settings, in pg_settings.go). They
// have PostgreSQL 15's columns; those of objects cairn does not have
// (operators, casts, aggregates, foreign servers, event triggers, ...)
// are empty, as in a database where none was created.

import (
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	const pc = "pg_catalog"

	// The statistics views count nothing yet: no scans, and 0 live rows
	// (what PostgreSQL shows before its statistics are first collected).
	register(pc, "pg_stat_user_tables", 0, "relid oid, schemaname name, relname name, seq_scan int8, seq_tup_read int8, idx_scan int8, idx_tup_fetch int8, n_tup_ins int8, n_tup_upd int8, n_tup_del int8, n_tup_hot_upd int8, n_live_tup int8, n_dead_tup int8, n_mod_since_analyze int8, n_ins_since_vacuum int8, last_vacuum timestamptz, last_autovacuum timestamptz, last_analyze timestamptz, last_autoanalyze timestamptz, vacuum_count int8, autovacuum_count int8, analyze_count int8, autoanalyze_count int8", func(v *View) [][]any {
		var rows [][]any
		zero := int64(0)
		for _, t := range v.tables {
			// Index counters are NULL for a table without indexes.
			var idxScan, idxFetch any
			if v.hasIndex(t) {
				idxScan, idxFetch = zero, zero
			}
			rows = append(rows, []any{TableOID(t.ID), t.Schema, t.Name, zero, zero, idxScan, idxFetch, zero, zero, zero, zero,
				zero, zero, zero, zero, nil, nil, nil, nil, zero, zero, zero, zero})
		}
		return rows
	})
	register(pc, "pg_locks", 0, "locktype text, database oid, relation oid, page int4, tuple int2, virtualxid text, transactionid oid, classid oid, objid oid, objsubid int2, virtualtransaction text, pid int4, mode text, granted bool, fastpath bool, waitstart timestamptz", nil)
	register(pc, "pg_prepared_xacts", 0, "transaction oid, gid text, prepared timestamptz, owner name, database name", nil)
	// cairn does not enumerate the time zone database.
	register(pc, "pg_timezone_names", 0, "name text, abbrev text, utc_offset interval, is_dst bool", nil)

	// The languages of a fresh PostgreSQL 15 database, with its OIDs.
	register(pc, "pg_language", 2612, "oid oid, lanname name, lanowner oid, lanispl bool, lanpltrusted bool, lanplcallfoid oid, laninline oid, lanvalidator oid, lanacl text[]", func(v *View) [][]any {
		owner := int64(BootstrapUserOID)
		return [][]any{
			{int64(12), "internal", owner, false, false, int64(0), int64(0), int64(2246), nil},
			{int64(13), "c", owner, false, false, int64(0), int64(0), int64(2247), nil},
			{int64(14), "sql", owner, false, true, int64(0), int64(0), int64(2248), nil},
			{int64(13563), "plpgsql", owner, true, true, int64(13560), int64(13561), int64(13562), nil},
		}
	})
	// The extensions cairn has built in, all installed (extensions.go).
	register(pc, "pg_available_extensions", 0, "name name, default_version text, installed_version text, comment text", func(v *View) [][]any {
		var rows [][]any
		for _, e := range extensions {
			rows = append(rows, []any{e.name, e.version, e.version, e.comment})
		}
		return rows
	})
	// The roles with their password verifiers, which only superusers may
	// read (pg_roles masks them).
	register(pc, "pg_authid", 1260, "oid oid, rolname name, rolsuper bool, rolinherit bool, rolcreaterole bool, rolcreatedb bool, rolcanlogin bool, rolreplication bool, rolbypassrls bool, rolconnlimit int4, rolpassword text, rolvaliduntil timestamptz", func(v *View) [][]any {
		var rows [][]any
		for _, r := range v.Cat.RoleList() {
			var pw any
			if r.Password != "" {
				pw = r.Password
			}
			boot := r.OID == catalog.BootstrapRoleOID
			rows = append(rows, []any{int64(r.OID), r.Name, r.Superuser, r.Inherit, r.CreateRole, r.CreateDB, r.Login, boot, boot || r.BypassRLS, int64(r.ConnLimit), pw, validUntil(r)})
		}
		return rows
	})
	relations[pc+".pg_authid"].SuperuserOnly = true

	// pg_depend: the sequences columns own (OwnedSequence: deptype 'a',
	// 'i' for an identity column's), which psql's \d shows as "Owned by";
	// what a column default's expression uses (its sequence, 'n') and the
	// column it belongs to ('a'); what a view's _RETURN rule reads ('n');
	// the built-in extensions' members ('e'); what a foreign key
	// references ('n'). pg_dump orders its output by these, and leaves
	// extension members to their extension.
	register(pc, "pg_depend", 2608, "classid oid, objid oid, objsubid int4, refclassid oid, refobjid oid, refobjsubid int4, deptype \"char\"", func(v *View) [][]any {
		var rows [][]any
		dep := func(classid, objid, refclassid, refobjid, refsub int64, kind string) {
			rows = append(rows, []any{classid, objid, int64(0), refclassid, refobjid, refsub, kind})
		}
		for _, t := range v.tables {
			for i, c := range t.Columns {
				if s := v.OwnedSequence(t, &t.Columns[i]); s != nil {
					// An identity column's sequence is internal to it.
					kind := "a"
					if c.Identity != "" {
						kind = "i"
					}
					dep(pgClassOID, SequenceOID(s.Schema, s.Name), pgClassOID, TableOID(t.ID), int64(i+1), kind)
				}
				s := v.ColumnSequence(c.Default)
				if s == nil || c.Identity != "" {
					continue
				}
				def := attrdefOID(t, c)
				dep(pgAttrdefOID, def, pgClassOID, TableOID(t.ID), int64(i+1), "a")
				dep(pgAttrdefOID, def, pgClassOID, SequenceOID(s.Schema, s.Name), 0, "n")
			}
		}
		// A foreign key depends on the table it references and on that
		// table's unique index it checks against, which belongs to the
		// key's constraint: pg_restore -j adds the foreign key after it.
		for _, c := range v.constraints {
			if (c.kind == 'p' || c.kind == 'u') && c.index != nil {
				// A key's index is the constraint's (internal).
				dep(pgClassOID, c.index.oid, pgConstraintOID, c.oid, 0, "i")
			}
			if c.fk == nil {
				continue
			}
			if ref := v.Cat.TableByID(c.fk.RefTable); ref != nil {
				dep(pgConstraintOID, c.oid, pgClassOID, TableOID(ref.ID), 0, "n")
			}
			if c.index != nil {
				dep(pgConstraintOID, c.oid, pgClassOID, c.index.oid, 0, "n")
			}
		}
		for _, d := range v.views {
			rule, view := ruleOID(d), ViewOID(d.Schema, d.Name)
			// The rule is the view's (internal), and its query reads the
			// view's own columns as well as the relations it names.
			dep(pgRewriteOID, rule, pgClassOID, view, 0, "i")
			dep(pgRewriteOID, rule, pgClassOID, view, 0, "n")
			_, refs := v.viewQuery(d)
			for _, ref := range refs {
				dep(pgRewriteOID, rule, pgClassOID, ref, 0, "n")
			}
		}
		// A function returning SETOF a table depends on it (on its row
		// type in PostgreSQL, which cairn's pg_type does not list), so
		// pg_dump writes the table first.
		for _, f := range userFunctions(v.Cat) {
			if f.SetofTable == "" {
				continue
			}
			if t := v.Cat.Table(f.SetofSchema, f.SetofTable); t != nil {
				dep(pgProcOID, FunctionOID(f.Key()), pgClassOID, TableOID(t.ID), 0, "n")
			}
		}
		for _, p := range procDefs() {
			if p.ext != "" {
				dep(pgProcOID, p.oid, pgExtensionOID, extensionNamed(p.ext).oid, 0, "e")
			}
		}
		for _, t := range builtinTypes {
			if t.oid == types.VectorOID {
				vector := extensionNamed("vector").oid
				dep(pgTypeOID, t.oid, pgExtensionOID, vector, 0, "e")
				dep(pgTypeOID, t.array, pgExtensionOID, vector, 0, "e")
			}
		}
		for _, m := range accessMethods {
			if m.ext != "" {
				dep(pgAmOID, m.oid, pgExtensionOID, extensionNamed(m.ext).oid, 0, "e")
			}
		}
		return rows
	})
	// pg_rewrite: each view's _RETURN rule (the view's query).
	register(pc, "pg_rewrite", pgRewriteOID, "oid oid, rulename name, ev_class oid, ev_type \"char\", ev_enabled \"char\", is_instead bool, ev_qual text, ev_action text", func(v *View) [][]any {
		var rows [][]any
		for _, d := range v.views {
			rows = append(rows, []any{ruleOID(d), "_RETURN", ViewOID(d.Schema, d.Name), "1", "O", true, "<>", nil})
		}
		return rows
	})
	register(pc, "pg_foreign_data_wrapper", 2328, "oid oid, fdwname name, fdwowner oid, fdwhandler oid, fdwvalidator oid, fdwacl text[], fdwoptions text[]", nil)
	register(pc, "pg_foreign_server", 1417, "oid oid, srvname name, srvowner oid, srvfdw oid, srvtype text, srvversion text, srvacl text[], srvoptions text[]", nil)
	register(pc, "pg_foreign_table", 3118, "ftrelid oid, ftserver oid, ftoptions text[]", nil)
	// No foreign servers, so no user mappings (psql's \deu).
	register(pc, "pg_user_mapping", 1418, "oid oid, umuser oid, umserver oid, umoptions text[]", nil)
	register(pc, "pg_user_mappings", 0, "umid oid, srvid oid, srvname name, umuser oid, usename name, umoptions text[]", nil)
	register(pc, "pg_event_trigger", 3466, "oid oid, evtname name, evtevent name, evtowner oid, evtfoid oid, evtenabled \"char\", evttags text[]", nil)
	register(pc, "pg_aggregate", 2600, "aggfnoid regproc, aggkind \"char\", aggnumdirectargs int2, aggtransfn regproc, aggfinalfn regproc, aggcombinefn regproc, aggserialfn regproc, aggdeserialfn regproc, aggmtransfn regproc, aggminvtransfn regproc, aggmfinalfn regproc, aggfinalextra bool, aggmfinalextra bool, aggfinalmodify \"char\", aggmfinalmodify \"char\", aggsortop oid, aggtranstype oid, aggtransspace int4, aggmtranstype oid, aggmtransspace int4, agginitval text, aggminitval text", nil)
	register(pc, "pg_opclass", 2616, "oid oid, opcmethod oid, opcname name, opcnamespace oid, opcowner oid, opcfamily oid, opcintype oid, opcdefault bool, opckeytype oid", func(*View) [][]any {
		rows := make([][]any, 0, len(opClasses))
		for _, c := range opClasses {
			rows = append(rows, []any{c.oid, amOID(c.method), c.name, int64(PgCatalogOID), int64(BootstrapUserOID), c.family, c.inType, c.def, c.keyType})
		}
		return rows
	})
	register(pc, "pg_conversion", 2607, "oid oid, conname name, connamespace oid, conowner oid, conforencoding int4, contoencoding int4, conproc regproc, condefault bool", nil)
	register(pc, "pg_cast", 2605, "oid oid, castsource oid, casttarget oid, castfunc oid, castcontext \"char\", castmethod \"char\"", nil)
	register(pc, "pg_operator", 2617, "oid oid, oprname name, oprnamespace oid, oprowner oid, oprkind \"char\", oprcanmerge bool, oprcanhash bool, oprleft oid, oprright oid, oprresult oid, oprcom oid, oprnegate oid, oprcode regproc, oprrest regproc, oprjoin regproc", nil)
}
