package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/compactd/compactd/compaction/summarize"
)

// maxReply bounds how much of a reply is read: a summary is a few KB, an
// error page a few more; anything bigger is a misconfigured endpoint.
const maxReply = 8 << 20

// client is what both providers share: configuration, key, transport.
type client struct {
	cfg  Config
	key  string
	http *http.Client
}

// An APIError is a provider's error reply.
type APIError struct {
	Provider string
	Status   int
	// Type is the provider's error type (invalid_request_error, …).
	Type    string
	Message string
}

func (e *APIError) Error() string {
	typ := ""
	if e.Type != "" {
		typ = " (" + e.Type + ")"
	}
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Status)
	}
	return fmt.Sprintf("%s API returned HTTP %d%s: %s", e.Provider, e.Status, typ, msg)
}

// ErrTimeout is wrapped by errors for requests that got no reply in time.
var ErrTimeout = errors.New("the model did not reply in time")

// post sends body as JSON to url and decodes a 2xx reply into out. Errors
// never contain the API key: provider messages are scrubbed of it and run
// through summarize.Redact.
func (c *client) post(ctx context.Context, provider, url string, headers map[string]string, body, out any, decodeErr func([]byte) (string, string)) error {
	payload, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("encode %s request: %w", provider, err)
	}
	reqCtx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(reqCtx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return fmt.Errorf("%s request to %s: %s", provider, c.scrub(url), c.scrub(err.Error()))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return fmt.Errorf("%s request to %s: %w", provider, c.scrub(url), ctx.Err())
		case errors.Is(reqCtx.Err(), context.DeadlineExceeded):
			return fmt.Errorf("%s request to %s: %w (no reply within %v)", provider, c.scrub(url), ErrTimeout, c.cfg.Timeout)
		}
		return fmt.Errorf("%s request to %s: %s", provider, c.scrub(url), c.scrub(unwrapURLError(err)))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxReply))
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%s request to %s: %w", provider, c.scrub(url), ctx.Err())
		}
		if errors.Is(reqCtx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("%s request to %s: %w (reply unfinished after %v)", provider, c.scrub(url), ErrTimeout, time.Since(start).Round(time.Millisecond))
		}
		return fmt.Errorf("read %s reply: %s", provider, c.scrub(err.Error()))
	}
	if resp.StatusCode/100 != 2 {
		typ, msg := decodeErr(data)
		if msg == "" {
			msg = strings.TrimSpace(summarize.Truncate(string(data), 300))
		}
		return &APIError{Provider: provider, Status: resp.StatusCode, Type: typ, Message: c.scrub(msg)}
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s reply is not the expected JSON (%v): %s", provider, err, c.scrub(summarize.Truncate(string(data), 200)))
	}
	return nil
}

// scrub removes the API key and anything secret-looking from s.
func (c *client) scrub(s string) string {
	if c.key != "" {
		s = strings.ReplaceAll(s, c.key, "[REDACTED:api-key]")
	}
	s, _ = summarize.Redact(s)
	return s
}

// unwrapURLError drops net/http's "Post \"url\":" prefix, which repeats
// the URL the caller already names.
func unwrapURLError(err error) string {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) && ue.Unwrap() != nil {
		return ue.Unwrap().Error()
	}
	return err.Error()
}

func blankReply(provider, model, stop string) error {
	if stop != "" {
		return fmt.Errorf("%s model %s (stop reason %q): %w", provider, model, stop, summarize.ErrBlank)
	}
	return fmt.Errorf("%s model %s: %w", provider, model, summarize.ErrBlank)
}
