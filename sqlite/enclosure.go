package sqlite

import (
	"encoding/json"
	"fmt"
	"time"

	"feeddigest/domain"
)

// enclosureRow is an enclosure as entries.enclosures keeps it: a JSON
// array of these, written out so that the column reads on its own.
type enclosureRow struct {
	URL     string `json:"url"`
	Type    string `json:"type,omitempty"`
	Length  int64  `json:"length,omitempty"`  // bytes
	Seconds int64  `json:"seconds,omitempty"` // playing time
}

// encodeEnclosures is the column's value: "" for none.
func encodeEnclosures(encs []domain.Enclosure) (string, error) {
	if len(encs) == 0 {
		return "", nil
	}
	rows := make([]enclosureRow, len(encs))
	for i, e := range encs {
		rows[i] = enclosureRow{URL: e.URL, Type: e.Type, Length: e.Length, Seconds: int64(e.Duration / time.Second)}
	}
	b, err := json.Marshal(rows)
	if err != nil {
		return "", fmt.Errorf("enclosures: %w", err)
	}
	return string(b), nil
}

func decodeEnclosures(s string) ([]domain.Enclosure, error) {
	if s == "" {
		return nil, nil
	}
	var rows []enclosureRow
	if err := json.Unmarshal([]byte(s), &rows); err != nil {
		return nil, fmt.Errorf("enclosures: %w", err)
	}
	out := make([]domain.Enclosure, len(rows))
	for i, r := range rows {
		out[i] = domain.Enclosure{URL: r.URL, Type: r.Type, Length: r.Length, Duration: time.Duration(r.Seconds) * time.Second}
	}
	return out, nil
}
