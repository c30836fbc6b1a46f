//go:build !(darwin || dragonfly || freebsd || netbsd || openbsd)

package watch

// kqueueWatcher is false: inotify (Linux) and ReadDirectoryChangesW
// (Windows) hold no descriptor per watched folder or file.
const kqueueWatcher = false

// defaultWatchDescriptors: no bound.
func defaultWatchDescriptors() int { return 0 }
