package main

import (
	"embed"
	"io/fs"
)

//go:embed testdata/demo
var demoFiles embed.FS

// demoFeeds are the sample feeds `feeddigest demo` serves, embedded so the
// demo works from any folder.
var demoFeeds, _ = fs.Sub(demoFiles, "testdata/demo")
