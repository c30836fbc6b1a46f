package summarize_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/transcript"
)

// genSession builds a realistic coding session directly in the transcript
// model: injected project rules, prompts with standing instructions,
// decisions, reads of large files, greps, edits, failing then passing
// test runs, todo lists. Tool output dominates its tokens, as in real
// sessions. Equal seeds give equal sessions.
func genSession(seed uint64, turns int) []transcript.Message {
	g := &gen{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	g.msgs = append(g.msgs, transcript.Message{Role: transcript.RoleUser, Origin: transcript.OriginInjected, Parts: []transcript.Part{text(
		"Contents of /home/dev/src/inventory-service/CLAUDE.md:\n# Inventory service\n- Always run `go vet ./...` and `go test ./...` before declaring a task done.\n- Never edit files under vendor/ or generated *_pb.go files.\n- Use log/slog for logging, not fmt.Println.\n")}})
	for n := 0; n < turns; n++ {
		g.turn(n)
	}
	return g.msgs
}

var (
	genFiles = []string{"cmd/server/main.go", "internal/api/handler.go", "internal/api/handler_test.go", "internal/api/middleware.go",
		"internal/store/postgres.go", "internal/store/postgres_test.go", "internal/store/migrations/0003_add_sku_index.sql",
		"internal/inventory/reserve.go", "internal/inventory/reserve_test.go", "internal/inventory/pricing.go",
		"internal/config/config.go", "pkg/retry/backoff.go", "web/src/components/StockTable.tsx", "web/src/api/client.ts", "Makefile"}
	genIDs  = []string{"ReserveStock", "ReleaseHold", "skuIndex", "parseRequest", "withTimeout", "ErrOutOfStock", "reservation_ttl", "priceCache", "BackoffPolicy", "newRouter"}
	genAsks = []string{
		"Add a reservation timeout to %s so holds expire; `%s` should return ErrOutOfStock when the hold lapsed.",
		"The handler in %s panics on an empty body, can you fix it? It is `%s` I think.",
		"Write table-driven tests for %s covering `%s`.",
		"Refactor %s so `%s` takes a context.Context first.",
		"Why is %s slow? Profile `%s` and make it faster.",
	}
	genCommands     = []string{"go vet ./...", "git diff --stat HEAD~%d", "make lint", "go build ./cmd/server", "grep -rn skuIndex --include=*.go . | head -%d", "docker compose up -d postgres", "go test -run TestReserve%d ./internal/inventory/"}
	genInstructions = []string{
		"From now on, keep every exported function documented.",
		"Never change the public API of pkg/retry without asking me.",
		"Always use errors.Is for comparisons, never string matching.",
		"Don't add new dependencies to go.mod.",
	}
	genDecisions = []string{
		"I'll use a min-heap keyed by expiry instead of scanning all holds because reservations can number in the thousands.",
		"I decided to keep the Postgres advisory lock rather than a Go mutex, since several replicas run.",
		"Going with exponential backoff capped at 5s for `BackoffPolicy` because the upstream rate-limits bursts.",
		"The root cause is that `parseRequest` dereferences a nil body before checking Content-Length.",
		"I'll switch to a prepared statement for the SKU lookup because the planner picked a sequential scan.",
	}
)

type gen struct {
	rng   *rand.Rand
	msgs  []transcript.Message
	calls int
}

func text(s string) transcript.Part { return transcript.Part{Kind: transcript.PartText, Text: s} }

func (g *gen) pick(xs []string) string { return xs[g.rng.IntN(len(xs))] }

func (g *gen) turn(n int) {
	file, id := g.pick(genFiles), g.pick(genIDs)
	prompt := fmt.Sprintf(g.pick(genAsks), file, id)
	if g.rng.IntN(3) == 0 {
		prompt += " " + g.pick(genInstructions)
	}
	if g.rng.IntN(5) == 0 {
		prompt += fmt.Sprintf("\nI got this error earlier: error: pq: relation \"sku_holds_%d\" does not exist", n)
	}
	g.msgs = append(g.msgs, transcript.Message{Role: transcript.RoleUser, Origin: transcript.OriginHuman, Parts: []transcript.Part{text(prompt)}})
	steps := 2 + g.rng.IntN(3)
	failing := ""
	for s := 0; s < steps; s++ {
		var parts []transcript.Part
		if s == 0 {
			parts = append(parts, transcript.Part{Kind: transcript.PartReasoning, Text: "The user wants changes in " + file + "; read it first.", Signed: true})
			parts = append(parts, text(g.pick(genDecisions)))
		}
		var results []transcript.Part
		add := func(name string, args any, out string, isErr bool) {
			g.calls++
			id := fmt.Sprintf("toolu_%04d", g.calls)
			a, _ := json.Marshal(args)
			parts = append(parts, transcript.Part{Kind: transcript.PartToolCall, ToolCallID: id, ToolName: name, Args: string(a)})
			results = append(results, transcript.Part{Kind: transcript.PartToolResult, ToolCallID: id, ToolName: name, Text: out, IsError: isErr})
		}
		switch {
		case failing != "":
			add("Edit", map[string]string{"file_path": "/home/dev/src/inventory-service/" + failing, "old_string": "return nil", "new_string": "return ErrOutOfStock"}, "The file has been updated.", false)
			add("Bash", map[string]string{"command": "go test ./internal/...", "description": "Run tests"}, "ok  \tinventory/internal/inventory\t0.412s\nok  \tinventory/internal/api\t0.230s\n", false)
			failing = ""
		default:
			f := g.pick(genFiles)
			add("Read", map[string]string{"file_path": "/home/dev/src/inventory-service/" + f}, fileBody(g.rng, f), false)
			if g.rng.IntN(2) == 0 {
				add("Grep", map[string]string{"pattern": id, "path": "internal/"}, grepOut(g.rng, id), false)
			}
			if g.rng.IntN(2) == 0 {
				add("Edit", map[string]string{"file_path": "/home/dev/src/inventory-service/" + file, "old_string": "ctx", "new_string": "ctx context.Context"}, "The file has been updated.", false)
			}
			if g.rng.IntN(3) == 0 {
				line := 10 + g.rng.IntN(200)
				out := fmt.Sprintf("Exit code 1\n# inventory/internal/inventory\n%s:%d:9: undefined: %sV%d\nFAIL\tinventory/internal/inventory [build failed]\n", file, line, id, n)
				add("Bash", map[string]string{"command": "go test ./internal/...", "description": "Run tests"}, out, true)
				failing = file
			}
			if g.rng.IntN(2) == 0 {
				cmd, out := g.pick(genCommands), "ok\n"
				if g.rng.IntN(4) == 0 {
					out = fmt.Sprintf("Exit code 2\nmake: *** [Makefile:%d: lint] Error 2\n", 10+n)
				}
				add("Bash", map[string]string{"command": fmt.Sprintf(cmd, n), "description": "Check"}, out, strings.HasPrefix(out, "Exit"))
			}
			if g.rng.IntN(4) == 0 {
				add("TodoWrite", map[string]any{"todos": []map[string]string{
					{"content": fmt.Sprintf("Add benchmark for %s in turn %d", id, n), "status": "pending"},
					{"content": "Update README with the reservation flow", "status": g.pick([]string{"pending", "completed", "in_progress"})},
				}}, "Todos have been modified successfully.", false)
			}
		}
		g.msgs = append(g.msgs, transcript.Message{Role: transcript.RoleAssistant, Origin: transcript.OriginAgent, Parts: parts})
		g.msgs = append(g.msgs, transcript.Message{Role: transcript.RoleUser, Origin: transcript.OriginToolResult, Parts: results})
	}
	final := fmt.Sprintf("Done: %s now handles the case. Tests pass.", file)
	if g.rng.IntN(3) == 0 {
		final += fmt.Sprintf("\nTODO: handle partial refunds in `%s` (not started).", g.pick(genIDs))
	}
	g.msgs = append(g.msgs, transcript.Message{Role: transcript.RoleAssistant, Origin: transcript.OriginAgent, Parts: []transcript.Part{text(final)}})
}

func fileBody(rng *rand.Rand, name string) string {
	var b strings.Builder
	n := 30 + rng.IntN(90)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%6d\t", i)
		switch i % 7 {
		case 0:
			fmt.Fprintf(&b, "func (s *Service) handle%d(ctx context.Context, req *Request) error {\n", i)
		case 1:
			fmt.Fprintf(&b, "\tif err := s.store.Get(ctx, req.SKU); err != nil { return fmt.Errorf(\"get %%s: %%w\", req.SKU, err) }\n")
		case 2:
			fmt.Fprintf(&b, "\t// %s keeps holds for reservation_ttl seconds\n", name)
		default:
			fmt.Fprintf(&b, "\tqty%d := req.Quantity * %d // adjust for pack size %d\n", i, rng.IntN(50), rng.IntN(1000))
		}
	}
	return b.String()
}

func grepOut(rng *rand.Rand, id string) string {
	var b strings.Builder
	for i := 0; i < 5+rng.IntN(20); i++ {
		fmt.Fprintf(&b, "internal/%s.go:%d:\tif err := %s(ctx, req.ID); err != nil {\n", genFiles[rng.IntN(len(genFiles))], rng.IntN(300), id)
	}
	return b.String()
}

func TestGenSessionIsDeterministic(t *testing.T) {
	a, b := genSession(7, 5), genSession(7, 5)
	if len(a) != len(b) || a[len(a)-1].Parts[0].Text != b[len(b)-1].Parts[0].Text {
		t.Fatal("equal seeds gave different sessions")
	}
}
