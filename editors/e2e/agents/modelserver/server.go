// Package modelserver is a scripted model endpoint for the real-agent
// suite: it speaks the Anthropic Messages API, the OpenAI Responses API,
// the Gemini API and OpenAI Chat Completions (streaming and not), on
// 127.0.0.1 only. Every request is logged and validated the way the real
// API validates it (roles, tool call/result pairing, Part shapes, reasoning
// signatures); a request the real service would reject gets that service's
// error status and body. Replies follow a Script: tool calls (read, shell,
// edit, write, mapped onto the tools the agent declares), then text. Usage
// is counted from the request with a real BPE, so the figures agents
// record are realistic.
package modelserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/compactd/compactd/compaction/tokens"
)

// API names, as Exchange.API holds them.
const (
	APIAnthropic = "anthropic-messages"
	APIResponses = "openai-responses"
	APIGemini    = "gemini"
	APIChat      = "openai-chat"
)

// Usage is what the server reported for one response, normalized: Prompt
// counts every input token (cached ones included), Output every output
// token (reasoning included).
type Usage struct {
	Prompt, Cached, CacheCreation, Output, Reasoning int
}

// Context is the size of the context the response leaves: what the model
// read plus what it wrote. It is what a gauge calibrated on this response
// must show.
func (u Usage) Context() int { return u.Prompt + u.Output }

// An Exchange is one request and what the server did with it.
type Exchange struct {
	Seq      int
	API      string
	Method   string
	Path     string
	Header   http.Header
	Body     []byte
	Received time.Time
	// Finished is when the last byte of the reply was written.
	Finished time.Time
	Status   int
	// Rejected is the validation error the request got (the real API's
	// message), "" when it was accepted.
	Rejected string
	// Conversation is the request's neutral view (nil if it did not parse).
	Conversation *Conversation
	// CountOnly marks a token-counting request.
	CountOnly bool
	// Task and Step are the script's reading of the request; Scripted is
	// true when Task is a task of the script and the request declared tools.
	Task     string
	Step     int
	Scripted bool
	// Summary marks a request to summarize the conversation (an agent's
	// own compaction), answered with a summary (Task is "").
	Summary bool
	Reply   Reply
	Usage   Usage
}

// Options configure a Server.
type Options struct {
	Script *Script
	// LogDir, when set, receives every request body as NNNN-<api>.json and
	// every reply as NNNN-<api>.reply.
	LogDir string
	// Latency delays each reply (the model "thinking"); 0 answers at once.
	Latency time.Duration
}

// A Server is a running scripted model endpoint.
type Server struct {
	opts    Options
	ln      net.Listener
	http    *http.Server
	counter *tokens.Counter

	mu        sync.Mutex
	exchanges []*Exchange
	prefixes  map[string]bool // cacheable prefixes seen (for cache read vs creation)
	ids       int
	changed   chan struct{} // closed and replaced on every finished exchange
}

// Start listens on 127.0.0.1 (a free port) and serves until Close.
func Start(opts Options) (*Server, error) {
	return StartAt("127.0.0.1:0", opts)
}

// StartAt listens on addr, which must be a loopback address.
func StartAt(addr string, opts Options) (*Server, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("model server address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("model server address %q: only a loopback IP (127.0.0.1) is allowed", addr)
	}
	if opts.Script == nil {
		opts.Script = &Script{}
	}
	if opts.LogDir != "" {
		if err := os.MkdirAll(opts.LogDir, 0o755); err != nil {
			return nil, fmt.Errorf("model server log dir: %w", err)
		}
	}
	counter, err := tokens.New(tokens.O200kBase, tokens.WithWorkers(1))
	if err != nil {
		return nil, fmt.Errorf("model server token counter: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("model server listen on %s: %w", addr, err)
	}
	s := &Server{opts: opts, ln: ln, counter: counter, prefixes: map[string]bool{}, changed: make(chan struct{})}
	s.http = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go s.http.Serve(ln)
	return s, nil
}

// URL is the server's base URL, e.g. http://127.0.0.1:41234 (no trailing slash).
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Port is the port the server listens on.
func (s *Server) Port() int { return s.ln.Addr().(*net.TCPAddr).Port }

// Close stops the server.
func (s *Server) Close() error { return s.http.Close() }

// Exchanges returns a copy of every exchange so far, in arrival order.
func (s *Server) Exchanges() []Exchange {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Exchange, len(s.exchanges))
	for i, e := range s.exchanges {
		out[i] = *e
	}
	return out
}

