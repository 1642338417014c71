package postgres

import (
	"feeddigest/domain"
	"feeddigest/store"
)

// encodeEnclosures is the value of entries.enclosures (jsonb): NULL for
// none (see store.EncodeEnclosures).
func encodeEnclosures(encs []domain.Enclosure) (any, error) {
	b, err := store.EncodeEnclosures(encs)
	if b == nil || err != nil {
		return nil, err
	}
	return string(b), nil
}

// decodeEnclosures reads the column (nil: NULL, none).
func decodeEnclosures(b []byte) ([]domain.Enclosure, error) {
	return store.DecodeEnclosures(b)
}
