package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkLoadManyUsers loads the config of the scale benchmark's size,
// which every worker of a shared pass loads each hour: 5,000 users of 20
// feeds each among 20,000.
func BenchmarkLoadManyUsers(b *testing.B) {
	var cfg strings.Builder
	cfg.WriteString("state = \"postgres://feeddigest@127.0.0.1:5432/digests\"\nsite_dir = \"site\"\n")
	for u := range 5000 {
		fmt.Fprintf(&cfg, "[[users]]\nname = \"u%04d\"\ntimezone = \"Etc/GMT-%d\"\nfeeds = [", u, u%12)
		for i := range 20 {
			if i > 0 {
				cfg.WriteString(", ")
			}
			f := (u*20 + i*4001) % 20000
			fmt.Fprintf(&cfg, "\"http://127.0.%d.%d:40000/f%d\"", 1+f/40/250, 1+f/40%250, f%40)
		}
		cfg.WriteString("]\n")
	}
	path := filepath.Join(b.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(cfg.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(path); err != nil {
			b.Fatal(err)
		}
	}
}