// Changed returns a channel closed when the next exchange finishes, so a
// caller can wait for one without polling.
func (s *Server) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

func (s *Server) nextID(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids++
	return fmt.Sprintf("%s%012d%s", prefix, s.ids, "e2e")
}

// ServeHTTP routes a request to its API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, "read body: "+err.Error(), http.StatusBadRequest)
		return
	}
	ex := &Exchange{Method: r.Method, Path: r.URL.RequestURI(), Header: r.Header.Clone(), Body: body, Received: time.Now()}
	s.mu.Lock()
	s.exchanges = append(s.exchanges, ex)
	ex.Seq = len(s.exchanges)
	s.mu.Unlock()
	rec := &recorder{ResponseWriter: w, status: http.StatusOK}
	s.route(rec, r, ex, body)
	s.mu.Lock()
	ex.Status = rec.status
	ex.Finished = time.Now()
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
	s.logExchange(ex, rec.buf.Bytes())
}

func (s *Server) route(w *recorder, r *http.Request, ex *Exchange, body []byte) {
	p := r.URL.Path
	switch {
	case r.Method == http.MethodPost && (p == "/v1/messages" || p == "/messages"):
		ex.API = APIAnthropic
		s.anthropic(w, ex, body, false)
	case r.Method == http.MethodPost && (p == "/v1/messages/count_tokens" || p == "/messages/count_tokens"):
		ex.API, ex.CountOnly = APIAnthropic, true
		s.anthropic(w, ex, body, true)
	case r.Method == http.MethodPost && (p == "/v1/responses" || p == "/responses"):
		ex.API = APIResponses
		s.responses(w, ex, body)
	case r.Method == http.MethodPost && (p == "/v1/chat/completions" || p == "/chat/completions"):
		ex.API = APIChat
		s.chat(w, ex, body)
	case r.Method == http.MethodPost && strings.Contains(p, "/models/") && strings.Contains(p, ":"):
		ex.API = APIGemini
		method := p[strings.LastIndex(p, ":")+1:]
		model := p[strings.Index(p, "/models/")+len("/models/") : strings.LastIndex(p, ":")]
		switch method {
		case "streamGenerateContent":
			s.gemini(w, ex, body, model, true, r.URL.Query().Get("alt") == "sse")
		case "generateContent":
			s.gemini(w, ex, body, model, false, false)
		case "countTokens":
			ex.CountOnly = true
			s.geminiCount(w, ex, body)
		default:
			writeJSON(w, http.StatusNotFound, geminiError(http.StatusNotFound, "Method "+method+" not found.", "NOT_FOUND"))
		}
	default:
		// Anything else (model lists, telemetry) is answered 404 in the
		// shape of the API the path belongs to, and stays in the log.
		writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{"message": "Not found: " + r.Method + " " + p, "type": "not_found_error"}})
	}
}

// finish records the script's decision and the usage on the exchange.
func (s *Server) finish(ex *Exchange, c *Conversation, p plan, u Usage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ex.Conversation = c
	ex.Task, ex.Step, ex.Scripted, ex.Summary, ex.Reply, ex.Usage = p.Task, p.Step, p.Known, p.Summary, p.Reply, u
}

func (s *Server) reject(w http.ResponseWriter, ex *Exchange, c *Conversation, status int, msg string, body any) {
	s.mu.Lock()
	ex.Rejected, ex.Conversation = msg, c
	s.mu.Unlock()
	writeJSON(w, status, body)
}

func (s *Server) wait() {
	if s.opts.Latency > 0 {
		time.Sleep(s.opts.Latency)
	}
}

