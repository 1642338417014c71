package main

import (
	"embed"
	"fmt"
	"strings"
)

//go:embed testdata/*.txt
var textFiles embed.FS

// texts is one testdata file: named sections ("## titles"), each a list
// of pieces. The "paragraphs" section holds a piece a block of lines
// between blank lines, any other a piece a line. Lines starting with "# "
// before the first section say what the file is.
type texts map[string][]string

// readTexts reads testdata/name.txt.
func readTexts(name string) (texts, error) {
	b, err := textFiles.ReadFile("testdata/" + name + ".txt")
	if err != nil {
		return nil, err
	}
	t := texts{}
	section := ""
	var block []string
	flush := func() {
		if len(block) > 0 {
			t[section] = append(t[section], strings.Join(block, " "))
			block = nil
		}
	}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "## "):
			flush()
			section = strings.TrimPrefix(line, "## ")
		case section == "":
			// the file's own description
		case line == "":
			flush()
		case linePerPiece(section):
			t[section] = append(t[section], line)
		default:
			block = append(block, line)
		}
	}
	flush()
	for s, pieces := range t {
		if len(pieces) == 0 {
			return nil, fmt.Errorf("testdata/%s.txt: section %q is empty", name, s)
		}
	}
	return t, nil
}

func linePerPiece(section string) bool {
	return section != "paragraphs"
}

// pick is the i-th piece of section, round the list.
func (t texts) pick(section string, i int) string {
	pieces := t[section]
	if len(pieces) == 0 {
		panic("scenario texts: no section " + section)
	}
	return pieces[((i%len(pieces))+len(pieces))%len(pieces)]
}

// run is n pieces of section from the i-th on, round the list.
func (t texts) run(section string, i, n int) []string {
	out := make([]string, 0, n)
	for k := range n {
		out = append(out, t.pick(section, i+k))
	}
	return out
}
