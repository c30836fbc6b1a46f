//go:build !linux

package agents

// listProcesses lists none: reading another process's environment takes
// private interfaces on macOS (KERN_PROCARGS2 gives it only to root for
// other users' and hardened processes) and Windows (its PEB); compactd
// uses its own environment there.
func listProcesses() []process { return nil }

func processEnviron(int) (map[string]string, bool) { return nil, false }

// ParentArgs reads no command line outside Linux (see listProcesses).
func ParentArgs() []string { return nil }
