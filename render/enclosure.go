package render

import (
	"math"
	"path"
	"strings"
	"time"

	"feeddigest/domain"
	"feeddigest/ingest"
	"feeddigest/locale"
)

// enclosureView is a file an entry carries, as a link: its text says what
// the file is ("Audio (MP3, 34 min, 42 MB)"), so a reader knows before
// following it, and it reads on its own.
type enclosureView struct {
	URL, Label string
	// Audio is the MIME type of an audio file, which the page gives a
	// player (no script, nothing fetched before the reader presses
	// play); "" for other files.
	Audio string
	text  string
}

// Text is the enclosure's line in the plain-text email.
func (e enclosureView) Text() string { return e.text }

func newEnclosureViews(l *locale.Locale, encs []domain.Enclosure) []enclosureView {
	var out []enclosureView
	for _, e := range encs {
		link := safeLink(e.URL)
		if link == "" {
			continue
		}
		v := enclosureView{URL: link, Label: EnclosureLabel(l, e)}
		v.text = l.T("text.label", "Label", v.Label, "Value", link)
		if mime := typeOf(e); strings.HasPrefix(mime, "audio/") {
			v.Audio = mime
		}
		out = append(out, v)
	}
	return out
}

// EnclosureLabel names a file in words of the reader's language l: its
// kind from its MIME type (or, without one, its name's extension), then
// what is known of its format, playing time and size: "Audio (MP3, 1 h
// 02 min, 28 MB)", "Video (WebM)", "PDF (2.1 MB)". A file of no known
// kind goes by its name.
func EnclosureLabel(l *locale.Locale, e domain.Enclosure) string {
	kind, format := kindOf(typeOf(e))
	var details []string
	if format != "" {
		details = append(details, format)
	}
	if kind == "" {
		kind = "file.any"
		if name := path.Base(urlPath(e.URL)); name != "." && name != "/" && name != "" {
			details = append(details, ingest.ShortName(name))
		}
	}
	if e.Duration > 0 {
		details = append(details, playingTime(l, e.Duration))
	}
	if e.Length > 0 {
		details = append(details, fileSize(l, e.Length))
	}
	if len(details) == 0 {
		return l.T(kind)
	}
	return l.T("file.details", "Kind", l.T(kind), "Details", strings.Join(details, l.T("text.list_separator")))
}

// fileSize is a file's size as people read it, in SI units (as
// go-humanize writes them): "42 MB", "2.1 MB", "900 B".
func fileSize(l *locale.Locale, n int64) string {
	units := []string{"file.bytes", "file.kilobytes", "file.megabytes", "file.gigabytes"}
	size, unit := float64(n), 0
	for size >= 1000 && unit < len(units)-1 {
		size /= 1000
		unit++
	}
	if unit == 0 {
		return l.T(units[0], "Size", l.Number(int(n)))
	}
	if size >= 10 {
		return l.T(units[unit], "Size", l.Number(int(math.Round(size))))
	}
	return l.T(units[unit], "Size", l.Decimal(size))
}

// typeOf is the enclosure's MIME type in lower case, without
// parameters; without one, guessed from its name's extension.
func typeOf(e domain.Enclosure) string {
	mime, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(e.Type)), ";")
	if mime = strings.TrimSpace(mime); mime == "" {
		mime = byExtension[strings.ToLower(path.Ext(urlPath(e.URL)))]
	}
	return mime
}

// formats name the common types of podcasts and video feeds.
var formats = map[string]string{
	"audio/mpeg": "MP3", "audio/mp3": "MP3", "audio/x-mp3": "MP3", "audio/mpeg3": "MP3",
	"audio/mp4": "M4A", "audio/x-m4a": "M4A", "audio/m4a": "M4A", "audio/aac": "AAC",
	"audio/ogg": "Ogg", "audio/opus": "Opus", "audio/flac": "FLAC", "audio/x-flac": "FLAC",
	"audio/wav": "WAV", "audio/x-wav": "WAV", "audio/webm": "WebM",
	"video/mp4": "MP4", "video/x-m4v": "M4V", "video/webm": "WebM", "video/ogg": "Ogg",
	"video/quicktime": "QuickTime",
}

// byExtension guesses the type of a file the feed gave none for.
var byExtension = map[string]string{
	".mp3": "audio/mpeg", ".m4a": "audio/mp4", ".aac": "audio/aac", ".ogg": "audio/ogg", ".oga": "audio/ogg",
	".opus": "audio/opus", ".flac": "audio/flac", ".wav": "audio/wav",
	".mp4": "video/mp4", ".m4v": "video/x-m4v", ".webm": "video/webm", ".mov": "video/quicktime",
	".pdf": "application/pdf",
}

// kindOf is what a reader calls a file of the MIME type (the message id
// of its name), and its format when that says more; kind is "" for a
// type of no known kind.
func kindOf(mime string) (kind, format string) {
	top, _, _ := strings.Cut(mime, "/")
	switch {
	case mime == "application/pdf":
		return "file.pdf", ""
	case top == "audio":
		return "file.audio", formats[mime]
	case top == "video":
		return "file.video", formats[mime]
	case top == "image":
		return "file.image", ""
	}
	return "", ""
}

// playingTime is "34 min", "1 h 02 min", or "45 s" for less than a minute.
func playingTime(l *locale.Locale, d time.Duration) string {
	if d < time.Minute {
		return l.T("file.seconds", "Number", int(d/time.Second))
	}
	minutes := int(d.Round(time.Minute) / time.Minute)
	if minutes < 60 {
		return l.T("file.minutes", "Number", minutes)
	}
	return l.T("file.hours_minutes", "Hours", minutes/60, "Minutes", l.Padded(minutes%60, 2))
}

// urlPath is the path of the URL s, "" when it has none.
func urlPath(s string) string {
	if u := domain.AbsoluteHTTP(s); u != nil {
		return u.Path
	}
	return ""
}
