package sql

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-db/cairn/sql/types"
)

// ExplainFormat is EXPLAIN's FORMAT option.
type ExplainFormat uint8

const (
	ExplainText ExplainFormat = iota
	ExplainJSON
	ExplainYAML
	ExplainXML
)

// parseExplainFormat maps a FORMAT option's word to its format.
func parseExplainFormat(s string) (ExplainFormat, bool) {
	switch strings.ToLower(s) {
	case "text":
		return ExplainText, true
	case "json":
		return ExplainJSON, true
	case "yaml":
		return ExplainYAML, true
	case "xml":
		return ExplainXML, true
	}
	return 0, false
}

// ExplainColumnType is the type of EXPLAIN's one "QUERY PLAN" column:
// json for FORMAT JSON, as in PostgreSQL, so that clients decode the
// document; text otherwise (PostgreSQL's xml for FORMAT XML is text here,
// cairn having no xml type).
func ExplainColumnType(f ExplainFormat) types.T {
	if f == ExplainJSON {
		return types.JSONT
	}
	return types.TextT
}

// ExplainProp is one property of a plan node in a structured EXPLAIN:
// Value is a string, a []string (a list such as "Sort Key"), an int64, a
// bool or a float64 of milliseconds (printed with three decimals).
type ExplainProp struct {
	Key   string
	Value any
}

// ExplainNode is a plan node as a structured EXPLAIN shows it: its
// "Node Type", its properties in order, and its children.
type ExplainNode struct {
	Type     string
	Props    []ExplainProp
	Children []*ExplainNode
}

// ExplainActual is what EXPLAIN ANALYZE measured of one plan node.
type ExplainActual struct {
	Rows    int64
	Elapsed time.Duration
	Started bool
}

// ExplainTree describes plan n node by node for the structured formats,
// with the node names of the text format mapped onto PostgreSQL's keys
// (a "Hash Inner Join" is Node Type "Hash Join" with Join Type "Inner",
// "Seq Scan on t x" has Relation Name and Alias). Projections are left
// out as in the text format. actual, when not nil, gives each node's
// ANALYZE figures.
func ExplainTree(n Node, actual func(Node) (ExplainActual, bool)) *ExplainNode {
	var walk func(n Node, rel string) *ExplainNode
	walk = func(n Node, rel string) *ExplainNode {
		for {
			p, ok := n.(*Project)
			if !ok {
				break
			}
			n = p.Input
		}
		typ, props := explainProps(n)
		// PostgreSQL's order: the node's strategy first, then how it
		// hangs under its parent, then what it reads, then the actual
		// figures, then the details.
		head := []ExplainProp{{"Node Type", typ}}
		for len(props) > 0 && isStrategyProp(props[0].Key) {
			head = append(head, props[0])
			props = props[1:]
		}
		if rel != "" {
			head = append(head, ExplainProp{"Parent Relationship", rel})
		}
		head = append(head, ExplainProp{"Parallel Aware", false}, ExplainProp{"Async Capable", false})
		for len(props) > 0 && isTargetProp(props[0].Key) {
			head = append(head, props[0])
			props = props[1:]
		}
		if actual != nil {
			if a, ok := actual(n); ok && a.Started {
				head = append(head,
					ExplainProp{"Actual Total Time", float64(a.Elapsed.Nanoseconds()) / 1e6},
					ExplainProp{"Actual Rows", a.Rows},
					ExplainProp{"Actual Loops", int64(1)})
			} else {
				head = append(head, ExplainProp{"Actual Rows", int64(0)}, ExplainProp{"Actual Loops", int64(0)})
			}
		}
		out := &ExplainNode{Type: typ, Props: append(head, props...)}
		children := n.Children()
		for i, c := range children {
			out.Children = append(out.Children, walk(c, childRelationship(n, i)))
		}
		return out
	}
	return walk(n, "")
}

// isStrategyProp reports whether a property, listed first, comes before
// "Parent Relationship" as in PostgreSQL.
func isStrategyProp(key string) bool {
	return key == "Strategy" || key == "Partial Mode" || key == "Operation"
}

// isTargetProp reports whether a property, listed first, says what the
// node reads or how it joins (printed before the actual figures).
func isTargetProp(key string) bool {
	switch key {
	case "Join Type", "Command", "Scan Direction", "Index Name", "Relation Name", "Alias", "Function Name", "CTE Name", "Schema":
		return true
	}
	return false
}

