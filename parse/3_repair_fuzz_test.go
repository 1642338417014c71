package parse

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"path/filepath"
	"testing"
)

// wellFormed reads b with encoding/xml in strict mode, which accepts no
// undeclared entity, bare '&' or '<', bad character or unclosed element.
func wellFormed(b []byte) error {
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// maxGrowth bounds the repaired size: "&" becomes "&amp;".
func maxRepairedSize(n int) int { return 5*n + 16 }

func FuzzRepairXML(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.xml")
	for _, name := range files {
		f.Add(readTestdata(f, filepath.Base(name)))
	}
	for _, s := range []string{"", "<", "</", "<a", "<a b", `<a b="`, "<a><b></a>", "</x><y>", "&", "&#x110000;", "&#1;",
		"&notit;", "&semi;", "]]>", "<![CDATA[x", "<!--", "<!DOCTYPE x [<!ENTITY y 'z'>]><x>&y;</x>", "<?xml version='2.0'?><a/>",
		"<a:b xmlns:a='u'><c:/></a:b>", "<a b c=d e='f\"'>", "\xEF\xBB\xBF \n<?xml version=\"1.0\"?><rss/>", "<br><p>x</P>"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, fixed := repairXML(in)
		if checked := checkXML(in); checked != fixed {
			t.Fatalf("checkXML says %v, repairXML %v: %q", checked, fixed, in)
		}
		if len(out) > maxRepairedSize(len(in)) {
			t.Fatalf("repaired %d bytes into %d", len(in), len(out))
		}
		if err := wellFormed(out); err != nil {
			t.Fatalf("repaired body not well-formed: %v\nin:  %q\nout: %q", err, in, out)
		}
		again, fixedAgain := repairXML(out)
		if !bytes.Equal(again, out) || fixedAgain != 0 {
			t.Fatalf("repair not idempotent (%v, then %v)\nin:    %q\nout:   %q\nagain: %q", fixed, fixedAgain, in, out, again)
		}
	})
}
