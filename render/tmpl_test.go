package render

import (
	"strings"
	"testing"
)

func TestWrap(t *testing.T) {
	text := strings.Repeat("word ", 40) + "https://example.org/" + strings.Repeat("x", 80)
	for _, line := range strings.Split(wrap(text, "  "), "\n") {
		if !strings.HasPrefix(line, "  ") {
			t.Errorf("line without indent: %q", line)
		}
		if len(line) > textWidth && strings.Count(line, " ") > 2 {
			t.Errorf("line over %d chars: %q", textWidth, line)
		}
	}
	if got := bullet("a b"); got != "* a b" {
		t.Errorf("bullet = %q", got)
	}
}
