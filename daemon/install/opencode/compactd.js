// compactd in opencode's compaction. Written by `compactd hooks install opencode`;
// `compactd hooks uninstall opencode` removes it.
//
// Before opencode compacts a session (automatically or on /compact), compactd records the
// session as it is in its store, so the conversation before every compaction stays restorable
// as a session opencode imports. opencode's own summary is left as it is.
const COMPACTD = __COMPACTD__;
const ARGS = __ARGS__;

export const Compactd = async ({ $ }) => ({
  "experimental.session.compacting": async (input) => {
    await $`${COMPACTD} ${ARGS} --session ${input.sessionID}`.quiet().nothrow();
  },
});
