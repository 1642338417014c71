package ingest

import (
	"strings"
	"testing"
)

func TestCountWords(t *testing.T) {
	for _, c := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"one two three", 3},
		{"one · two — three", 3},                  // separators are no words
		{"It's 2026, isn't it?", 4},               // punctuation belongs to its word
		{"今日は良い天気です", 5},                          // 9 characters, half a word each, rounded up
		{"東京 Tokyo", 2},                           // a Latin word beside two characters
		{"오늘은 날씨가 좋습니다", 3},                       // Korean has spaces
		{"مرحبا بالعالم، كيف حالك؟", 4},           // Arabic
		{strings.Repeat("מילה ", 199), 199},       // Hebrew
		{strings.Repeat("字", 400), 200},           // 400 characters are 200 words
		{strings.Repeat("word ", 199) + "字", 200}, // one character is half a word, rounded up
	} {
		if got := countWords(c.text); got != c.want {
			t.Errorf("countWords(%.40q) = %d, want %d", c.text, got, c.want)
		}
	}
}

// BenchmarkCountWords counts the words of an entry's text of about 1 KB,
// as each entry's fragments do when it is stored.
func BenchmarkCountWords(b *testing.B) {
	text := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 18)
	for b.Loop() {
		countWords(text)
	}
}
