#!/usr/bin/env bash
# End-to-end test of the VS Code extension in a real VS Code: code-server 4.100.3 (VS Code
# 1.100, Node 20) in Debian's Chromium driven by playwright-core. Builds the VSIX with BIN
# bundled (editors/vscode/build.sh), installs it into a fresh code-server, opens the example
# workspace (workspace/) and checks the status-bar gauge, the warning squiggle, the hover, the
# lightbulb's "Compact conversation" (fork opened, new gauge) and "Dry-run compaction" (report
# opened as a Markdown preview) and the Context view (the window as a stacked bar, tokens per
# turn, the dry run's removals). Screenshots go to $E2E_HOME/results/vscode/shots.
# Usage: run.sh BIN
# Env: COMPACTD_E2E_HOME (cache + results), E2E_SKIP_INSTALL=1, E2E_SKIP_BUILD=1,
#      E2E_VSIX (test this VSIX, e.g. make dist's linux-x64 one, instead of building one),
#      E2E_SETTINGS_JSON (user settings; default a 20k window so the transcript is over warn, and
#      Claude Code's watch switch off as compactd.watch.claude), E2E_WORKSPACE_SETTINGS_JSON
#      (default Qwen Code's off in the workspace's compactd.watch object), E2E_HEALTH_RE and
#      E2E_HEALTH_NOT_RE (what "compactd: Show health" must and must not list),
#      E2E_UPDATE_SCREENSHOT=1 (after the checks, a second pass at the model's real 200k window
#      with the Context view open and a hover shown: editors/vscode/screenshot.png),
#      and the driver's own (driver/code_server_e2e.mjs: E2E_GAUGE_RE, E2E_HOVER_RE, ...).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../setup/lib.sh
. "$here/../setup/lib.sh"
[ $# -eq 1 ] || { echo "usage: $0 BIN   (the compactd binary)" >&2; exit 64; }
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
[ -x "$bin" ] || { echo "no executable server binary at $1" >&2; exit 64; }
[ -n "${E2E_SKIP_INSTALL:-}" ] || "$here/../setup/install.sh" --no-nvim-sid >&2
if [ -n "${E2E_VSIX:-}" ]; then
  vsix=$E2E_VSIX      # a packaged VSIX (make dist's linux-x64): its bundled binary serves
else
  [ -n "${E2E_SKIP_BUILD:-}" ] || "$REPO_ROOT/editors/vscode/build.sh" "$bin" >&2
  vsix=$REPO_ROOT/editors/vscode/compactd.vsix
fi
export CODE_SERVER=${CODE_SERVER:-$E2E_HOME/code-server-${CODE_SERVER_VERSION:-4.100.3}/node_modules/.bin/code-server}
[ -x "$CODE_SERVER" ] || { echo "no code-server at $CODE_SERVER: run editors/e2e/setup/install.sh" >&2; exit 2; }
npm_stage "$here/driver" "$E2E_HOME/vscode/driver"
res=$E2E_HOME/results/vscode; rm -rf "$res/shots"; mkdir -p "$res/shots"
tmp=$(mktemp -d)
isolate_home "$tmp"        # code-server, the extension host and the server all inherit it
export TMPDIR=$tmp
export E2E_WORKSPACE_SRC=$here/workspace E2E_FILE_NAME=conversation.jsonl
# The watch switches as users have them: an agent's off as its own key in the user settings
# (compactd.watch.<key>, the form earlier versions declared), another off in the workspace's
# compactd.watch object; the health page must watch neither and still the rest.
export E2E_SETTINGS_JSON=${E2E_SETTINGS_JSON:-'{"compactd.gauge.contextWindow": 20000, "compactd.watch.claude": false}'}
export E2E_WORKSPACE_SETTINGS_JSON=${E2E_WORKSPACE_SETTINGS_JSON-'{"compactd.watch": {"qwen": false}}'}
export E2E_HEALTH_RE=${E2E_HEALTH_RE-'- workspace: [\s\S]*- codex: [\s\S]*- gemini: '}
export E2E_HEALTH_NOT_RE=${E2E_HEALTH_NOT_RE-'- (claude|qwen): '}
export E2E_GAUGE_RE=${E2E_GAUGE_RE:-'\d+(\.\d)?[kM]? / \d+(\.\d)?[kM]? · \d+ %'}
export E2E_HOVER_RE=${E2E_HOVER_RE:-'[Tt]okens'}
export E2E_TOAST_RE=${E2E_TOAST_RE:-'[Cc]ompact'}
export E2E_PROGRESS_RE=${E2E_PROGRESS_RE:-'[Cc]ompact'}
export E2E_FORK_TAB_RE=${E2E_FORK_TAB_RE-'\.jsonl'}
export E2E_DRYRUN_TAB_RE=${E2E_DRYRUN_TAB_RE-'Preview'}
export E2E_AGENT_COMPACTION=${E2E_AGENT_COMPACTION-1}
export E2E_CONTEXT_VIEW_RE=${E2E_CONTEXT_VIEW_RE-'tokens · \d+ %[\s\S]*outside the transcript[\s\S]*Tokens per turn[\s\S]*removed'}
rc=0
timeout "${E2E_HARD_TIMEOUT:-300}" node "$E2E_HOME/vscode/driver/code_server_e2e.mjs" \
  --vsix "$vsix" --shots "$res/shots" --out "$res/result.json" -- "$bin" serve || rc=$?
if [ "$rc" -eq 0 ] && [ -n "${E2E_UPDATE_SCREENSHOT:-}" ]; then
  # The README's picture: the real session at the model's own window (200k), not a test window.
  E2E_SETTINGS_JSON='{}' E2E_README_SHOT=1 E2E_HOVER_LINE_TEXT='"parentUuid":null' timeout "${E2E_HARD_TIMEOUT:-300}" node "$E2E_HOME/vscode/driver/code_server_e2e.mjs" \
    --vsix "$vsix" --shots "$res/shots" --out "$res/readme.json" -- "$bin" serve || rc=$?
  [ "$rc" -ne 0 ] || cp "$res/shots/00-readme.png" "$REPO_ROOT/editors/vscode/screenshot.png"
fi
if [ "$rc" -eq 0 ]; then
  rm -rf "$tmp"
else
  echo "vscode e2e failed (rc $rc): screenshots in $res/shots, logs in $tmp" >&2
fi
exit "$rc"
