// Package golden compares what a test made with the golden file that holds
// what it must be, and reads the JSON fixtures kept beside them: one way
// for the render, mail and opml tests alike, and one -update flag.
package golden

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files with what the tests make")

// Check compares got with the golden file at path, or rewrites the file
// under -update (then review the diff).
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what the test made; run the test with -update and review the diff\n--- got:\n%s", path, got)
	}
}

// Decode reads the JSON fixture at path into v, strictly: a misspelt key
// would otherwise drop its value without a word.
func Decode(t testing.TB, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
