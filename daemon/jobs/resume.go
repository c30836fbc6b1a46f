package jobs

import (
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/agents"
	_ "github.com/compactd/compactd/daemon/agents/all" // the agents' resume commands
)

// Resuming a fork. Most agents resume a fork from where compactd wrote it
// (a new session file in their own folder). Agents that keep sessions in a
// database compactd never writes (agents.Agent.Imports) get an export they
// import with their own `import` command, which must run in the session's
// project folder (import files the session under the folder it runs in).

// dbAgentCommand names the executable of an agent that imports its forks
// (daemon/agents: Agent.Imports), "" for other formats.
func dbAgentCommand(f transcript.Format) string {
	if a := agents.ByFormat(f); a != nil && a.Imports {
		return a.Command
	}
	return ""
}

// refuseDatabaseInPlace refuses in-place compaction of a database session:
// its file is compactd's rendering, and the agent's database is never
// written.
func refuseDatabaseInPlace(f transcript.Format, path string) error {
	if cmd := dbAgentCommand(f); cmd != "" {
		return fmt.Errorf("%s is compactd's rendering of a session %s keeps in its database, which compactd never writes; compact without --in-place and import the fork (%s import FILE)", path, cmd, cmd)
	}
	return nil
}

// resumeCommand is the shell command that resumes fork (session id) for
// the user, "" when the agent resumes nothing or needs no command beyond
// its own session list.
func resumeCommand(f transcript.Format, cwd, fork, session string) string {
	a := agents.ByFormat(f)
	if a == nil || a.Resume == nil {
		return ""
	}
	cd := ""
	if cwd != "" {
		cd = "cd " + agents.ShellQuote(cwd) + " && "
	}
	return cd + a.Resume(fork, session)
}

// resumeImported is the shell command that resumes session once its
// agent imported it.
func resumeImported(f transcript.Format, cwd, session string) string {
	a := agents.ByFormat(f)
	if a == nil || a.ResumeImported == nil {
		return ""
	}
	return "cd " + agents.ShellQuote(cwd) + " && " + a.ResumeImported(session)
}

// importFork runs the agent's import of fork in cwd when its executable is
// on PATH. It returns what the agent printed.
func importFork(ctx context.Context, f transcript.Format, cwd, fork string) (string, error) {
	cmd := dbAgentCommand(f)
	if cmd == "" {
		return "", fmt.Errorf("%s sessions are not imported: resume the fork where it was written", f)
	}
	bin, err := exec.LookPath(cmd)
	if err != nil {
		return "", fmt.Errorf("%s is not on PATH, so the fork was not imported; run: %s", cmd, resumeCommand(f, cwd, fork, "<id>"))
	}
	c := exec.CommandContext(ctx, bin, "import", fork)
	c.Dir = cwd
	c.Env = append(c.Environ(), agents.ByFormat(f).ImportEnv...)
	out, err := c.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s import %s failed: %v: %s", cmd, fork, err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}
