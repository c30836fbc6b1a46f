package platform

import "os"

// ReplaceAside puts tmp at path in one atomic rename, the file that was at
// path staying reachable at aside (a hard link made first): bytes a writer
// appended to path just before the rename are then read from aside, not
// lost. An error wrapping ErrInUse (Windows) means another program holds
// path open without delete sharing: nothing was changed, and the caller
// may read what was appended and try again.
func ReplaceAside(tmp, path, aside string) error {
	if err := os.Link(path, aside); err != nil {
		return err
	}
	if err := replaceOnce(tmp, path); err != nil {
		os.Remove(aside)
		return err
	}
	return nil
}
