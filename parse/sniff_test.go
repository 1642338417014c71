package parse

import "testing"

func TestSniffHTML(t *testing.T) {
	tests := []struct {
		body string
		ct   string
		want bool
	}{
		{"<!DOCTYPE html><html>", "", true},
		{"\xEF\xBB\xBF  \n<html lang=en>", "application/octet-stream", true},
		{"<!-- generator --><!doctype HTML>", "text/plain", true},
		{`<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml">`, "", true},
		{"<head><title>x</title>", "", true},
		{"<p>just a paragraph", "", true},
		{"anything at all", "text/html; charset=utf-8", true},
		{"{}", "application/xhtml+xml", true},
		{`<?xml version="1.0"?><rss version="2.0">`, "", false},
		{`<!-- generator --><feed xmlns="http://www.w3.org/2005/Atom">`, "", false},
		{"<atom:feed>", "", false}, // "<a" must be a whole name
		{"<pre>", "", false},
		{`{"version": "https://jsonfeed.org/version/1.1"}`, "", false},
		{"<!-- never closed", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		if got := isHTML([]byte(tt.body), tt.ct); got != tt.want {
			t.Errorf("isHTML(%q, %q) = %v, want %v", tt.body, tt.ct, got, tt.want)
		}
	}
}

func FuzzSniff(f *testing.F) {
	for _, name := range []string{"rss.xml", "atom.xml", "feed.json", "page.html", "page_base.html", "hfeed.html", "page_no_feed.html"} {
		f.Add(readTestdata(f, name))
	}
	f.Add([]byte("<!--<?--><?<!--?>"))
	f.Fuzz(func(t *testing.T, body []byte) {
		got := isHTML(body, "")
		if !isHTML(body, "text/html") {
			t.Fatal("a text/html Content-Type is always HTML")
		}
		// Only the start counts: what follows the first kilobyte cannot change the answer.
		if len(body) >= 1024 && isHTML(append(body[:1024:1024], "<html>"...), "") != got {
			t.Fatal("bytes past the first kilobyte changed the answer")
		}
		// Leading whitespace never changes it.
		if isHTML(append([]byte(" \n"), body[:min(len(body), 1000)]...), "") != isHTML(body[:min(len(body), 1000)], "") {
			t.Fatal("leading whitespace changed the answer")
		}
	})
}
