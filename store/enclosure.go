package store

import (
	"encoding/json"
	"fmt"
	"time"

	"feeddigest/domain"
)

// enclosureRow is an enclosure as both stores keep it in
// entries.enclosures: a JSON array of these, written out so that the
// column reads on its own and a state copied by migrate reads alike.
type enclosureRow struct {
	URL     string `json:"url"`
	Type    string `json:"type,omitempty"`
	Length  int64  `json:"length,omitempty"`  // bytes
	Seconds int64  `json:"seconds,omitempty"` // playing time
}

// EncodeEnclosures is the stored form of an entry's enclosures: nil for
// none.
func EncodeEnclosures(encs []domain.Enclosure) ([]byte, error) {
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
	return b, nil
}

// DecodeEnclosures reads what EncodeEnclosures wrote (empty: none).
func DecodeEnclosures(b []byte) ([]domain.Enclosure, error) {
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
