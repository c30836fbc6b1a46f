package daemon

import (
	"context"

	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/daemon/config"
	"github.com/compactd/compactd/daemon/jobs"
)

// A JobRequest is one compaction command's arguments, as the editor sent
// them (see the README's command list).
type JobRequest struct {
	Path       string
	Strategies []string
	KeepLast   int
	// Turns is how many turns turn-window keeps; 0 takes the configuration's.
	Turns    int
	Version  string
	From, To string
	InPlace  bool
	DryRun   bool
	// Window is the transcript's context window (for ratio triggers).
	Window int
	// Config is the resolved configuration for the transcript's
	// workspace; nil uses the fields above alone. Its [compact] and
	// [tools] shape the pipeline (Strategies and KeepLast above still
	// win), its [summarize] picks the summarizer and the tangent model.
	Config *config.Config
	// Workspace is the workspace root ("" = the transcript's folder).
	Workspace string
	// ConfirmedTangents are the turns (Tangent.Turn, from a dry run) the
	// user approved removing.
	ConfirmedTangents []int
	// Before ("a2") compacts the conversation as it was before that
	// compaction of the agent's own instead of the file.
	Before string
	// Parsed is the transcript as the index holds it (Daemon.Parsed), so
	// the job parses and counts only what changed since; nil parses it.
	Parsed *jobs.Parsed
}

// An AgentCompactionLister lists the agent's own compactions of a
// transcript by their history labels ("a1", …). RunnerJobs is one.
type AgentCompactionLister interface {
	AgentCompactions(ctx context.Context, path string) ([]string, error)
}

// A JobResult is what a finished command reports.
type JobResult struct {
	// Message is one sentence for the user.
	Message string
	// Open is a file worth showing: the fork, the dry-run report.
	Open string
	// Data is the command's JSON result.
	Data any
	// Tangents are the turns classify-tangents found and did not remove:
	// what to ask the user about.
	Tangents []strategy.Tangent
}

// Progress reports a running job: a message and a percentage (0–100, -1
// when unknown).
type Progress func(message string, percent int)

// Jobs runs the long work behind the editor's commands. daemon/jobs
// implements it; the daemon only routes requests to it.
type Jobs interface {
	Compact(ctx context.Context, req JobRequest, progress Progress) (*JobResult, error)
	History(ctx context.Context, req JobRequest) (*JobResult, error)
	Restore(ctx context.Context, req JobRequest, progress Progress) (*JobResult, error)
	Diff(ctx context.Context, req JobRequest) (*JobResult, error)
	// Versions counts the stored versions of the conversation at path.
	Versions(ctx context.Context, path string) (int, error)
}
