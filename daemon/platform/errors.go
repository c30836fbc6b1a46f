package platform

import "errors"

// ErrInUse means another program held the file open in a way that kept
// compactd from replacing it (only Windows refuses).
var ErrInUse = errors.New("another program holds the file open")
