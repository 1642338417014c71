package postgres

import (
	"encoding/json"
	"fmt"
	"time"

	"feeddigest/domain"
)

// enclosureRow is an enclosure as entries.enclosures keeps it: a JSON
// array of these, as SQLite's entries.enclosures does, so that a copied
// state (feeddigest migrate) reads alike.
type enclosureRow struct {
	URL     string `json:"url"`
	Type    string `json:"type,omitempty"`
	Length  int64  `json:"length,omitempty"`  // bytes
	Seconds int64  `json:"seconds,omitempty"` // playing time
}

// encodeEnclosures is the column's value: NULL for none.
func encodeEnclosures(encs []domain.Enclosure) (any, error) {
	if len(encs) == 0 {
		return nil, nil
	}
	rows := make([]enclosureRow, len(encs))
	for i, e := range encs {
		rows[i] = enclosureRow{URL: e.URL, Type: e.Type, Length: e.Length, Seconds: int64(e.Duration / time.Second)}
	}
	b, err := json.Marshal(rows)
	if err != nil {
		return nil, fmt.Errorf("enclosures: %w", err)
	}
	return string(b), nil
}

// decodeEnclosures reads the column (nil: NULL, none).
func decodeEnclosures(b []byte) ([]domain.Enclosure, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var rows []enclosureRow
	if err := json.Unmarshal(b, &rows); err != nil {
		return nil, fmt.Errorf("enclosures: %w", err)
	}
	out := make([]domain.Enclosure, len(rows))
	for i, r := range rows {
		out[i] = domain.Enclosure{URL: r.URL, Type: r.Type, Length: r.Length, Duration: time.Duration(r.Seconds) * time.Second}
	}
	return out, nil
}
