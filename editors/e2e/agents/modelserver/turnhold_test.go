package modelserver

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestTurnHoldAndEndOnSummary: a turn's Hold keeps its answer until it
// returns (the agent waits, running), and EndOnSummary answers a turn the
// agent carries on from the server's summary instead of starting its steps
// over from the prompt it kept.
func TestTurnHoldAndEndOnSummary(t *testing.T) {
	reached, release := make(chan struct{}), make(chan struct{})
	script := &Script{Turns: map[string]Turn{
		"hold": {Answer: "Held. (answer hold)", Hold: func() { close(reached); <-release }},
		"fill": {Steps: [][]Action{{{Kind: Read, Path: "/w/a.txt"}}}, Answer: "Filled. (answer fill)", EndOnSummary: true},
	}}
	srv, err := Start(Options{Script: script})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })

	answered := make(chan string, 1)
	go func() {
		resp, err := http.Post(srv.URL()+"/v1/messages", "application/json", strings.NewReader(`{"model":"claude-sonnet-4-5","max_tokens":100,`+anthropicTools+`,
			"messages":[{"role":"user","content":"Wait [task:hold]"}]}`))
		if err != nil {
			answered <- err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		answered <- string(b)
	}()
	select {
	case <-reached:
	case <-time.After(10 * time.Second):
		t.Fatal("the held turn's answer never ran its Hold")
	}
	select {
	case body := <-answered:
		t.Fatalf("the answer came before Hold returned: %s", body)
	default:
	}
	close(release)
	if body := <-answered; !strings.Contains(body, "(answer hold)") {
		t.Fatalf("after Hold returned, the reply is %s", body)
	}

	// The prompt and the server's summary, no tool result: the turn ends.
	status, body, _ := post(t, srv.URL()+"/v1/messages", `{"model":"claude-sonnet-4-5","max_tokens":100,`+anthropicTools+`,
		"messages":[{"role":"user","content":"Read it [task:fill]"},{"role":"assistant","content":"ok"},
		{"role":"user","content":"`+SummaryHeading+`: the user is improving a project."}]}`)
	if status != 200 || !strings.Contains(body, "(answer fill)") || strings.Contains(body, "tool_use") {
		t.Fatalf("a turn carried on from the summary got %d: %s", status, body)
	}
	// Without the summary, the same prompt starts the steps.
	_, body, _ = post(t, srv.URL()+"/v1/messages", `{"model":"claude-sonnet-4-5","max_tokens":100,`+anthropicTools+`,
		"messages":[{"role":"user","content":"Read it [task:fill]"}]}`)
	if !strings.Contains(body, "tool_use") {
		t.Fatalf("the turn's first request got no tool call: %s", body)
	}
}