// childRelationship is PostgreSQL's "Parent Relationship" of child i of n:
// a join's inner side is "Inner", a set operation's inputs are its
// "Member"s, any other input is "Outer".
func childRelationship(n Node, i int) string {
	switch n.(type) {
	case *SetOp, *RecursiveUnion, *ModifyingWith:
		return "Member"
	case *Join, *LateralJoin:
		if i == 1 {
			return "Inner"
		}
	}
	return "Outer"
}

// explainProps is the Node Type and the properties of one node.
func explainProps(n Node) (string, []ExplainProp) {
	scan := func(s *Scan) []ExplainProp {
		alias := s.Alias
		if alias == "" {
			alias = s.Table.Name
		}
		return []ExplainProp{{"Relation Name", s.Table.Name}, {"Alias", alias}}
	}
	str := func(key string, e Expr) []ExplainProp {
		if e == nil {
			return nil
		}
		return []ExplainProp{{key, e.String()}}
	}
	switch x := n.(type) {
	case *Scan:
		return "Seq Scan", scan(x)
	case *SystemScan:
		return "System Scan", []ExplainProp{{"Relation Name", x.Rel.Name}, {"Schema", x.Rel.Schema}, {"Alias", x.Rel.Name}}
	case *Values:
		return "Values Scan", []ExplainProp{{"Alias", "*VALUES*"}}
	case *Filter:
		return "Filter", str("Filter", x.Cond)
	case *Aggregate:
		switch {
		case x.Sets != nil:
			sets := make([]string, len(x.Sets))
			for i, set := range x.Sets {
				keys := make([]Expr, len(set))
				for j, k := range set {
					keys[j] = x.GroupBy[k]
				}
				sets[i] = "(" + joinExprs(keys, ", ") + ")"
			}
			return "Aggregate", []ExplainProp{{"Strategy", "Mixed"}, {"Partial Mode", "Simple"}, {"Grouping Sets", sets}}
		case len(x.GroupBy) == 0:
			return "Aggregate", []ExplainProp{{"Strategy", "Plain"}, {"Partial Mode", "Simple"}}
		}
		return "Aggregate", []ExplainProp{{"Strategy", "Hashed"}, {"Partial Mode", "Simple"}, {"Group Key", exprStrings(x.GroupBy)}}
	case *Sort:
		return "Sort", []ExplainProp{{"Sort Key", sortKeyStrings(x.Keys)}}
	case *TopK:
		return "TopK", []ExplainProp{{"Sort Key", sortKeyStrings(x.Keys)}}
	case *Limit:
		return "Limit", nil
	case *Distinct:
		return "Unique", nil
	case *Join:
		names := [...]string{"Inner", "Left", "Right", "Full", "Inner", "Semi", "Anti"}
		props := []ExplainProp{{"Join Type", names[x.Kind]}}
		typ := "Nested Loop"
		if len(x.EquiLeft) > 0 {
			typ = "Hash Join"
			conds := make([]string, len(x.EquiLeft))
			for i := range x.EquiLeft {
				conds[i] = "(" + x.EquiLeft[i].String() + " = " + x.EquiRight[i].String() + ")"
			}
			props = append(props, ExplainProp{"Hash Cond", strings.Join(conds, " AND ")})
		}
		return typ, append(props, str("Join Filter", x.Cond)...)
	case *LateralJoin:
		kind := "Inner"
		if x.Outer {
			kind = "Left"
		}
		return "Nested Loop", []ExplainProp{{"Join Type", kind}}
	case *SetOp:
		cmd := [...]string{"Union", "Intersect", "Except"}[x.Kind]
		if x.All {
			cmd += " All"
		}
		return "SetOp", []ExplainProp{{"Command", cmd}}
	case *Insert:
		return "ModifyTable", []ExplainProp{{"Operation", "Insert"}, {"Relation Name", x.Table.Name}, {"Alias", x.Table.Name}}
	case *Update:
		return "ModifyTable", []ExplainProp{{"Operation", "Update"}, {"Relation Name", x.Table.Name}, {"Alias", x.Table.Name}}
	case *Delete:
		return "ModifyTable", []ExplainProp{{"Operation", "Delete"}, {"Relation Name", x.Table.Name}, {"Alias", x.Table.Name}}
	case *Merge:
		return "ModifyTable", []ExplainProp{{"Operation", "Merge"}, {"Relation Name", x.Table.Name}, {"Alias", x.Table.Name}}
	case *KeyLookup:
		return "Index Scan", append(append([]ExplainProp{{"Scan Direction", "Forward"}, {"Index Name", x.Constraint}}, scan(x.Scan)...), str("Index Cond", x.Cond)...)
	case *TrigramScan:
		conds := make([]Expr, len(x.Patterns))
		for i, p := range x.Patterns {
			conds[i] = p.Cond
		}
		props := append([]ExplainProp{{"Index Name", x.Index.Name}}, scan(x.Scan)...)
		return "Bitmap Heap Scan", append(append(props, str("Index Cond", andAll(conds))...), str("Recheck Cond", x.Cond)...)
	case *KeyIndexScan:
		props := append([]ExplainProp{{"Index Name", x.Index.Name}}, scan(x.Scan)...)
		return "Bitmap Heap Scan", append(append(props, str("Index Cond", x.IndexCond)...), str("Recheck Cond", x.Cond)...)
	case *VectorTopK:
		props := append([]ExplainProp{{"Index Name", x.Index.Name}}, scan(x.Scan)...)
		props = append(props, ExplainProp{"Order By", "nearest to " + x.Query.String()})
		return "Vector Index Scan", append(props, str("Filter", x.Filter)...)
	case *HybridCandidates:
		props := append([]ExplainProp{{"Index Name", x.Index.Name}}, scan(x.Scan)...)
		props = append(props, ExplainProp{"Order By", "nearest to " + x.Vector.String() + ", BM25 matches of " + x.Text.String()})
		return "Hybrid Index Scan", append(props, str("Filter", x.Filter)...)
	case *TextTopK:
		return "Text Index Scan", append(scan(x.Scan), ExplainProp{"Order By", "BM25 " + x.Score.Text.String() + " <#> " + x.Score.Query.String()})
	case *HybridTopK:
		return "HybridTopK", []ExplainProp{{"Order By", x.Score.String()}}
	case *LockRows:
		return "LockRows", nil
	case *Window:
		return "WindowAgg", nil
	case *ProjectSet:
		return "ProjectSet", nil
	case *SRF:
		return "Function Scan", []ExplainProp{{"Function Name", x.Name}, {"Alias", x.Name}}
	case *CTEScan:
		return "CTE Scan", []ExplainProp{{"CTE Name", x.CTE.Name}, {"Alias", x.CTE.Name}}
	case *SharedCTEScan:
		return "CTE Scan", []ExplainProp{{"CTE Name", x.CTE.Name}, {"Alias", x.CTE.Name}}
	case *WorkTableScan:
		return "WorkTable Scan", []ExplainProp{{"CTE Name", x.Name}, {"Alias", x.Name}}
	case *RecursiveUnion:
		return "Recursive Union", nil
	}
	// Any other node: the text format's name, with what follows it.
	line := n.String()
	if name, detail, ok := strings.Cut(line, ": "); ok {
		return name, []ExplainProp{{"Detail", detail}}
	}
	return line, nil
}

