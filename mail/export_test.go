package mail

// MeasuredSize is the size ComposeDigest compared with MaxSize.
func MeasuredSize(m *Message) int64 { return m.size }

// Boundary is the MIME boundary m was composed with.
func Boundary(m *Message) string { return m.msg.GetBoundary() }
