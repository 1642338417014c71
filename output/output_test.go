package output

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func content(s string) io.WriterTo { return strings.NewReader(s) }

// listFiles is every file under dir, relative, slash-separated, sorted:
// a leftover temporary file shows up here.
func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func TestLayout(t *testing.T) {
	root := t.TempDir()
	p := New(filepath.Join(root, "site"), filepath.Join(root, "outbox"))
	cases := []struct {
		name  string
		write func() error
		path  string
	}{
		{"digest page", func() error { return p.DigestPage("ada", "2020-11-22", content("page")) }, "site/ada/2020-11-22.html"},
		{"user index", func() error { return p.UserIndex("ada", content("index")) }, "site/ada/index.html"},
		{"user feed", func() error { return p.UserFeed("ada", content("feed")) }, "site/ada/feed.xml"},
		{"status page", func() error { return p.StatusPage(content("status")) }, "site/status.html"},
		{"outbox message", func() error { return p.OutboxMessage("ada", "2020-11-22", content("message")) }, "outbox/ada-2020-11-22.eml"},
	}
	var want []string
	for _, c := range cases {
		if err := c.write(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		want = append(want, c.path)
		info, err := os.Stat(filepath.Join(root, c.path))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if info.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v, want 0644 (read by the web server)", c.name, info.Mode().Perm())
		}
	}
	slices.Sort(want)
	if got := listFiles(t, root); !slices.Equal(got, want) {
		t.Errorf("files %v, want exactly %v", got, want)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "outbox/ada-2020-11-22.eml")); string(got) != "message" {
		t.Errorf("outbox file holds %q", got)
	}
}

func TestRewriteReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	p := New(dir, "")
	if err := p.StatusPage(content(strings.Repeat("long old page\n", 1000))); err != nil {
		t.Fatal(err)
	}
	if err := p.StatusPage(content("new")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "status.html")); string(got) != "new" {
		t.Errorf("status.html holds %q, want %q", got, "new")
	}
	if got := listFiles(t, dir); !slices.Equal(got, []string{"status.html"}) {
		t.Errorf("files %v", got)
	}
}

// failingWriter writes half a page, then fails, as a template error would.
type failingWriter struct{ err error }

func (f failingWriter) WriteTo(w io.Writer) (int64, error) {
	n, _ := io.WriteString(w, strings.Repeat("half a page ", 1000))
	return int64(n), f.err
}

func TestFailedWriteKeepsTheOldFile(t *testing.T) {
	dir := t.TempDir()
	p := New(dir, "")
	if err := p.UserIndex("ada", content("old")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("template broke")
	if err := p.UserIndex("ada", failingWriter{boom}); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the writer's error", err)
	} else if !strings.Contains(err.Error(), filepath.Join(dir, "ada", "index.html")) {
		t.Errorf("error %q does not name the file", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "ada", "index.html")); string(got) != "old" {
		t.Errorf("index.html holds %.40q, want the old page", got)
	}
	if got := listFiles(t, dir); !slices.Equal(got, []string{"ada/index.html"}) {
		t.Errorf("files %v: a temporary file was left behind", got)
	}
}

// TestReaderSeesOldOrNew rewrites a page while another goroutine reads
// it: every read must be one whole version.
func TestReaderSeesOldOrNew(t *testing.T) {
	dir := t.TempDir()
	p := New(dir, "")
	versions := []string{strings.Repeat("a", 1<<20), strings.Repeat("b", 1<<19)}
	if err := p.DigestPage("ada", "2020-11-22", content(versions[0])); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "ada", "2020-11-22.html")
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 1; i <= 50; i++ {
			if err := p.DigestPage("ada", "2020-11-22", content(versions[i%2])); err != nil {
				t.Error(err)
				break
			}
		}
		close(done)
	}()
	reads, bad := 0, ""
	for bad == "" {
		select {
		case <-done:
			wg.Wait()
			if reads == 0 {
				t.Error("no read overlapped the writes")
			}
			return
		default:
		}
		got, err := os.ReadFile(path)
		switch {
		case err != nil:
			bad = err.Error()
		case string(got) != versions[0] && string(got) != versions[1]:
			bad = fmt.Sprintf("%d bytes, neither version whole", len(got))
		}
		reads++
	}
	wg.Wait()
	t.Errorf("read %d saw %s", reads, bad)
}

