package pipeline

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"

	"feeddigest/store"
)

// keepInstallation is the state's installation id, made from entropy
// (crypto/rand when nil) and kept by the first run.
func keepInstallation(ctx context.Context, st store.Store, entropy io.Reader) (string, error) {
	if entropy == nil {
		entropy = rand.Reader
	}
	var u [16]byte
	if _, err := io.ReadFull(entropy, u[:]); err != nil {
		return "", fmt.Errorf("installation id: %w", err)
	}
	u[6] = u[6]&0x0f | 0x40 // a random UUID (version 4)
	u[8] = u[8]&0x3f | 0x80
	id := fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
	kept, err := st.KeepInstallation(ctx, id)
	if err != nil {
		return "", fmt.Errorf("installation id: %w", err)
	}
	return kept, nil
}
