// Command gen writes the breakdown fixtures shaped like two real Claude
// Code sessions (issue 14), tuning their text so the figures match the
// real ones exactly with our o200k count and the auto dry run:
//
//	go run ./compaction/gauge/testdata/gen outside > compaction/gauge/testdata/claude-2.1.92-outside.jsonl
//	go run ./compaction/gauge/testdata/gen small > compaction/gauge/testdata/claude-2.1.330-24k.jsonl
//
// outside: 194,791 / 200,000 reported, almost all of it outside the
// transcript (MCP servers listed by attachments), dry run 3,254 → 3,254.
// small: 24k, dry run 3,320 → 2,670 (a config file read twice).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/compactd/compactd/compaction/format"
	_ "github.com/compactd/compactd/compaction/format/all"
	"github.com/compactd/compactd/compaction/strategy"
	"github.com/compactd/compactd/compaction/tokens"
	"github.com/compactd/compactd/compaction/transcript"
)

var sentences = []string{
	"The handler validates the request before it takes the reservation lock.",
	"Retries back off exponentially and give up after five attempts.",
	"The migration adds an index on (sku, warehouse_id) so the lookup stays fast.",
	"Tests run against a real Postgres started by the Makefile.",
	"Nothing in internal/api changes, so clients keep working.",
	"The race shows up only when two checkouts hit the same SKU within a millisecond.",
	"Logging the reservation id makes the failure easy to find in production.",
	"The fix keeps the public API and touches only the repository layer.",
}

func prose(words int, seed int) string {
	var b strings.Builder
	for i := 0; b.Len() < words; i++ {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(sentences[(seed+i*3)%len(sentences)])
	}
	return b.String()
}

type line = map[string]any

var sid = "4b7e2c19-8d3a-4f6e-a1c2-5e9f0d7b3a21"

func base(typ, uuid, parent, ts, version string) line {
	l := line{"parentUuid": nil, "isSidechain": false, "userType": "external", "cwd": "/home/dev/src/inventory-service", "sessionId": sid, "version": version, "gitBranch": "main", "type": typ, "uuid": uuid, "timestamp": ts}
	if parent != "" {
		l["parentUuid"] = parent
	}
	return l
}

func userText(uuid, parent, ts, v, text string) line {
	l := base("user", uuid, parent, ts, v)
	l["message"] = line{"role": "user", "content": text}
	return l
}

func toolResult(uuid, parent, ts, v, id, content string) line {
	l := base("user", uuid, parent, ts, v)
	l["message"] = line{"role": "user", "content": []any{line{"tool_use_id": id, "type": "tool_result", "content": content}}}
	return l
}

