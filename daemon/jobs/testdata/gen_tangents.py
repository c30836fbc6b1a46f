import json, uuid
sess = "7b2e0c41-9d3a-4f6e-8a15-2c4d6e8f0a13"
cwd = "/home/dev/src/ledger"
lines = []
parent = None
ts = [0]
n = [0]
def uid():
    n[0] += 1
    return str(uuid.UUID(int=0x5eed0000000000000000000000000000 + n[0]))
def stamp():
    ts[0] += 3
    return "2025-11-20T10:%02d:%02d.000Z" % (ts[0] // 60, ts[0] % 60)
def base(kind):
    return {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": sess, "version": "2.0.42", "gitBranch": "main", "type": kind}
def user(content, meta=False, tool_result=None):
    global parent
    d = base("user")
    d["message"] = {"role": "user", "content": content}
    if meta: d["isMeta"] = True
    if tool_result is not None: d["toolUseResult"] = tool_result
    d["uuid"] = uid(); d["timestamp"] = stamp()
    lines.append(d); parent = d["uuid"]
def assistant(blocks, stop):
    global parent
    d = base("assistant")
    d["message"] = {"model": "claude-sonnet-4-5-20250929", "id": "msg_%024d" % n[0], "type": "message", "role": "assistant", "content": blocks, "stop_reason": stop, "stop_sequence": None, "usage": {"input_tokens": 12, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 9000 + 500 * n[0], "output_tokens": 120, "service_tier": "standard"}}
    d["requestId"] = "req_%020d" % n[0]
    d["uuid"] = uid(); d["timestamp"] = stamp()
    lines.append(d); parent = d["uuid"]
tools = [0]
def tool(name, inp, result):
    tools[0] += 1
    tid = "toolu_01TANGENT%013d" % tools[0]
    assistant([{"type": "tool_use", "id": tid, "name": name, "input": inp}], "tool_use")
    user([{"tool_use_id": tid, "type": "tool_result", "content": result}], tool_result={"stdout": result[:200], "stderr": "", "interrupted": False})
def text(t):
    assistant([{"type": "text", "text": t}], "end_turn")
body = "".join("%6d\u2192func Reconcile%d(ctx context.Context, l *Ledger) error { return l.apply(ctx, %d) }\n" % (i, i, i * 7) for i in range(1, 81))

user("<system-reminder>\nContents of /home/dev/src/ledger/CLAUDE.md (project instructions, checked into the codebase):\n\n- You must run `go test ./...` before declaring work done.\n- Never edit files under vendor/.\n</system-reminder>", meta=True)
user("Fix the off-by-one in internal/ledger/reconcile.go: the last pending entry is never applied.")
tool("Read", {"file_path": cwd + "/internal/ledger/reconcile.go"}, body)
text("The loop stops at len(pending)-1. I changed it to range over pending so the last entry is applied.")
user("Side question: what is the capital of Australia? I keep forgetting.")
text("Canberra. " + "It was purpose-built as a compromise between Sydney and Melbourne and became the capital in 1913. " * 6)
user("Now add a test for the last pending entry in reconcile_test.go.")
tool("Bash", {"command": "go test ./internal/ledger/", "description": "Run the ledger tests"}, "ok  \tgithub.com/dev/ledger/internal/ledger\t0.031s")
text("Added TestReconcileAppliesLastEntry; the ledger tests pass.")
user("Unrelated: find me a good haiku about autumn leaves.")
tool("WebSearch", {"query": "famous haiku autumn leaves"}, "Results:\n" + "".join("- Basho, autumn haiku #%d: the old pond, a frog jumps in, the sound of water among fallen leaves\n" % i for i in range(1, 31)))
text("Crimson leaves drifting / the pond holds the autumn sky / a carp breaks the light.")
user("Document ReconcileLedger in reconcile.go.")
tool("Read", {"file_path": cwd + "/internal/ledger/reconcile.go"}, body)
text("Added a doc comment to ReconcileLedger explaining that every pending entry, including the last, is applied in order.")
with open("tangents.jsonl", "w") as f:
    for d in lines:
        f.write(json.dumps(d, ensure_ascii=False, separators=(",", ":")) + "\n")
