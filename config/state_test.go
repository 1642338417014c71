package config

import (
	"path/filepath"
	"strings"
	"testing"
)

const stateUsers = `
[[users]]
name = "ada"
timezone = "UTC"
feeds = ["https://example.org/feed.xml"]
`

// A PostgreSQL URL is kept as written, never taken for a file beside
// the config.
func TestStateMayBeAPostgresURL(t *testing.T) {
	for _, state := range []string{
		"postgres://feeds@db.example:5432/digest?sslmode=verify-full",
		"postgresql://feeds@db.example/digest",
		"postgres:///digest?host=/var/run/postgresql",
	} {
		c, err := Parse([]byte("state = \""+state+"\"\n"+stateUsers), filepath.Join(t.TempDir(), "config.toml"))
		if err != nil {
			t.Fatalf("%s: %v", state, err)
		}
		if c.State != state || !c.StateIsPostgres() {
			t.Errorf("state %q read as %q (postgres: %v)", state, c.State, c.StateIsPostgres())
		}
	}
	c, err := Parse([]byte("state = \"postgres.db\"\n"+stateUsers), filepath.Join(t.TempDir(), "config.toml"))
	if err != nil || c.StateIsPostgres() || !filepath.IsAbs(c.State) {
		t.Errorf("a file named postgres.db: %q, %v", c.State, err)
	}
}

// The database password belongs in PGPASSWORD or ~/.pgpass: one in the
// URL is an error naming the key and its line, without repeating it.
func TestStateURLWithAPasswordIsRefused(t *testing.T) {
	for _, state := range []string{
		"postgres://feeds:hunter2@db.example/digest",
		"postgresql://feeds@db.example/digest?password=hunter2",
		"postgres://feeds@db.example/digest?sslmode=require&PASSWORD=hunter2",
	} {
		_, err := Parse([]byte("# the state\nstate = \""+state+"\"\n"+stateUsers), "config.toml")
		if err == nil {
			t.Fatalf("%s: accepted", state)
		}
		msg := err.Error()
		for _, want := range []string{"state:", "password", "PGPASSWORD", "(line 2)"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: the error does not say %q: %s", state, want, msg)
			}
		}
		if strings.Contains(msg, "hunter2") {
			t.Errorf("the error repeats the password: %s", msg)
		}
	}
}