func assistant(uuid, parent, ts, v, msgID string, content []any, usage line) line {
	l := base("assistant", uuid, parent, ts, v)
	l["requestId"] = "req_" + msgID
	l["message"] = line{"id": msgID, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929", "content": content, "stop_reason": "end_turn", "stop_sequence": nil, "usage": usage}
	return l
}

func usage(in, cw, cr, out int) line {
	return line{"input_tokens": in, "cache_creation_input_tokens": cw, "cache_read_input_tokens": cr, "output_tokens": out, "service_tier": "standard"}
}

func write(lines []line) []byte {
	var b strings.Builder
	for _, l := range lines {
		j, _ := json.Marshal(l)
		b.Write(j)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

func measure(data []byte) (inside, after int, counts []tokens.Count, t *transcript.Transcript) {
	c, err := format.Detect("s.jsonl", data)
	if err != nil {
		panic(err)
	}
	t, err = c.Parse(data)
	if err != nil {
		panic(err)
	}
	m, _ := tokens.NewRegistry().Lookup("claude-sonnet-4-5-20250929")
	counter, _ := tokens.NewForModel(m)
	counts, _ = counter.CountMessages(context.Background(), t.Messages)
	for _, x := range counts {
		inside += x.N
	}
	_, rep, err := strategy.Run(context.Background(), t, counter, strategy.Options{Strategies: []string{"auto"}, KeepLast: 1, Window: 200000})
	if err != nil {
		panic(err)
	}
	return inside, rep.TokensAfter, counts, t
}

func main() {
	switch os.Args[1] {
	case "outside":
		genOutside()
	case "small":
		genSmall()
	}
}

// A Claude Code 2.1.92-like session: two short turns, an MCP call, and a
// window almost entirely taken by what the agent sends beside the transcript.
func genOutside() {
	const v = "2.1.92"
	const target = 3254
	for pad := 0; pad < 400; pad += 1 {
		lines := []line{}
		att := base("attachment", "att-1", "", "2026-11-18T09:14:02.101Z", v)
		att["attachment"] = line{"type": "deferred_tools_delta", "addedNames": []string{"NotebookEdit", "WebFetch", "WebSearch", "mcp__github__get_issue", "mcp__github__list_pull_requests", "mcp__github__create_issue_comment", "mcp__github__search_code", "mcp__linear__search_issues", "mcp__linear__get_issue", "mcp__sentry__list_events"}, "removedNames": []string{}, "readdedNames": []string{}, "addedLines": []string{}, "pendingMcpServers": []string{}, "needsAuthMcpServers": []string{}}
		att2 := base("attachment", "att-2", "att-1", "2026-11-18T09:14:02.102Z", v)
		att2["attachment"] = line{"type": "mcp_instructions_delta", "addedNames": []string{"github", "sentry"}, "removedNames": []string{}, "addedBlocks": []string{}}
		lines = append(lines, att, att2)
		lines = append(lines, userText("u1", "att-2", "2026-11-18T09:14:05.000Z", v, "What does this service do, in two sentences?"))
		lines = append(lines, assistant("a1", "u1", "2026-11-18T09:14:09.000Z", v, "msg_01A", []any{line{"type": "text", "text": "It is the inventory service: it tracks stock per SKU and warehouse and reserves items during checkout. Reservations expire after fifteen minutes unless the order is paid."}}, usage(4, 2212, 0, 61)))
		lines = append(lines, userText("u2", "a1", "2026-11-18T09:15:40.000Z", v, "Look at issue 412 on GitHub and tell me what the fix should be."))
		lines = append(lines, assistant("a2", "u2", "2026-11-18T09:15:43.000Z", v, "msg_01B", []any{line{"type": "text", "text": "I'll read the issue first."}, line{"type": "tool_use", "id": "toolu_01GH", "name": "mcp__github__get_issue", "input": line{"owner": "acme", "repo": "inventory-service", "issue_number": 412}}}, usage(3, 180, 192114, 96)))
		issue := "{\"number\":412,\"title\":\"Double reservation under concurrent checkout\",\"state\":\"open\",\"body\":\"" + prose(7000, 1) + "\",\"labels\":[\"bug\",\"checkout\"],\"comments\":3}"
		lines = append(lines, toolResult("u3", "a2", "2026-11-18T09:15:44.000Z", v, "toolu_01GH", issue))
		answer := "The fix: take the reservation lock per SKU and warehouse before reading stock. " + prose(8200, 5) + strings.Repeat(" Verified.", pad)
		lines = append(lines, assistant("a3", "u3", "2026-11-18T09:16:20.000Z", v, "msg_01C", []any{line{"type": "text", "text": answer}}, usage(3, 1250, 192938, 600)))
		data := write(lines)
		inside, after, _, _ := measure(data)
		if inside == target {
			fmt.Fprintf(os.Stderr, "pad %d inside %d after %d\n", pad, inside, after)
			os.Stdout.Write(data)
			return
		}
	}
	panic("no pad")
}

// A Claude Code 2.1.330-like session at 24k: a read done twice (dedup
// saves it), a test run, four usage points that agree.
func genSmall() {
	const v = "2.1.330"
	for combo := 0; combo < 600; combo++ {
		readLen := 120 + combo/10
		nl = combo % 10
		data, _ := small(v, readLen, 0, nil)
		inside, after, _, _ := measure(data)
		if inside-after < 650 {
			continue
		}
		if inside-after > 650 {
			continue
		}
		for pad := 0; pad < 3000; pad++ {
			data, _ := small(v, readLen, pad, nil)
			inside, after, counts, _ := measure(data)

			if inside != 3320 || inside-after != 650 {
				continue
			}
			data, _ = small(v, readLen, pad, func(upto int) int {
				cum := 0
				for i := 0; i <= upto; i++ {
					cum += counts[i].N
				}
				return 20680 + cum*106/100
			})
			fmt.Fprintf(os.Stderr, "read %d pad %d inside %d after %d\n", readLen, pad, inside, after)
			os.Stdout.Write(data)
			return
		}
	}
	panic("none")
}

var nl int

func small(v string, readLen, pad int, reported func(msg int) int) ([]byte, bool) {
	u := func(msg, out int) line {
		if reported == nil {
			return usage(3, 100, 1000, out)
		}
		r := reported(msg)
		return usage(3, 400, r-403-out, out)
	}
	file := "package config\n\n// Load reads the service configuration.\n" + prose(900, 2) + strings.Repeat(" ttl", readLen) + strings.Repeat("\n}", nl)
	lines := []line{}
	lines = append(lines, userText("u1", "", "2026-11-21T14:02:00.000Z", v, "Why does the service ignore RESERVATION_TTL?"))
	lines = append(lines, assistant("a1", "u1", "2026-11-21T14:02:03.000Z", v, "msg_02A", []any{line{"type": "tool_use", "id": "toolu_R1", "name": "Read", "input": line{"file_path": "/home/dev/src/inventory-service/internal/config/config.go"}}}, u(1, 40)))
	lines = append(lines, toolResult("u2", "a1", "2026-11-21T14:02:04.000Z", v, "toolu_R1", file+strings.Repeat(" TODO", nl%2)))
	lines = append(lines, assistant("a2", "u2", "2026-11-21T14:02:09.000Z", v, "msg_02B", []any{line{"type": "text", "text": "Let me check the file again after the rebase."}, line{"type": "tool_use", "id": "toolu_R2", "name": "Read", "input": line{"file_path": "/home/dev/src/inventory-service/internal/config/config.go"}}}, u(3, 52)))
	lines = append(lines, toolResult("u3", "a2", "2026-11-21T14:02:10.000Z", v, "toolu_R2", file))
	lines = append(lines, assistant("a3", "u3", "2026-11-21T14:02:20.000Z", v, "msg_02C", []any{line{"type": "text", "text": "Load never reads RESERVATION_TTL: the field is filled from the file only. " + prose(1200+300*(pad/40), 3) + strings.Repeat(" Yes.", (pad%40)/2) + strings.Repeat(" ok", (pad%40)%2)}}, u(5, 220)))
	lines = append(lines, userText("u4", "a3", "2026-11-21T14:05:00.000Z", v, "Fix it and run the tests."))
	lines = append(lines, assistant("a4", "u4", "2026-11-21T14:05:04.000Z", v, "msg_02D", []any{line{"type": "tool_use", "id": "toolu_B1", "name": "Bash", "input": line{"command": "go test ./internal/config/...", "description": "Run the config tests"}}}, u(7, 45)))
	lines = append(lines, toolResult("u5", "a4", "2026-11-21T14:05:09.000Z", v, "toolu_B1", "ok  \tgithub.com/acme/inventory-service/internal/config\t0.412s"))
	lines = append(lines, assistant("a5", "u5", "2026-11-21T14:05:12.000Z", v, "msg_02E", []any{line{"type": "text", "text": "Fixed: Load now reads RESERVATION_TTL and the tests pass."}}, u(9, 18)))
	return write(lines), true
}
