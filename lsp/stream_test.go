package lsp

import (
	"bytes"
	"context"
	"io"
	"testing"
)

type bufRWC struct {
	in  io.Reader
	out bytes.Buffer
}

func (b *bufRWC) Read(p []byte) (int, error)  { return b.in.Read(p) }
func (b *bufRWC) Write(p []byte) (int, error) { return b.out.Write(p) }
func (*bufRWC) Close() error                  { return nil }

// FuzzParseLSPFrame feeds arbitrary bytes to the server's framing: every
// frame is either decoded or answered with an error; nothing panics and
// reading ends only at the end of input.
func FuzzParseLSPFrame(f *testing.F) {
	for _, seed := range []string{
		"Content-Length: 2\r\n\r\n{}",
		"Content-Length: 40\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}",
		"Content-Length: -1\r\n\r\n",
		"Content-Length: 5\r\n\r\n[1,2]Content-Length: 3\r\n\r\nnul",
		"\r\n\r\nContent-Length: 99999999999\r\n\r\n",
		"Content-Length: 14\r\n\r\n{\"a\":\"\\ud800\"}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		conn := &bufRWC{in: bytes.NewReader(data)}
		s := newStream(conn, 1<<20)
		for i := 0; i < 1000; i++ {
			if _, _, err := s.Read(context.Background()); err != nil {
				return
			}
		}
	})
}
