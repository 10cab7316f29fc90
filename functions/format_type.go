package functions

// format_type(type_oid, typemod): a type's SQL name with its modifier, as
// psql's \d and drivers print pg_attribute's atttypid and atttypmod
// ("character varying(20)", "numeric(10,2)", "real[]").
//
// The typemod is PostgreSQL's, not types.T's Mod: varchar(n) and char(n)
// store n+4 and numeric(p,s) ((p<<16)|s)+4 (VARHDRSZ is added), while
// vector(n), the time types' precision and interval's fields and precision
// are stored as they are. A NULL typemod means none was given, -1 that
// the column has none; they differ only for char, which prints as
// "character" and "bpchar" respectively (PostgreSQL's format_type_extended).

import (
	"fmt"
	"strings"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

// varHdrSz is PostgreSQL's VARHDRSZ, added to the length of varchar(n),
// char(n) and numeric(p,s) in their typemods.
const varHdrSz = 4

func init() {
	Register(allStable(&Overload{Name: "format_type", Args: targs(types.OidT, tInt4), Result: tText, NullCall: true,
		Eval: func(ctx *Context, a []any) (any, error) {
			if a[0] == nil {
				return nil, nil
			}
			if _, ok := types.ByOID(uint32(a[0].(int64))); !ok && a[0].(int64) != 0 && ctx != nil && ctx.Catalog != nil {
				// A user type (an enum, or an array of one): its name, as
				// regtype prints it.
				if name, ok := ctx.Catalog.Name(types.RegType, a[0].(int64)); ok {
					return name, nil
				}
			}
			typmod, given := int64(-1), a[1] != nil
			if given {
				typmod = a[1].(int64)
			}
			return formatType(a[0].(int64), typmod, given)
		}})...)
}

// formatType is format_type(oid, typmod); given is false for a NULL
// typmod. Unknown OIDs print as "???" and InvalidOid as "-".
func formatType(oid, typmod int64, given bool) (string, error) {
	if oid == 0 {
		return "-", nil
	}
	t, ok := types.ByOID(uint32(oid))
	if !ok {
		return "???", nil
	}
	if t.IsArray() {
		// An array prints as its element type, modifier included, plus [].
		s, err := formatTypeName(*t.Elem, typmod, given)
		return s + "[]", err
	}
	return formatTypeName(t, typmod, given)
}

// formatTypeName formats a non-array type with its typmod.
func formatTypeName(t types.T, typmod int64, given bool) (string, error) {
	withMod := given && typmod >= 0
	switch t.Family {
	case types.Char:
		switch {
		case !withMod && given:
			// char with typmod -1 is not character(1): PostgreSQL
			// prints the internal name so the output reads back the same.
			return "bpchar", nil
		case withMod && typmod > varHdrSz:
			return types.T{Family: types.Char, Mod: int32(typmod - varHdrSz)}.String(), nil
		}
		return "character", nil
	case types.Varchar:
		if withMod && typmod > varHdrSz {
			return types.T{Family: types.Varchar, Mod: int32(typmod - varHdrSz)}.String(), nil
		}
		return "character varying", nil
	case types.Numeric:
		if withMod && typmod >= varHdrSz {
			// numeric_typmod_precision and numeric_typmod_scale: the
			// scale is an 11-bit signed field (numeric(10,-2)).
			m := typmod - varHdrSz
			return fmt.Sprintf("numeric(%d,%d)", (m>>16)&0xffff, ((m&0x7ff)^1024)-1024), nil
		}
		return "numeric", nil
	case types.Time:
		if withMod {
			return fmt.Sprintf("time(%d) without time zone", typmod), nil
		}
	case types.TimestampFamily:
		if withMod {
			return fmt.Sprintf("timestamp(%d) without time zone", typmod), nil
		}
	case types.TimestampTZ:
		if withMod {
			return fmt.Sprintf("timestamp(%d) with time zone", typmod), nil
		}
	case types.Interval:
		if withMod {
			fields, err := intervalTypmodOut(typmod)
			return "interval" + fields, err
		}
	case types.Bool, types.Int2, types.Int4, types.Int8, types.Float4, types.Float8:
		// Spelled as SQL keywords; PostgreSQL ignores their typmod.
	default:
		if withMod {
			// pgvector's vector(n) stores n itself; the types without a
			// typmodout function print the raw typmod the same way.
			return fmt.Sprintf("%s(%d)", t.String(), typmod), nil
		}
	}
	return t.String(), nil
}

// intervalTypmodOut is PostgreSQL's intervaltypmodout: the fields in the
// high half of the typmod and the seconds' precision in the low half
// (0xffff: none).
func intervalTypmodOut(typmod int64) (string, error) {
	fields, ok := types.IntervalFields(int((typmod >> 16) & types.IntervalFullRange))
	if !ok {
		return "", pgerr.New(pgerrcode.InternalError, "invalid INTERVAL typmod: 0x%x", typmod)
	}
	if p := typmod & 0xffff; p != 0xffff {
		return fmt.Sprintf("%s(%d)", fields, p), nil
	}
	return fields, nil
}

// oidvectortypes(oidvector) is the types of an oidvector (pg_proc's
// proargtypes) formatted and joined with ", ", as pgAdmin lists a
// function's arguments.
func init() {
	Register(allStable(fn1("oidvectortypes", types.OidVectorT, tText, func(a any) (any, error) {
		arr, ok := a.(*types.Array)
		if !ok {
			return nil, nil
		}
		names := make([]string, 0, len(arr.Elems))
		for _, e := range arr.Elems {
			oid, _ := e.(int64)
			s, err := formatType(oid, -1, false)
			if err != nil {
				return nil, err
			}
			names = append(names, s)
		}
		return strings.Join(names, ", "), nil
	}))...)
}
