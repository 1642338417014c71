package render

import (
	"path/filepath"
	"testing"
	"time"

	"feeddigest/internal/golden"
)

// loadDigest reads the digest testdata/<name>.json: render's and
// mail's tests share it, and with it the golden files.
func loadDigest(t testing.TB, name string) Digest {
	t.Helper()
	var d struct {
		Digest
		Zone string // the user's time zone, by name
	}
	golden.Decode(t, filepath.Join("testdata", name+".json"), &d)
	var err error
	if d.Location, err = time.LoadLocation(d.Zone); err != nil {
		t.Fatal(err)
	}
	return d.Digest
}
