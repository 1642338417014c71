package fetch

import (
	"slices"
	"testing"
)

func TestSpreadByHost(t *testing.T) {
	in := []string{
		"https://a.example/1", "https://a.example/2", "https://a.example:8443/3",
		"https://b.example/1", "http://c.example/1", "https://b.example/2", "%zz bad",
	}
	want := []string{
		"https://a.example/1", "https://b.example/1", "http://c.example/1", "%zz bad",
		"https://a.example/2", "https://b.example/2",
		"https://a.example:8443/3", // same host name, same gate
	}
	got := SpreadByHost(in, func(s string) string { return s })
	if !slices.Equal(got, want) {
		t.Errorf("SpreadByHost =\n%q\nwant\n%q", got, want)
	}
	if len(SpreadByHost([]string(nil), func(s string) string { return s })) != 0 {
		t.Error("nil in, something out")
	}
}
