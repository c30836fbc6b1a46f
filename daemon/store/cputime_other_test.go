//go:build !unix

package store

import "time"

func processCPUTime() (time.Duration, bool) { return 0, false }
