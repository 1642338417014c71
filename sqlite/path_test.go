package sqlite

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"feeddigest/store"
	"feeddigest/store/storetest"
)

// A state path is a file name whatever its characters: '#', '?' and '%'
// mean something in a URI, nothing in a path.
func TestStatePathWithURICharacters(t *testing.T) {
	for _, dir := range []string{"hash#x", "what?y=1", "pct%41", "pct%zz", "sp ace", "a:b"} {
		t.Run(dir, func(t *testing.T) {
			root := t.TempDir()
			t.Chdir(root)
			path := filepath.Join(dir, "state.db") // relative, as in a config
			s, err := Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			storetest.Subscribe(t, s, map[string][]string{"ada": {"https://a.example/feed"}}, t0)
			s.Close()
			for _, want := range []string{path, path + ".lock"} {
				if info, err := os.Stat(want); err != nil || info.Size() == 0 && want == path {
					t.Errorf("%s: %v", want, err)
				}
			}
			entries, _ := os.ReadDir(root)
			if len(entries) != 1 || entries[0].Name() != dir {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("files made beside the state folder: %v", names)
			}
			r, err := OpenReader(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if feeds, err := r.Feeds(ctx); err != nil || len(feeds) != 1 {
				t.Errorf("read back: %v %v", feeds, err)
			}
		})
	}
}

// The run lock is the real file's, whichever path reaches it: through a
// link to the file (made or not yet), through a linked folder, or its
// own.
func TestLockHeldThroughLinks(t *testing.T) {
	for _, c := range []struct {
		name          string
		link, target  string // a link the case makes, beside real/
		first, second string
	}{
		{"link to the file", "link.db", "real/state.db", "link.db", "real/state.db"},
		{"real path, then the link", "link.db", "real/state.db", "real/state.db", "link.db"},
		{"linked folder", "linked", "real", "linked/state.db", "real/state.db"},
		{"real path, then the linked folder", "linked", "real", "real/state.db", "linked/state.db"},
		{"link to a link", "link.db", "link2.db", "link.db", "real/state.db"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.Mkdir(filepath.Join(root, "real"), 0o755); err != nil {
				t.Fatal(err)
			}
			for link, target := range map[string]string{c.link: c.target, "link2.db": "real/state.db"} {
				if err := os.Symlink(filepath.Join(root, target), filepath.Join(root, link)); err != nil && !os.IsExist(err) {
					t.Fatal(err)
				}
			}
			s, err := Open(ctx, filepath.Join(root, c.first))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, err := Open(ctx, filepath.Join(root, c.second)); !errors.Is(err, store.ErrLocked) {
				t.Fatalf("a second open through %s: %v, want store.ErrLocked", c.second, err)
			}
			if _, err := os.Stat(filepath.Join(root, "real", "state.db.lock")); err != nil {
				t.Errorf("the lock is not beside the real file: %v", err)
			}
		})
	}
}

func TestLinkLoopIsRefused(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a.db"), filepath.Join(root, "b.db")
	if err := errors.Join(os.Symlink(b, a), os.Symlink(a, b)); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, a); err == nil {
		t.Fatal("a state path that loops opened")
	}
}
