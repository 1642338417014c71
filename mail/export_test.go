package mail

// MeasuredSize is the size ComposeDigest compared with MaxSize.
func MeasuredSize(m *Message) int64 { return m.size }
