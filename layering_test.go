package cairn_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// module is the import path prefix of cairn's packages.
const module = "github.com/cairn-db/cairn/"

// A layer is a floor of cairn: its packages, and the layers they may
// import. Imports point one way, down to the shared vocabulary:
//
//	commands -> wire -> session -> operators -> sql -> functions -> vocabulary
//	                               operators -> storage ----------> vocabulary
type layer struct {
	name     string
	packages []string // import paths below module; a trailing "/" takes the subtree
	imports  []string // the layers its packages may import besides their own
}

var layers = []layer{
	{"vocabulary", []string{"sql/pgerr", "sql/types", "sql/types/", "sql/catalog", "sql/ident", "sql/textsearch"}, nil},
	{"storage", []string{"storage", "storage/"}, []string{"vocabulary"}},
	{"functions", []string{"functions", "functions/"}, []string{"vocabulary"}},
	{"sql", []string{"sql", "sql/syscat"}, []string{"functions", "vocabulary"}},
	{"operators", []string{"exec", "exec/"}, []string{"sql", "storage", "functions", "vocabulary"}},
	{"session", []string{"exec/session"}, []string{"operators", "sql", "storage", "functions", "vocabulary"}},
	{"wire", []string{"wire", "wire/"}, []string{"session", "vocabulary"}},
	{"commands", []string{"cmd/"}, []string{"wire", "session", "operators", "sql", "storage", "functions", "vocabulary"}},
}

// onlyIn are third-party packages one layer owns: pg_query's parse tree
// never leaves sql, pgproto3's messages never leave wire.
var onlyIn = map[string]string{
	"github.com/pganalyze/pg_query_go/v5": "sql",
	"github.com/jackc/pgproto3/v2":        "wire",
}

// layerOf returns the layer of a cairn package (the most specific prefix
// wins), or nil.
func layerOf(pkg string) *layer {
	var best *layer
	bestLen := -1
	for i, l := range layers {
		for _, p := range l.packages {
			match := pkg == p || strings.HasSuffix(p, "/") && strings.HasPrefix(pkg, p)
			if match && len(p) > bestLen {
				best, bestLen = &layers[i], len(p)
			}
		}
	}
	return best
}

// TestLayering fails when a package imports a layer its own may not, when
// pg_query or pgproto3 is imported outside the layer that owns it, or when
// a package belongs to no layer. It reads the import declarations of every
// non-test Go file itself (rather than asking go list), so that go test's
// cache knows the files it depends on.
func TestLayering(t *testing.T) {
	imports := map[string]map[string]bool{} // package -> its imports
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		if imports[pkg] == nil {
			imports[pkg] = map[string]bool{}
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			imports[pkg][p] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(imports) < len(layers) {
		t.Fatalf("found only %d packages", len(imports))
	}
	delete(imports, ".") // this package: the module's documentation
	for pkg, deps := range imports {
		l := layerOf(pkg)
		if l == nil {
			t.Errorf("%s belongs to no layer: add it to layers in layering_test.go", pkg)
			continue
		}
		for imp := range deps {
			if owner, ok := onlyIn[imp]; ok && l.name != owner {
				t.Errorf("%s (%s) imports %s, which only %s may use", pkg, l.name, imp, owner)
			}
			if !strings.HasPrefix(imp, module) {
				continue
			}
			dep := strings.TrimPrefix(imp, module)
			d := layerOf(dep)
			if d != nil && d != l && !slices.Contains(l.imports, d.name) {
				t.Errorf("%s (%s) imports %s (%s): %s may import only %s", pkg, l.name, dep, d.name, l.name, strings.Join(l.imports, ", "))
			}
		}
	}
}
