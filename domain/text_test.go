package domain

import "testing"

func TestOneLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"  Weekly\tnotes \n", "Weekly notes"},
		{"a\r\nb\x1b[31mc", "a b [31mc"},
		{"a\x00b\u0085c", "a b c"},
		{"déjà  vu", "déjà vu"},
	}
	for _, tt := range tests {
		if got := OneLine(tt.in); got != tt.want {
			t.Errorf("OneLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
