// Package templates holds the HTML and text templates of the pages and the
// email, embedded so that the binary carries its own look and needs no files
// at run time. The render package parses them once.
package templates

import "embed"

// FS holds every template file and the shared stylesheet.
//
//go:embed *.html *.txt *.css
var FS embed.FS
