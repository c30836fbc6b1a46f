package aider

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/transcript"
)

// Fork implements format.Codec: a new log, opened by a session header,
// that Aider's splitter reads back as the view's messages (summaries as
// user messages where they stand).
func (Codec) Fork(v *transcript.View, opts format.ForkOptions) ([]byte, error) {
	src := v.Source
	if src == nil {
		return nil, fmt.Errorf("fork: view has no source transcript")
	}
	w := &forkWriter{eol: lineEnd(src)}
	w.out.WriteString(headerPrefix + sessionStamp(opts.Timestamp) + w.eol)
	w.last = transcript.RoleTool // nothing gathered yet
	for i := 0; i <= len(v.Messages); i++ {
		for _, s := range v.Summaries {
			if s.Before == i {
				w.user(s.Text)
			}
		}
		if i == len(v.Messages) {
			break
		}
		m := &v.Messages[i]
		if raw, ok := untouched(src, m); ok {
			w.raw(m.Role, raw)
			continue
		}
		var texts []string
		for _, p := range m.Parts {
			texts = append(texts, p.Text)
		}
		text := strings.Join(texts, "\n\n")
		if pyStrip(text) == "" {
			continue
		}
		switch m.Role {
		case transcript.RoleUser:
			w.user(text)
		default:
			w.assistant(text)
		}
	}
	return w.out.Bytes(), nil
}

type forkWriter struct {
	out  bytes.Buffer
	last transcript.Role
	// eol ends the lines the fork writes: the source's, "\r\n" where
	// Aider wrote the log on Windows (as text, "\n" translated).
	eol string
}

// lineEnd is how the source's lines end: "\r\n" or "\n".
func lineEnd(src *transcript.Transcript) string {
	for _, r := range src.Records {
		if i := bytes.IndexByte(r.Raw, '\n'); i >= 0 {
			if i > 0 && r.Raw[i-1] == '\r' {
				return "\r\n"
			}
			return "\n"
		}
	}
	return "\n"
}

// separate keeps the next message from merging into the previous one:
// a blank line ends a user message, a "> " line an assistant one (tool
// messages are not sent to the model).
func (w *forkWriter) separate(role transcript.Role) {
	if b := w.out.Bytes(); len(b) > 0 && b[len(b)-1] != '\n' {
		w.out.WriteString(w.eol)
	}
	switch {
	case role == transcript.RoleUser && w.last == transcript.RoleUser:
		w.out.WriteString(w.eol)
	case role == transcript.RoleAssistant && w.last == transcript.RoleAssistant:
		w.out.WriteString("> " + w.eol)
	}
	w.last = role
}

func (w *forkWriter) raw(role transcript.Role, raw []byte) {
	w.separate(role)
	w.out.Write(raw)
}

func (w *forkWriter) user(text string) {
	w.separate(transcript.RoleUser)
	for _, l := range strings.Split(text, "\n") {
		w.out.WriteString("#### " + l + w.eol)
	}
}

func (w *forkWriter) assistant(text string) {
	w.separate(transcript.RoleAssistant)
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "# ") || strings.HasPrefix(l, "> ") || strings.HasPrefix(l, "#### ") {
			l = " " + l
		}
		w.out.WriteString(l + w.eol)
	}
}

// untouched returns a message's source bytes when the view kept it as it
// was: its records hold nothing but its own lines.
func untouched(src *transcript.Transcript, m *transcript.Message) ([]byte, bool) {
	if len(m.Parts) != 1 || m.Parts[0].Changed || len(m.Records) == 0 {
		return nil, false
	}
	var b bytes.Buffer
	for _, r := range m.Records {
		if r < 0 || r >= len(src.Records) {
			return nil, false
		}
		b.Write(src.Records[r].Raw)
	}
	return b.Bytes(), true
}
