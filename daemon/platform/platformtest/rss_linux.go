package platformtest

// maxrssBytes: Linux reports ru_maxrss in kilobytes.
func maxrssBytes(v int64) int64 { return v << 10 }
