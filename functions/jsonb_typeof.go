package functions

// jsonb_typeof / json_typeof and jsonb_array_length / json_array_length.

import (
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func init() {
	typeOf := func(a any) (any, error) {
		j, err := parseJSON(a.(string))
		if err != nil {
			return nil, err
		}
		return jsonTypeof(j), nil
	}
	arrLen := func(a any) (any, error) {
		j, err := parseJSON(a.(string))
		if err != nil {
			return nil, err
		}
		switch j.kind {
		case jsonArray:
			return int64(len(j.vals)), nil
		case jsonObject:
			return nil, pgerr.New(pgerrcode.InvalidParameterValue, "cannot get array length of a non-array")
		}
		return nil, pgerr.New(pgerrcode.InvalidParameterValue, "cannot get array length of a scalar")
	}
	Register(
		fn1("jsonb_typeof", types.JSONBT, tText, typeOf),
		fn1("json_typeof", types.JSONT, tText, typeOf),
		fn1("jsonb_array_length", types.JSONBT, tInt4, arrLen),
		fn1("json_array_length", types.JSONT, tInt4, arrLen),
	)
}
