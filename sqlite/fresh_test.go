package sqlite

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"feeddigest/store"
	"feeddigest/store/storetest"
)

func TestMissingStateIsAFreshStart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "state.db")
	// What a run killed while creating the file would leave.
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path+".new", []byte("half a file"), 0o644)
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := os.Stat(path + ".new"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("leftover not removed: %v", err)
	}
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	s.Close()
}

func TestEmptyOrForeignStateRefused(t *testing.T) {
	sqliteFile := func(t *testing.T, path string, stmts ...string) {
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for _, s := range stmts {
			if _, err := db.Exec(s); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name  string
		make  func(t *testing.T, path string)
		wants []string
		is    error
	}{
		{"empty", func(t *testing.T, path string) { os.WriteFile(path, nil, 0o644) },
			[]string{"exists but is empty (0 bytes)", "restore it", "delete it to start afresh"}, store.ErrNotState},
		{"an SQLite file without tables", func(t *testing.T, path string) { sqliteFile(t, path, "PRAGMA user_version = 0", "VACUUM") },
			[]string{"holds no data", "restore it", "delete it to start afresh"}, store.ErrNotState},
		{"another program's database", func(t *testing.T, path string) { sqliteFile(t, path, "CREATE TABLE notes (x)") },
			[]string{"something else", "choose another state path"}, store.ErrNotState},
		{"not SQLite", func(t *testing.T, path string) { os.WriteFile(path, bytes.Repeat([]byte("junk"), 2000), 0o644) },
			[]string{"damaged", "restore it", "delete it to start afresh"}, store.ErrDamaged},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.db")
			tt.make(t, path)
			before, _ := os.ReadFile(path)
			for _, open := range []func() (*Store, error){
				func() (*Store, error) { return Open(ctx, path) },
				func() (*Store, error) { return OpenReader(ctx, path) },
			} {
				s, err := open()
				if err == nil {
					s.Close()
					t.Fatal("opened")
				}
				if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), path) {
					t.Errorf("err %v; want %v naming %s", err, tt.is, path)
				}
				for _, want := range tt.wants {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("err %q lacks %q", err, want)
					}
				}
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
				t.Error("the refused file was changed")
			}
		})
	}
}

// A state file damaged past its first page fails at the first query that
// reads a damaged page: the error names the file.
func TestDamagedStateErrorsNameTheFile(t *testing.T) {
	s, path := openTemp(t)
	subs := map[string][]string{}
	for i := range 500 {
		subs["ada"] = append(subs["ada"], fmt.Sprintf("https://feeds%d.example/with/a/long/path/to/fill/pages", i))
	}
	storetest.Subscribe(t, s, subs, t0)
	s.Close()
	// Pages past the first overwritten: the schema is readable, the feeds not.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	copy(b[4096:], bytes.Repeat([]byte{0xff}, len(b)))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err = Open(ctx, path)
	if err != nil {
		t.Logf("refused at open: %v", err)
	} else {
		defer s.Close()
		_, err = s.Feeds(ctx)
		if err == nil {
			t.Fatal("read a truncated file")
		}
		err = s.Damaged(err)
	}
	if !errors.Is(err, store.ErrDamaged) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "restore it") {
		t.Errorf("err %v; want store.ErrDamaged naming %s and what to do", err, path)
	}
	s, _ = openTemp(t)
	if other := errors.New("x"); s.Damaged(other) != other || s.Damaged(nil) != nil {
		t.Error("Damaged changed an error that is not about damage")
	}
}
