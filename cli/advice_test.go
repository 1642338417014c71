package cli

import (
	"context"
	"database/sql"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"feeddigest/sqlite"
)

// TestLowLayersGiveNoCLIAdvice: the error strings of the packages below
// the command layer name neither a command nor a configuration key; they
// return named and typed errors, and the command layer (or pipeline, for
// a poll's errors) says what to do.
func TestLowLayersGiveNoCLIAdvice(t *testing.T) {
	example, err := os.ReadFile(filepath.Join("..", "config.example.toml"))
	if err != nil {
		t.Fatal(err)
	}
	// Keys with an underscore cannot be mistaken for ordinary words.
	var keys []string
	for _, m := range regexp.MustCompile(`(?m)^#?\s*([a-z]+_[a-z_]+)\s*=`).FindAllStringSubmatch(string(example), -1) {
		keys = append(keys, m[1])
	}
	if len(keys) < 5 {
		t.Fatalf("found only %d keys in config.example.toml: %v", len(keys), keys)
	}
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	command := regexp.MustCompile("feeddigest (" + strings.Join(names, "|") + `)\b`)
	for _, dir := range []string{"fetch", "parse", "store", "store/local", "render", "site", "mail", "schedule"} {
		files, err := filepath.Glob(filepath.Join("..", dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			for _, msg := range errorStrings(t, path) {
				if m := command.FindString(msg); m != "" {
					t.Errorf("%s: error %q names the command %q", path, msg, m)
				}
				for _, k := range keys {
					if strings.Contains(msg, k) {
						t.Errorf("%s: error %q names the configuration key %q", path, msg, k)
					}
				}
			}
		}
	}
}

// errorStrings are the string constants given to errors.New and
// fmt.Errorf in the Go file at path.
func errorStrings(t *testing.T, path string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		pkg, ok := sel.X.(*ast.Ident)
		if !ok || !(pkg.Name == "errors" && sel.Sel.Name == "New" || pkg.Name == "fmt" && sel.Sel.Name == "Errorf") {
			return true
		}
		if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if s, err := strconv.Unquote(lit.Value); err == nil {
				out = append(out, s)
			}
		}
		return true
	})
	return out
}

// setSchemaVersion makes the state file at path claim another schema,
// version(current): current is the schema this program writes.
func setSchemaVersion(t *testing.T, path string, version func(current int) int) (current int) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.QueryRow("PRAGMA user_version").Scan(&current); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", version(current))); err != nil {
		t.Fatal(err)
	}
	return current
}

func TestStateErrorsGetAdvice(t *testing.T) {
	config := "[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [\"https://a.example/f\"]\n"

	path := writeConfig(t, config)
	current := setSchemaVersion(t, filepath.Join(filepath.Dir(path), "state.db"), func(int) int { return 1 })
	code, _, stderr := runCLI("status", "-config", path)
	want := fmt.Sprintf("schema version 1, this program reads %d: run `feeddigest run` once to migrate", current)
	if code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("an older state file: exit %d, stderr %q; want %q", code, stderr, want)
	}

	path = writeConfig(t, config)
	current = setSchemaVersion(t, filepath.Join(filepath.Dir(path), "state.db"), func(v int) int { return v + 1 })
	code, _, stderr = runCLI("run", "-config", path, "-now", "2026-11-22T00:05:00Z")
	want = fmt.Sprintf("schema version %d, this program reads %d: a newer feeddigest wrote it; upgrade feeddigest", current+1, current)
	if code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("a newer state file: exit %d, stderr %q; want %q", code, stderr, want)
	}

	_, err := sqlite.OpenReader(context.Background(), filepath.Join(t.TempDir(), "state.db"))
	if got := advise(err).Error(); !strings.Contains(got, "no state file at ") || !strings.HasSuffix(got, "(has `feeddigest run` run yet?)") {
		t.Errorf("no state file: %q", got)
	}
}
