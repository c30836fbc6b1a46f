//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package watch

import "golang.org/x/sys/unix"

// kqueueWatcher: fsnotify watches with kqueue, one descriptor per watched
// folder and per entry in it.
const kqueueWatcher = true

// defaultWatchDescriptors is a quarter of the open-file limit (Go raises
// the soft limit at start; macOS's default is 256), so reading and the
// store keep the rest.
func defaultWatchDescriptors() int {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err != nil || rl.Cur == 0 {
		return 64
	}
	return int(min(max(rl.Cur/4, 64), 4096))
}
