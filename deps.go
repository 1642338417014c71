//go:build tools

package main

import (
	_ "github.com/BurntSushi/toml"
	_ "github.com/PuerkitoBio/goquery"
	_ "github.com/andybalholm/brotli"
	_ "github.com/emersion/go-smtp"
	_ "github.com/k3a/html2text"
	_ "github.com/klauspost/compress/zstd"
	_ "github.com/microcosm-cc/bluemonday"
	_ "github.com/mmcdole/gofeed"
	_ "github.com/wneessen/go-mail"
	_ "github.com/yuin/goldmark"
	_ "golang.org/x/time/rate"
	_ "modernc.org/sqlite"
	_ "willnorris.com/go/microformats"
)
