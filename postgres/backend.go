package postgres

import (
	"feeddigest/config"
	"feeddigest/store"
)

// Backend opens PostgreSQL states: postgres:// and postgresql:// URLs.
var Backend = store.Backend{
	Name:       "PostgreSQL",
	Handles:    config.IsPostgresURL,
	Open:       store.OpenWith(Open),
	OpenReader: store.ReadWith(OpenReader),
}
