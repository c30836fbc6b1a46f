// Package platform holds the few operations whose system calls differ
// between Unix and Windows, each as a pair of files behind build tags, so
// the rest of compactd calls one portable function:
//
//   - OpenFile opens without ever blocking (a named pipe on Unix) and, on
//     Windows, shares the file so the agent keeps writing, renaming and
//     deleting it while compactd reads; ReadDir and WalkDir list folders
//     with the same sharing, so the agent can remove one compactd lists;
//   - Replace moves a finished temporary file over a transcript, retrying
//     while Windows reports the target in use; ReplaceOnce tries once, and
//     InUse says whether an error is Windows refusing an open file;
//   - SyncDir makes a rename durable where the OS needs it;
//   - FileID and OwnedByOther read what FileInfo holds per OS;
//   - ProcessAlive asks whether a process still runs.
//
// It imports only the standard library and golang.org/x/sys.
package platform