func exprStrings(es []Expr) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.String()
	}
	return out
}

func sortKeyStrings(keys []SortKey) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = sortKeys([]SortKey{k})
	}
	return out
}

// ExplainDocument renders a structured EXPLAIN of plan in format f (JSON,
// YAML or XML) as the one value PostgreSQL returns: the plan, then when
// analyzed the empty "Triggers" and the "Execution Time".
func ExplainDocument(f ExplainFormat, plan *ExplainNode, executionTime time.Duration, analyzed bool) string {
	top := []ExplainProp{{"Plan", plan}}
	if analyzed {
		top = append(top, ExplainProp{"Triggers", []string{}}, ExplainProp{"Execution Time", float64(executionTime.Nanoseconds()) / 1e6})
	}
	var b strings.Builder
	switch f {
	case ExplainJSON:
		b.WriteString("[\n  {")
		jsonProps(&b, top, 1)
		b.WriteString("\n  }\n]")
	case ExplainYAML:
		b.WriteString("- ")
		yamlProps(&b, top, 2, true)
	case ExplainXML:
		b.WriteString("<explain xmlns=\"http://www.postgresql.org/2009/explain\">\n  <Query>\n")
		xmlProps(&b, top, 2)
		b.WriteString("  </Query>\n</explain>")
	}
	return b.String()
}

