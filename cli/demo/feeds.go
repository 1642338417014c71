package demo

import (
	"embed"
	"io/fs"
)

//go:embed feeds
var feedFiles embed.FS

// Feeds are the sample feeds the demo serves (a folder per snapshot,
// day1 and day2), embedded so the demo works from any folder.
var Feeds, _ = fs.Sub(feedFiles, "feeds")
