//go:build !linux && !windows

package platformtest

// maxrssBytes: the BSDs and macOS report ru_maxrss in bytes.
func maxrssBytes(v int64) int64 { return v }
