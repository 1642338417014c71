package sqlite

import (
	"feeddigest/domain"
	"feeddigest/store"
)

// encodeEnclosures is the value of entries.enclosures: "" for none (see
// store.EncodeEnclosures).
func encodeEnclosures(encs []domain.Enclosure) (string, error) {
	b, err := store.EncodeEnclosures(encs)
	return string(b), err
}

func decodeEnclosures(s string) ([]domain.Enclosure, error) {
	return store.DecodeEnclosures([]byte(s))
}
