package config

import "testing"

func BenchmarkZZLoadBig(b *testing.B) {
	for b.Loop() {
		if _, err := Load("/tmp/scale-cfg.toml"); err != nil {
			b.Fatal(err)
		}
	}
}