func TestBadNames(t *testing.T) {
	root := t.TempDir()
	p := New(filepath.Join(root, "site"), filepath.Join(root, "outbox"))
	for _, user := range []string{"", "..", ".hidden", "a/b", `a\b`, "../../etc"} {
		if err := p.UserIndex(user, content("x")); !errors.Is(err, ErrBadName) {
			t.Errorf("UserIndex(%q): err = %v, want ErrBadName", user, err)
		}
		if p.HasUserIndex(user) {
			t.Errorf("HasUserIndex(%q) = true", user)
		}
	}
	for _, date := range []string{"", "2020-11-22/../x", "22.11.2020", "2020-13-01"} {
		if err := p.DigestPage("ada", date, content("x")); !errors.Is(err, ErrBadName) {
			t.Errorf("DigestPage(ada, %q): err = %v, want ErrBadName", date, err)
		}
		if err := p.OutboxMessage("ada", date, content("x")); !errors.Is(err, ErrBadName) {
			t.Errorf("OutboxMessage(ada, %q): err = %v, want ErrBadName", date, err)
		}
	}
	if got := listFiles(t, root); len(got) != 0 {
		t.Errorf("bad names wrote %v", got)
	}
}

func TestOutboxUnset(t *testing.T) {
	dir := t.TempDir()
	p := New(dir, "")
	if p.KeepsOutbox() {
		t.Error("KeepsOutbox() without an outbox")
	}
	if err := p.OutboxMessage("ada", "2020-11-22", content("x")); !errors.Is(err, ErrNoOutbox) {
		t.Errorf("err = %v, want ErrNoOutbox", err)
	}
	if got := listFiles(t, dir); len(got) != 0 {
		t.Errorf("wrote %v", got)
	}
	if !New(dir, filepath.Join(dir, "out")).KeepsOutbox() {
		t.Error("KeepsOutbox() = false with an outbox")
	}
}

func TestHasUserIndex(t *testing.T) {
	p := New(t.TempDir(), "")
	if p.HasUserIndex("ada") {
		t.Error("HasUserIndex before any write")
	}
	if err := p.UserFeed("ada", content("feed")); err != nil {
		t.Fatal(err)
	}
	if p.HasUserIndex("ada") {
		t.Error("HasUserIndex true with only the feed written")
	}
	if err := p.UserIndex("ada", content("index")); err != nil {
		t.Fatal(err)
	}
	if !p.HasUserIndex("ada") || p.HasUserIndex("bob") {
		t.Error("HasUserIndex does not follow the files")
	}
}

func TestUnwritableSite(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "site")
	if err := os.WriteFile(blocker, []byte("a file where the site folder should be"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := New(blocker, "").StatusPage(content("x"))
	if err == nil || !strings.Contains(err.Error(), filepath.Join(blocker, "status.html")) {
		t.Errorf("err = %v, want one naming %s", err, filepath.Join(blocker, "status.html"))
	}
	if b, _ := os.ReadFile(blocker); !bytes.HasPrefix(b, []byte("a file")) {
		t.Error("the blocking file was changed")
	}
}

func TestFaviconIsWrittenOnceAndMended(t *testing.T) {
	root := t.TempDir()
	p := New(root, "")
	if err := p.Favicon(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, FaviconName)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("<svg ")) || bytes.Contains(b, []byte("href")) {
		t.Errorf("favicon.svg is not a self-contained SVG:\n%s", b)
	}
	// A second pass leaves the file alone: a site that did not change is
	// not deployed again.
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	if err := p.Favicon(); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(path); err != nil || !info.ModTime().Equal(old) {
		t.Errorf("an unchanged favicon was written again (%v)", err)
	}
	// A damaged one is written again.
	if err := os.WriteFile(path, []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := p.Favicon(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, b) {
		t.Error("a damaged favicon was not mended")
	}
}
