package english

import "testing"

func TestClosest(t *testing.T) {
	known := []string{"state", "site_dir", "run", "status", "monday"}
	for word, want := range map[string]string{
		"stat": "state", "STATE": "state", "site_dri": "site_dir", "rnu": "run", "mondy": "monday",
		"nothing-like-it": "", "": "",
	} {
		if got := Closest(word, known); got != want {
			t.Errorf("Closest(%q) = %q, want %q", word, got, want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"abc", "abc", 0}, {"abc", "abd", 1}, {"abc", "ab", 1}, {"kitten", "sitting", 3}} {
		if got := EditDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
