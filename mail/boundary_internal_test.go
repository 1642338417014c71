package mail

import "testing"

// TestBoundaryCounterAcrossWrites: an occurrence of the boundary is
// counted once wherever the writes split it.
func TestBoundaryCounterAcrossWrites(t *testing.T) {
	const b = "feeddigest-0123"
	msg := "x--" + b + "\r\n" + b + b + "y" + b[:5] + "-" + b
	for cut1 := 0; cut1 <= len(msg); cut1++ {
		for cut2 := cut1; cut2 <= len(msg); cut2++ {
			c := boundaryCounter{boundary: []byte(b)}
			for _, p := range []string{msg[:cut1], msg[cut1:cut2], msg[cut2:]} {
				if _, err := c.Write([]byte(p)); err != nil {
					t.Fatal(err)
				}
			}
			if c.hits != 4 || c.size != int64(len(msg)) {
				t.Fatalf("writes cut at %d and %d: %d hits in %d bytes, want 4 in %d", cut1, cut2, c.hits, c.size, len(msg))
			}
		}
	}
	c := boundaryCounter{boundary: []byte(b)}
	for i := range len(msg) {
		if _, err := c.Write([]byte{msg[i]}); err != nil {
			t.Fatal(err)
		}
	}
	if c.hits != 4 {
		t.Fatalf("a byte a write: %d hits, want 4", c.hits)
	}
}
