package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"feeddigest/domain"
	"feeddigest/internal/backends"
	"feeddigest/internal/pgtest"
	"feeddigest/postgres"
	"feeddigest/store"
)

// TestMain registers the state back ends, as the program's main does,
// and runs the tests beside a throwaway PostgreSQL cluster.
func TestMain(m *testing.M) {
	backends.Register()
	// The tests open each database once a pass: idle connections are
	// kept between them, as a long-lived process would keep its pool.
	postgres.KeepClosedPools(6)
	pgtest.TempInMemory()
	os.Exit(pgtest.Main(m))
}

// The whole command on a PostgreSQL state: status before the first run,
// a run, status after it, and a second run in the same hour.
func TestRunThenStatusOnPostgres(t *testing.T) {
	db := pgtest.NewDatabase(t)
	ts := feedServer(t)
	path := writeConfig(t, fmt.Sprintf("state = %q\n[fetch]\nallow_private_networks = true\n[[users]]\nname = \"ada\"\ntimezone = \"Europe/London\"\nfeeds = [%q, %q]\n",
		db, ts.URL+"/feed", ts.URL+"/missing"))
	code, stdout, stderr := runCLI("status", "-config", path)
	if code != 0 || !strings.Contains(stdout, "No state in the database yet") {
		t.Errorf("status before the first run: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI("run", "-config", path, "-now", "2026-11-22T00:05:00Z")
	if code != 0 {
		t.Fatalf("run: exit %d, %s", code, stderr)
	}
	if !strings.Contains(stdout, "digests built  1") {
		t.Errorf("summary: %s", stdout)
	}
	dir := filepath.Dir(path)
	if _, err := os.Stat(filepath.Join(dir, "postgres:")); !os.IsNotExist(err) {
		t.Errorf("the URL was taken for a file: %v", err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "site", "ada", "2026-11-22.html"))
	if err != nil || !strings.Contains(string(page), "https://site.example/hello") {
		t.Fatalf("page: %v", err)
	}
	code, stdout, stderr = runCLI("status", "-config", path, "-now", "2026-11-22T00:10:00Z")
	if code != 0 || !strings.Contains(stdout, ts.URL+"/missing") || !strings.Contains(stdout, "404") || strings.Contains(stdout, "yet") {
		t.Errorf("status: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = runCLI("run", "-config", path, "-now", "2026-11-22T00:35:00Z", "-json")
	if code != 0 || !strings.Contains(stdout, `"digests_built": 0`) {
		t.Errorf("second run in the same hour: exit %d %s", code, stdout)
	}
	public := filepath.Join(t.TempDir(), "public")
	code, stdout, stderr = runCLI("publish", "-config", path, "-out", public)
	if code != 0 || !strings.Contains(stdout, "published 1 digest page of 1 user") {
		t.Errorf("publish: exit %d\n%s%s", code, stdout, stderr)
	}
	again, err := os.ReadFile(filepath.Join(public, "ada", "2026-11-22.html"))
	if err != nil || string(again) != string(page) {
		t.Errorf("the published page differs from the run's (%v)", err)
	}
}

// A password in the state URL stops the command before anything is
// touched, naming the key, never echoing the password.
func TestPasswordInStateURLIsAConfigError(t *testing.T) {
	path := writeConfig(t, "state = \"postgres://feeds:hunter2@127.0.0.1:1/digest\"\n[[users]]\nname = \"ada\"\ntimezone = \"UTC\"\nfeeds = [\"https://example.org/feed\"]\n")
	code, _, stderr := runCLI("run", "-config", path, "-now", "2026-11-22T00:05:00Z")
	if code == 0 || !strings.Contains(stderr, "state:") || !strings.Contains(stderr, "PGPASSWORD") || strings.Contains(stderr, "hunter2") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// migrate copies a config's SQLite state into PostgreSQL; with the state
// pointed there, status and run go on from it.
func TestMigrateThenRunOnPostgres(t *testing.T) {
	db := pgtest.NewDatabase(t)
	ts := feedServer(t)
	users := fmt.Sprintf("[fetch]\nallow_private_networks = true\n[[users]]\nname = \"ada\"\ntimezone = \"Europe/London\"\nfeeds = [%q]\n", ts.URL+"/feed")
	path := writeConfig(t, users)
	if code, _, stderr := runCLI("run", "-config", path, "-now", "2026-11-22T00:05:00Z"); code != 0 {
		t.Fatalf("run: %s", stderr)
	}
	if code, _, stderr := runCLI("migrate", "-config", path); code == 0 || !strings.Contains(stderr, "-to is required") {
		t.Errorf("migrate without -to: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runCLI("migrate", "-config", path, "-to", "postgres://ada:hunter2@127.0.0.1/x"); code == 0 ||
		!strings.Contains(stderr, "PGPASSWORD") || strings.Contains(stderr, "hunter2") {
		t.Errorf("migrate to a URL with a password: exit %d, %s", code, stderr)
	}
	code, stdout, stderr := runCLI("migrate", "-config", path, "-to", db)
	if code != 0 || !strings.Contains(stdout, "copied 1 feeds, 1 entries, 1 subscriptions, 1 digests") {
		t.Fatalf("migrate: exit %d\n%s%s", code, stdout, stderr)
	}
	feedXML := filepath.Join(filepath.Dir(path), "site", "ada", "feed.xml")
	before, err := os.ReadFile(feedXML)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(fmt.Sprintf("state = %q\n", db)+users), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := runCLI("status", "-config", path, "-now", "2026-11-22T00:10:00Z"); code != 0 || !strings.Contains(stdout, ts.URL+"/feed") || strings.Contains(stdout, "yet") {
		t.Errorf("status on the copy: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI("run", "-config", path, "-now", "2026-11-22T00:35:00Z", "-json")
	if code != 0 || !strings.Contains(stdout, `"digests_built": 0`) {
		t.Errorf("a second run in the hour, on the copy, built again: exit %d %s%s", code, stdout, stderr)
	}
	// The copy keeps the installation's id, and with it the Atom ids.
	os.Remove(feedXML)
	if code, _, stderr := runCLI("publish", "-config", path, "-now", "2026-11-22T00:35:00Z"); code != 0 {
		t.Fatalf("publish on the copy: %s", stderr)
	}
	firstID := func(xml []byte) string {
		_, rest, _ := strings.Cut(string(xml), "<id>")
		id, _, _ := strings.Cut(rest, "</id>")
		return id
	}
	if after, _ := os.ReadFile(feedXML); firstID(after) != firstID(before) || !strings.HasPrefix(firstID(before), "urn:uuid:") {
		t.Errorf("feed id on the copy %q, want %q", firstID(after), firstID(before))
	}
	if code, _, stderr := runCLI("migrate", "-config", path, "-to", db); code == 0 || !strings.Contains(stderr, "PostgreSQL database already") {
		t.Errorf("migrate of a PostgreSQL state: exit %d, %s", code, stderr)
	}
}

// migrate carries the entries a poll stored without their texts (past
// what a digest shows) as such: on PostgreSQL too they never gain texts
// and are forgotten in time.
func TestMigrateKeepsEntriesStoredWithoutTexts(t *testing.T) {
	db := pgtest.NewDatabase(t)
	ts := feedServer(t)
	state := filepath.Join(t.TempDir(), "state.db")
	path := writeConfig(t, fmt.Sprintf("state = %q\n[fetch]\nallow_private_networks = true\n[[users]]\nname = \"ada\"\ntimezone = \"Europe/London\"\nfeeds = [%q]\n",
		state, ts.URL+"/feed"))
	if code, _, stderr := runCLI("run", "-config", path, "-now", "2026-11-22T00:05:00Z"); code != 0 {
		t.Fatalf("run: %s", stderr)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, state)
	if err != nil {
		t.Fatal(err)
	}
	feed, err := st.Feed(ctx, ts.URL+"/feed")
	if err == nil {
		var tx store.PollTx
		if tx, err = st.BeginPoll(ctx, feed.ID); err == nil {
			var body []domain.Entry
			for i := range 4 {
				body = append(body, domain.Entry{Key: fmt.Sprintf("id:more-%d", i), Title: "More", Content: "<p>more</p>",
					Link: fmt.Sprintf("https://site.example/more-%d", i)})
			}
			_, err = tx.SaveEntries(ctx, body, time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC), 1) // three stored without texts
			err = errors.Join(err, tx.Commit())
		}
	}
	if err = errors.Join(err, st.Close()); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := runCLI("migrate", "-config", path, "-to", db); code != 0 {
		t.Fatalf("migrate: exit %d\n%s%s", code, stdout, stderr)
	}
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var overflow int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM entries WHERE overflow").Scan(&overflow); err != nil {
		t.Fatal(err)
	}
	if overflow != 3 {
		t.Errorf("%d entries stored without texts after the copy, want 3", overflow)
	}
}