func (s *Server) logExchange(ex *Exchange, reply []byte) {
	if s.opts.LogDir == "" {
		return
	}
	api := ex.API
	if api == "" {
		api = "unknown"
	}
	base := filepath.Join(s.opts.LogDir, fmt.Sprintf("%04d-%s", ex.Seq, api))
	head := fmt.Sprintf("%s %s -> %d %s\n", ex.Method, ex.Path, ex.Status, ex.Rejected)
	_ = os.WriteFile(base+".json", ex.Body, 0o644)
	_ = os.WriteFile(base+".reply", append([]byte(head), reply...), 0o644)
}

// usage counts a request's tokens: prompt is every string in the request
// (the cacheable prefix — system prompt and tools — counted as cached once
// the server has seen it), output the reply's text, reasoning and calls.
func (s *Server) usage(prefix []any, rest []any, r Reply) Usage {
	pre := 0
	for _, v := range prefix {
		pre += s.countValue(v)
	}
	n := pre
	for _, v := range rest {
		n += s.countValue(v)
	}
	key := fmt.Sprint(pre)
	if b, err := json.Marshal(prefix); err == nil {
		key = string(b)
	}
	s.mu.Lock()
	seen := s.prefixes[key]
	s.prefixes[key] = true
	s.mu.Unlock()
	u := Usage{Prompt: n}
	if seen {
		u.Cached = pre
	} else {
		u.CacheCreation = pre
	}
	u.Reasoning = s.counter.Text(r.Thinking)
	u.Output = u.Reasoning + s.counter.Text(r.Text) + 1
	for _, c := range r.Calls {
		u.Output += s.counter.Text(c.Name) + s.counter.Text(c.Input) + 3
		if c.Args != nil {
			b, _ := json.Marshal(c.Args)
			u.Output += s.counter.Text(string(b))
		}
	}
	return u
}

// skippedKeys hold opaque data no model reads as text: signatures,
// encrypted reasoning, media payloads, cache markers, and the ids that pair
// calls with results and name items (the APIs render a call and its result
// for the model, not the ids that link them).
var skippedKeys = map[string]bool{"signature": true, "encrypted_content": true, "thoughtSignature": true, "thought_signature": true, "data": true, "cache_control": true,
	"id": true, "call_id": true, "tool_use_id": true, "tool_call_id": true}

// countValue counts the tokens of every string in a decoded JSON value,
// plus a small framing cost per object, as chat formats have.
func (s *Server) countValue(v any) int {
	switch x := v.(type) {
	case string:
		return s.counter.Text(x)
	case []any:
		n := 0
		for _, e := range x {
			n += s.countValue(e)
		}
		return n
	case map[string]any:
		n := 1
		for k, e := range x {
			if skippedKeys[k] {
				continue
			}
			n += s.countValue(e)
		}
		return n
	case json.RawMessage:
		var d any
		if json.Unmarshal(x, &d) == nil {
			return s.countValue(d)
		}
	}
	return 0
}

// decoded turns raw JSON fields into values countValue walks.
func decoded(raws ...json.RawMessage) []any {
	out := make([]any, 0, len(raws))
	for _, r := range raws {
		if len(r) == 0 {
			continue
		}
		var d any
		if json.Unmarshal(r, &d) == nil {
			out = append(out, d)
		}
	}
	return out
}

type recorder struct {
	http.ResponseWriter
	status int
	buf    bytes.Buffer
}

func (r *recorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	r.buf.Write(b)
	return r.ResponseWriter.Write(b)
}

func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(v)
	w.Write(b)
}

// sse writes server-sent events, flushing after each.
type sse struct {
	w http.ResponseWriter
}

func startSSE(w http.ResponseWriter) sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return sse{w: w}
}

// event writes one event; name "" writes a data-only event.
func (s sse) event(name string, v any) {
	var b []byte
	if raw, ok := v.(string); ok {
		b = []byte(raw)
	} else {
		b, _ = json.Marshal(v)
	}
	if name != "" {
		fmt.Fprintf(s.w, "event: %s\n", name)
	}
	fmt.Fprintf(s.w, "data: %s\n\n", b)
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

// chunks splits s into a few pieces, as a stream delivers text.
func chunks(s string) []string {
	if s == "" {
		return nil
	}
	const size = 24
	var out []string
	r := []rune(s)
	for len(r) > size {
		out = append(out, string(r[:size]))
		r = r[size:]
	}
	return append(out, string(r))
}