func scalarText(v any) string {
	switch v := v.(type) {
	case bool:
		return strconv.FormatBool(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return fmt.Sprintf("%.3f", v)
	}
	return fmt.Sprint(v)
}

// jsonString quotes s as a JSON string, escaping only what JSON requires
// (as PostgreSQL does: '>' stays '>').
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// jsonProps writes props as the members of a JSON object, indented by
// 2*(depth+1) spaces as in PostgreSQL's layout.
func jsonProps(b *strings.Builder, props []ExplainProp, depth int) {
	ind := strings.Repeat("  ", depth+1)
	for i, p := range props {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n" + ind + jsonString(p.Key) + ": ")
		switch v := p.Value.(type) {
		case *ExplainNode:
			jsonNode(b, v, depth+1)
		case []string:
			b.WriteString("[")
			for j, s := range v {
				if j > 0 {
					b.WriteString(", ")
				}
				b.WriteString(jsonString(s))
			}
			if len(v) == 0 {
				b.WriteString("\n" + ind)
			}
			b.WriteString("]")
		case string:
			b.WriteString(jsonString(v))
		default:
			b.WriteString(scalarText(v))
		}
	}
}

func jsonNode(b *strings.Builder, n *ExplainNode, depth int) {
	ind := strings.Repeat("  ", depth)
	b.WriteString("{")
	jsonProps(b, n.Props, depth)
	if len(n.Children) > 0 {
		b.WriteString(",\n" + ind + "  \"Plans\": [")
		for i, c := range n.Children {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n" + ind + "    ")
			jsonNode(b, c, depth+2)
		}
		b.WriteString("\n" + ind + "  ]")
	}
	b.WriteString("\n" + ind + "}")
}

// yamlProps writes props as a YAML mapping indented by depth spaces (the
// first line's indentation already written when first).
func yamlProps(b *strings.Builder, props []ExplainProp, depth int, first bool) {
	ind := strings.Repeat(" ", depth)
	for i, p := range props {
		if i > 0 || !first {
			b.WriteString("\n" + ind)
		}
		b.WriteString(p.Key + ": ")
		switch v := p.Value.(type) {
		case *ExplainNode:
			yamlNode(b, v, depth+2, false)
		case []string:
			for _, s := range v {
				b.WriteString("\n" + ind + "  - " + yamlString(s))
			}
		case string:
			b.WriteString(yamlString(v))
		default:
			b.WriteString(scalarText(v))
		}
	}
}

func yamlNode(b *strings.Builder, n *ExplainNode, depth int, first bool) {
	yamlProps(b, n.Props, depth, first)
	if len(n.Children) > 0 {
		b.WriteString("\n" + strings.Repeat(" ", depth) + "Plans: ")
		for _, c := range n.Children {
			b.WriteString("\n" + strings.Repeat(" ", depth+2) + "- ")
			yamlNode(b, c, depth+4, true)
		}
	}
}

// yamlString quotes a string value as PostgreSQL's YAML format does.
func yamlString(s string) string {
	return "\"" + strings.ReplaceAll(s, "\"", "\\\"") + "\""
}

// xmlProps writes props as XML elements indented by 2*depth spaces,
// their names' spaces turned into dashes as in PostgreSQL.
func xmlProps(b *strings.Builder, props []ExplainProp, depth int) {
	ind := strings.Repeat("  ", depth)
	for _, p := range props {
		tag := strings.ReplaceAll(p.Key, " ", "-")
		switch v := p.Value.(type) {
		case *ExplainNode:
			b.WriteString(ind + "<" + tag + ">\n")
			xmlNode(b, v, depth+1)
			b.WriteString(ind + "</" + tag + ">\n")
		case []string:
			if len(v) == 0 {
				b.WriteString(ind + "<" + tag + ">\n" + ind + "</" + tag + ">\n")
				continue
			}
			b.WriteString(ind + "<" + tag + ">\n")
			for _, s := range v {
				b.WriteString(ind + "  <Item>" + html.EscapeString(s) + "</Item>\n")
			}
			b.WriteString(ind + "</" + tag + ">\n")
		case string:
			b.WriteString(ind + "<" + tag + ">" + html.EscapeString(v) + "</" + tag + ">\n")
		default:
			b.WriteString(ind + "<" + tag + ">" + scalarText(v) + "</" + tag + ">\n")
		}
	}
}

func xmlNode(b *strings.Builder, n *ExplainNode, depth int) {
	xmlProps(b, n.Props, depth)
	if len(n.Children) == 0 {
		return
	}
	ind := strings.Repeat("  ", depth)
	b.WriteString(ind + "<Plans>\n")
	for _, c := range n.Children {
		b.WriteString(ind + "  <Plan>\n")
		xmlNode(b, c, depth+2)
		b.WriteString(ind + "  </Plan>\n")
	}
	b.WriteString(ind + "</Plans>\n")
}
