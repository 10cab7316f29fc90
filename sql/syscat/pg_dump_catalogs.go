package syscat

// The pg_catalog relations pg_dump reads that hold objects cairn does
// not have (initial privileges of extension objects, operator families
// and their members, text search parsers, templates, dictionaries and
// configurations, transforms, partitioned tables, subscriptions, large
// objects, security labels, shared or not): PostgreSQL 15's columns, no rows, as in a
// database where none was created. With them pg_dump's catalog queries
// run, and find nothing of these kinds to dump. pg_ts_config (in
// pg_ts_config.go) lists cairn's two built-in configurations.

func init() {
	const pc = "pg_catalog"
	register(pc, "pg_init_privs", 3394, "objoid oid, classoid oid, objsubid int4, privtype \"char\", initprivs text[]", nil)
	register(pc, "pg_opfamily", 2753, "oid oid, opfmethod oid, opfname name, opfnamespace oid, opfowner oid", nil)
	register(pc, "pg_amop", 2602, "oid oid, amopfamily oid, amoplefttype oid, amoprighttype oid, amopstrategy int2, amoppurpose \"char\", amopopr oid, amopmethod oid, amopsortfamily oid", nil)
	register(pc, "pg_amproc", 2603, "oid oid, amprocfamily oid, amproclefttype oid, amprocrighttype oid, amprocnum int2, amproc regproc", nil)
	register(pc, "pg_ts_parser", 3601, "oid oid, prsname name, prsnamespace oid, prsstart regproc, prstoken regproc, prsend regproc, prsheadline regproc, prslextype regproc", nil)
	register(pc, "pg_ts_template", 3764, "oid oid, tmplname name, tmplnamespace oid, tmplinit regproc, tmpllexize regproc", nil)
	register(pc, "pg_ts_dict", 3600, "oid oid, dictname name, dictnamespace oid, dictowner oid, dicttemplate oid, dictinitoption text", nil)
	register(pc, "pg_transform", 3576, "oid oid, trftype oid, trflang oid, trffromsql regproc, trftosql regproc", nil)
	register(pc, "pg_partitioned_table", 3350, "partrelid oid, partstrat \"char\", partnatts int2, partdefid oid, partattrs int2[], partclass oid[], partcollation oid[], partexprs text", nil)
	register(pc, "pg_subscription", 6100, "oid oid, subdbid oid, subskiplsn text, subname name, subowner oid, subenabled bool, subbinary bool, substream bool, subtwophasestate \"char\", subdisableonerr bool, subconninfo text, subslotname name, subsynccommit text, subpublications text[]", nil)
	register(pc, "pg_largeobject_metadata", 2995, "oid oid, lomowner oid, lomacl text[]", nil)
	register(pc, "pg_seclabel", 3596, "objoid oid, classoid oid, objsubid int4, provider text, label text", nil)
	register(pc, "pg_shseclabel", 3592, "objoid oid, classoid oid, provider text, label text", nil)
	register(pc, "pg_seclabels", 0, "objoid oid, classoid oid, objsubid int4, objtype text, objnamespace oid, objname text, provider text, label text", nil)
}
