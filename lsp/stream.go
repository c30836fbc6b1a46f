package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// DefaultMaxMessageBytes bounds one message's body unless Options says
// otherwise. The largest thing a client sends is a didOpen of a big file;
// 64 MiB leaves room for that and refuses what can only be a mistake or an
// attack.
const DefaultMaxMessageBytes = 64 << 20

// headerBufferBytes is the reader's buffer, and so the longest header line
// kept: header lines are tens of bytes; a longer "line" is a body sent
// without a header.
const headerBufferBytes = 64 << 10

// stream is jsonrpc2's header-framed stream with differences that matter
// to a server facing a misbehaving client:
//   - a body that is not valid JSON-RPC is answered with a ParseError (or
//     InvalidRequest) response and skipped, instead of failing the
//     connection;
//   - a bad, negative or missing Content-Length is answered and the stream
//     resynchronizes at the next Content-Length header, even one glued to
//     the end of a body sent without a header;
//   - a body over maxBody is answered at once and skipped unread, in
//     constant memory, so a header declaring a gigabyte costs nothing;
//   - header lines are bounded by the read buffer.
type stream struct {
	r       *bufio.Reader
	w       io.Writer
	c       io.Closer
	wmu     sync.Mutex
	maxBody int64
	// resync is set after a frame whose length was unknown: its body
	// follows and is dropped up to the next header.
	resync bool
}

func newStream(rwc io.ReadWriteCloser, maxBody int64) *stream {
	if maxBody <= 0 {
		maxBody = DefaultMaxMessageBytes
	}
	return &stream{r: bufio.NewReaderSize(rwc, headerBufferBytes), w: rwc, c: rwc, maxBody: maxBody}
}

func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	var total int64
	for {
		body, n, err := s.readBody()
		total += n
		if err != nil {
			return nil, total, err
		}
		if body == nil {
			continue // a framing error, already answered
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err != nil {
			s.writeParseError(ctx, body, err)
			continue
		}
		return msg, total, nil
	}
}

const contentLength = "content-length:"

// readBody returns one message body; nil with no error when the frame was
// bad and answered.
func (s *stream) readBody() ([]byte, int64, error) {
	var (
		length    int64 = -1
		total     int64
		sawHeader bool   // a header line of this frame was read
		invalid   string // why this frame's header is unusable
	)
	for {
		line, n, tooLong, err := s.readLine()
		total += n
		if err != nil {
			return nil, total, fmt.Errorf("read header: %w", err)
		}
		// A JSON body where a header belongs (sent without a header, or
		// the body of a frame whose length was unusable), or a line
		// too long to be a header: answer once, then drop lines up to
		// the next Content-Length header, even one glued to the end
		// of the body.
		i := indexFold(line, contentLength)
		if tooLong || startsBody(line) || i > 0 {
			if !s.resync {
				s.writeError(jsonrpc2.ParseError, "message without a valid Content-Length header; skipped")
			}
			s.resync = true
			length, sawHeader, invalid = -1, false, ""
			if i < 0 {
				continue
			}
			line = line[i:]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			switch {
			case invalid != "" && length >= 0:
				// The length is known: skip exactly the body.
				s.writeError(jsonrpc2.ParseError, invalid)
				n, err := io.CopyN(io.Discard, s.r, length)
				total += n
				if err != nil {
					return nil, total, fmt.Errorf("skip the body of a bad message: %w", err)
				}
				return nil, total, nil
			case invalid != "":
				s.writeError(jsonrpc2.ParseError, invalid)
				s.resync = true
				return nil, total, nil
			case length >= 0:
			case sawHeader:
				s.writeError(jsonrpc2.ParseError, "message header has no Content-Length")
				s.resync = true
				return nil, total, nil
			default:
				continue // tolerate blank lines between messages
			}
			break
		}
		sawHeader = true
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			invalid = fmt.Sprintf("malformed header line %.80q", line)
			continue
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || n < 0 {
				invalid = fmt.Sprintf("invalid Content-Length %.40q", strings.TrimSpace(value))
				continue
			}
			length = n
		}
	}
	s.resync = false
	if length > s.maxBody {
		// Answer before skipping: the client learns at once, and the
		// stream stays in step if it really sends that much.
		s.writeError(jsonrpc2.InvalidRequest, fmt.Sprintf("message of %d bytes is over the %d-byte limit; skipped", length, s.maxBody))
		n, err := io.CopyN(io.Discard, s.r, length)
		total += n
		if err != nil {
			return nil, total, fmt.Errorf("skip oversized message: %w", err)
		}
		return nil, total, nil
	}
	// Grow with the data rather than trusting the header for one
	// allocation: a lying Content-Length costs what was actually sent.
	var body bytes.Buffer
	n, err := io.CopyN(&body, s.r, length)
	total += n
	if err != nil {
		return nil, total, fmt.Errorf("read body of %d bytes (got %d): %w", length, n, err)
	}
	return body.Bytes(), total, nil
}

// startsBody reports whether a line looks like a JSON body rather than a
// header.
func startsBody(line string) bool {
	t := strings.TrimLeft(line, " \t")
	return t != "" && (t[0] == '{' || t[0] == '[')
}

// readLine returns one line without its ending. A line longer than the
// read buffer is consumed through its end; only its last buffer-full is
// returned, with tooLong set.
func (s *stream) readLine() (line string, n int64, tooLong bool, err error) {
	for {
		chunk, err := s.r.ReadSlice('\n')
		n += int64(len(chunk))
		if errors.Is(err, bufio.ErrBufferFull) {
			tooLong = true
			continue
		}
		if err != nil {
			if n > 0 && errors.Is(err, io.EOF) {
				err = fmt.Errorf("connection closed in the middle of a header line: %w", io.ErrUnexpectedEOF)
			}
			return "", n, tooLong, err
		}
		return strings.TrimRight(string(chunk), "\r\n"), n, tooLong, nil
	}
}

// indexFold is strings.Index ignoring ASCII case, for header names.
func indexFold(s, substr string) int {
	if len(s) < len(substr) {
		return -1
	}
	// Fold ASCII letters only, byte for byte, so the index is one into s:
	// strings.ToLower turns each invalid UTF-8 byte into a 3-byte U+FFFD.
	lower := []byte(s)
	for i, c := range lower {
		if 'A' <= c && c <= 'Z' {
			lower[i] = c + 'a' - 'A'
		}
	}
	return bytes.Index(lower, []byte(substr))
}

func (s *stream) writeParseError(_ context.Context, body []byte, err error) {
	code := jsonrpc2.ParseError
	if json.Valid(body) {
		code = jsonrpc2.InvalidRequest
	}
	s.writeError(code, err.Error())
}

// writeError sends an error response with a null id: the request it
// answers could not be read, so its id is unknown.
func (s *stream) writeError(code jsonrpc2.Code, msg string) {
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": code, "message": msg},
	})
	_, _ = s.writeRaw(body)
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
