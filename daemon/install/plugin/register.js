// compactd as Claude Code's compaction. Written by `compactd hooks install
// claude --compaction`; `compactd hooks uninstall claude` removes it.
//
// On each compaction of the main conversation (the person's /compact or
// the automatic one) compactd records the conversation, summarizes the
// turns before the last one with its own pipeline and answers with that
// summary and the last turn as Claude Code has it: Claude Code's own
// summarizer does not run. If compactd fails, Claude Code compacts as usual.
const COMPACTD = __COMPACTD__;
const ARGS = __ARGS__;

// isPrompt: a message the person typed (what starts a turn).
const isPrompt = (m) =>
  m.role === "user" && !(m.toolResults && m.toolResults.length) && m.text.trim() !== "" && !m.text.trimStart().startsWith("<");

/** @type {import('claude-code').Register} */
export const register = (on) => {
  on("session.compact", async ($, e, next) => {
    // A subagent's own transcript and a background precompute stay Claude Code's.
    if (e.agentId || e.trigger === "precompute") return next(e);
    let out;
    try {
      const { transcriptPath } = await $.session.info();
      const env = await $.process.hookEnv();
      const ran = await $.process.run([COMPACTD, ...ARGS], {
        stdin: JSON.stringify({ transcript_path: transcriptPath, trigger: e.trigger, instructions: e.instructions ?? "" }),
        env,
        timeoutMs: 120000,
      });
      if (ran.exitCode !== 0) throw new Error(ran.stderr.trim() || `exit ${ran.exitCode}`);
      out = JSON.parse(ran.stdout);
    } catch (err) {
      $.ui.log(`compactd could not compact (${err}); Claude Code compacts instead`, { to: "debug" });
      return next(e);
    }
    // The turns compactd left out of its summary, as Claude Code has them.
    let from = e.messages.length;
    for (let left = out.keepTurns; left > 0 && from > 0; ) {
      from--;
      if (isPrompt(e.messages[from])) left--;
    }
    return {
      messages: [{ role: "user", text: out.summary, toolUses: [] }, ...e.messages.slice(from)],
      tokensBefore: out.tokensBefore,
      tokensAfter: out.tokensAfter,
    };
  });
};
