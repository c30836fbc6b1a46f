// Package platformtest gives tests the operating-system features some
// systems lack, as functions that fail with ErrUnsupported there, so a
// test skips just the case the OS cannot have and says why.
package platformtest

import "errors"

// ErrUnsupported means the OS lacks the feature.
var ErrUnsupported = errors.New("this operating system lacks the feature")
