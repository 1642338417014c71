package render

import (
	"strings"
	"testing"
)

func TestIntroMarkdownIsSafe(t *testing.T) {
	got, err := IntroHTML("# Hello\n\nRead *slowly*. <script>alert(1)</script> [x](javascript:alert(1))", "Just for **you**.")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<h1>Hello</h1>", "<em>slowly</em>", "<strong>you</strong>"} {
		if !strings.Contains(got, want) {
			t.Errorf("intro lacks %s: %s", want, got)
		}
	}
	for _, bad := range []string{"<script", "javascript:", "alert(1)</script>"} {
		if strings.Contains(got, bad) {
			t.Errorf("intro kept %s: %s", bad, got)
		}
	}
	if empty, _ := IntroHTML("", "  "); empty != "" {
		t.Errorf("empty intros gave %q", empty)
	}
}
