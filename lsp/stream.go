package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// maxMessage bounds one message's body; larger ones are refused unread.
const maxMessage = 256 << 20

// stream is jsonrpc2's header-framed stream with one difference that
// matters: a body that is not valid JSON-RPC is answered with a ParseError
// response and skipped, instead of failing the connection.
type stream struct {
	r      *bufio.Reader
	w      io.Writer
	c      io.Closer
	wmu    sync.Mutex
	onFail func(error)
}

func newStream(rwc io.ReadWriteCloser) *stream {
	return &stream{r: bufio.NewReaderSize(rwc, 64<<10), w: rwc, c: rwc}
}

func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		body, n, err := s.readBody()
		if err != nil {
			return nil, n, err
		}
		if body == nil {
			continue // header error already answered
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err != nil {
			s.writeParseError(ctx, body, err)
			continue
		}
		return msg, n, nil
	}
}

// readBody returns one message body; nil with no error when the header was
// bad and answered.
func (s *stream) readBody() ([]byte, int64, error) {
	var length int64 = -1
	var total int64
	for {
		line, err := s.r.ReadString('\n')
		total += int64(len(line))
		if err != nil {
			return nil, total, fmt.Errorf("read header: %w", err)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			if length < 0 {
				continue // tolerate blank lines between messages
			}
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || n < 0 {
				s.writeError(context.Background(), jsonrpc2.ParseError, "invalid Content-Length "+strconv.Quote(value))
				length = -1
				continue
			}
			length = n
		}
	}
	if length > maxMessage {
		if _, err := io.CopyN(io.Discard, s.r, length); err != nil {
			return nil, total, fmt.Errorf("skip oversized message: %w", err)
		}
		s.writeError(context.Background(), jsonrpc2.InvalidRequest, fmt.Sprintf("message of %d bytes is over the %d-byte limit", length, maxMessage))
		return nil, total + length, nil
	}
	// Grow with the data rather than trusting the header for one
	// allocation: a lying Content-Length costs what was actually sent.
	var body bytes.Buffer
	if _, err := io.CopyN(&body, s.r, length); err != nil {
		return nil, total, fmt.Errorf("read body: %w", err)
	}
	return body.Bytes(), total + length, nil
}

func (s *stream) writeParseError(ctx context.Context, body []byte, err error) {
	code := jsonrpc2.ParseError
	if json.Valid(body) {
		code = jsonrpc2.InvalidRequest
	}
	s.writeError(ctx, code, err.Error())
}

// writeError sends an error response with a null id: the request it
// answers could not be read, so its id is unknown.
func (s *stream) writeError(_ context.Context, code jsonrpc2.Code, msg string) {
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": code, "message": msg},
	})
	s.writeRaw(body)
}

func (s *stream) Write(_ context.Context, msg jsonrpc2.Message) (int64, error) {
	body, err := json.Marshal(msg)
	if err != nil {
		return 0, fmt.Errorf("marshal message: %w", err)
	}
	return s.writeRaw(body)
}

func (s *stream) writeRaw(body []byte) (int64, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	n, err := fmt.Fprintf(s.w, "Content-Length: %d\r\n\r\n", len(body))
	if err != nil {
		return int64(n), err
	}
	m, err := s.w.Write(body)
	return int64(n + m), err
}

func (s *stream) Close() error { return s.c.Close() }
