package sqlite

import (
	"feeddigest/store/storetest"
	"os"
	"path/filepath"
	"testing"
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
