package platformtest

import "github.com/gofrs/flock"

// LockFile holds the OS lock compactd takes on a conversation's lock file
// (flock or LockFileEx), until unlock is called.
func LockFile(path string) (unlock func(), err error) {
	l := flock.New(path)
	if err := l.Lock(); err != nil {
		return nil, err
	}
	return func() { l.Unlock() }, nil
}
