package store

import "feeddigest/domain"

// ClaimInOrder is ClaimArticles's rule, for both back ends: candidates
// with a link are offered to claim in order until limit of them are
// claimed, and their keys are returned. claim takes an entry's page
// unless its entry is stored or the page was claimed before, and says
// whether it did.
func ClaimInOrder(candidates []domain.Entry, limit int, claim func(domain.Entry) (bool, error)) ([]string, error) {
	var keys []string
	for _, e := range candidates {
		if len(keys) >= limit {
			break
		}
		if e.Link == "" {
			continue
		}
		claimed, err := claim(e)
		if err != nil {
			return nil, err
		}
		if claimed {
			keys = append(keys, e.Key)
		}
	}
	return keys, nil
}
