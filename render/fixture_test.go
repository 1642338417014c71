package render

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// loadDigest reads the digest testdata/render/<name>.json: render's and
// mail's tests share it, and with it the golden files.
func loadDigest(t testing.TB, name string) Digest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "render", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Digest
		Zone string // the user's time zone, by name
	}
	// Strict: a misspelt key (the notices' are snake_case) would
	// otherwise drop its value without a word.
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("%s.json: %v", name, err)
	}
	if d.Location, err = time.LoadLocation(d.Zone); err != nil {
		t.Fatal(err)
	}
	return d.Digest
}
