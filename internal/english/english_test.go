package english

import "testing"

func TestCount(t *testing.T) {
	tests := []struct {
		n    int
		noun string
		want string
	}{
		{0, "feed", "0 feeds"},
		{1, "feed", "1 feed"},
		{2, "feed", "2 feeds"},
		{1, "digest", "1 digest"},
		{3, "digest", "3 digests"},
		{1, "entry", "1 entry"},
		{2, "entry", "2 entries"},
		{2, "day", "2 days"},
		{2, "address", "2 addresses"},
		{2, "box", "2 boxes"},
		{2, "match", "2 matches"},
		{-1, "feed", "-1 feeds"},
	}
	for _, tt := range tests {
		if got := Count(tt.n, tt.noun); got != tt.want {
			t.Errorf("Count(%d, %q) = %q, want %q", tt.n, tt.noun, got, tt.want)
		}
	}
}
