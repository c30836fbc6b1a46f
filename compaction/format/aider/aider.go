package aider

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/transcript"
)

func init() { format.Register(Codec{}) }

// FileName is where Aider keeps its chat log, in the repository root.
const FileName = ".aider.chat.history.md"

// headerPrefix opens every Aider session in the log.
const headerPrefix = "# aider chat started at "

// Codec reads and writes .aider.chat.history.md.
type Codec struct{}

var (
	_ format.Codec    = Codec{}
	_ format.Appender = Codec{}
)

// Format implements format.Codec.
func (Codec) Format() transcript.Format { return transcript.FormatAider }

// class is what split_chat_history_markdown makes of a line.
type class uint8

const (
	classOther  class = iota // assistant text (blank lines too)
	classHeader              // "# ": skipped
	classUser                // "#### "
	classTool                // "> "
)

var classNames = [...]string{"assistant", "header", "user", "tool"}

// state is Transcript.State: each record's class and decoded content
// (its lines with the class prefix removed, concatenated).
type state struct {
	classes  []class
	contents []string
}

// Parse implements format.Codec. Any text is an Aider log to the
// splitter; a last line without a newline is a record.
func (c Codec) Parse(src []byte) (*transcript.Transcript, error) {
	if bytes.IndexByte(src, 0) >= 0 {
		return nil, fmt.Errorf("not an Aider chat log: the file holds NUL bytes")
	}
	return c.extend(nil, src), nil
}

// Append implements format.Appender: complete lines only, re-reading the
// last record, which the new lines may extend.
func (c Codec) Append(prev *transcript.Transcript, tail []byte) (*transcript.Transcript, error) {
	if prev != nil && len(prev.Records) > 0 {
		if _, ok := prev.State.(*state); !ok {
			return nil, fmt.Errorf("append to an Aider transcript that was not parsed by this codec")
		}
	}
	nl := bytes.LastIndexByte(tail, '\n')
	if nl < 0 {
		if prev == nil {
			return c.extend(nil, nil), nil
		}
		cp := *prev
		return &cp, nil
	}
	return c.extend(prev, tail[:nl+1]), nil
}

// extend re-reads from the start of prev's last record with data appended.
func (c Codec) extend(prev *transcript.Transcript, data []byte) *transcript.Transcript {
	t := &transcript.Transcript{Format: transcript.FormatAider}
	st := &state{}
	var base int64
	var redo []byte
	if prev != nil && len(prev.Records) > 0 {
		ps := prev.State.(*state)
		n := len(prev.Records) - 1
		last := prev.Records[n]
		t.Records = prev.Records[:n:n]
		st.classes, st.contents = ps.classes[:n:n], ps.contents[:n:n]
		base = last.Start
		redo = append(append([]byte(nil), last.Raw...), data...)
	} else {
		if prev != nil {
			base = prev.Size
		}
		redo = bytes.Clone(data)
	}
	for off := 0; off < len(redo); {
		start := off
		cls, content, end := readLine(redo, off)
		var b strings.Builder
		b.WriteString(content)
		off = end
		for off < len(redo) {
			c2, content2, end2 := readLine(redo, off)
			if c2 != cls {
				break
			}
			b.WriteString(content2)
			off = end2
		}
		t.Records = append(t.Records, transcript.Record{Start: base + int64(start), End: base + int64(off), Raw: redo[start:off:off], Type: classNames[cls]})
		st.classes = append(st.classes, cls)
		st.contents = append(st.contents, b.String())
	}
	t.Size = base + int64(len(redo))
	t.State = st
	t.Messages, t.Meta = split(t, st)
	t.Turns = transcript.BuildTurns(t.Messages)
	return t
}

// readLine reads the line starting at off: its class, its content as the
// splitter sees it (decoded, class prefix removed, terminator kept) and
// where the next line starts. Line ends are Python's str.splitlines ones.
func readLine(src []byte, off int) (class, string, int) {
	var b strings.Builder
	i := off
	for i < len(src) {
		r, size := utf8.DecodeRune(src[i:])
		i += size
		if r == utf8.RuneError && size <= 1 {
			continue // errors="ignore"
		}
		if r == '\r' {
			// Aider reads the log as text (Python's universal newlines,
			// on every OS): "\r\n" — what Aider writes on Windows — and a
			// lone "\r" are one "\n", even with ignored bytes between.
			b.WriteByte('\n')
			j := i
			for j < len(src) {
				r2, s2 := utf8.DecodeRune(src[j:])
				if r2 == utf8.RuneError && s2 <= 1 {
					j++
					continue
				}
				if r2 == '\n' {
					i = j + 1
				}
				break
			}
			break
		}
		b.WriteRune(r)
		if isLineEnd(r) {
			break
		}
	}
	line := b.String()
	switch {
	case strings.HasPrefix(line, "# "):
		return classHeader, line, i
	case strings.HasPrefix(line, "> "):
		return classTool, line[2:], i
	case strings.HasPrefix(line, "#### "):
		return classUser, line[5:], i
	}
	return classOther, line, i
}

// isLineEnd reports the characters Python's str.splitlines ends lines at.
func isLineEnd(r rune) bool {
	switch r {
	case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}

// pyStrip is Python's str.strip(): it also strips \x1c-\x1f.
func pyStrip(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f })
}

// split builds the messages the way split_chat_history_markdown does.
func split(t *transcript.Transcript, st *state) ([]transcript.Message, transcript.Meta) {
	var msgs []transcript.Message
	var meta transcript.Meta
	type buffer struct {
		text strings.Builder
		recs []int
	}
	var user, asst, tool buffer
	flush := func(b *buffer, role transcript.Role) {
		text := pyStrip(b.text.String())
		if text != "" && role != transcript.RoleTool {
			origin := transcript.OriginHuman
			if role == transcript.RoleAssistant {
				origin = transcript.OriginAgent
			}
			msgs = append(msgs, transcript.Message{Role: role, Origin: origin, Records: b.recs,
				Parts: []transcript.Part{{Kind: transcript.PartText, Text: text, Ref: transcript.Ref{Record: b.recs[0], Block: -1}}}})
			for _, r := range b.recs {
				t.Records[r].Kind = transcript.RecordMessage
			}
		}
		b.text.Reset()
		b.recs = nil
	}
	for i, cls := range st.classes {
		t.Records[i].Kind = transcript.RecordMeta
		switch cls {
		case classHeader:
			// The start time of the latest session names it.
			for _, l := range strings.Split(st.contents[i], "\n") {
				if rest, ok := strings.CutPrefix(l, headerPrefix); ok {
					meta.SessionID = strings.TrimSpace(rest)
				}
			}
		case classTool:
			flush(&asst, transcript.RoleAssistant)
			flush(&user, transcript.RoleUser)
			tool.text.WriteString(st.contents[i])
			tool.recs = append(tool.recs, i)
		case classUser:
			flush(&asst, transcript.RoleAssistant)
			flush(&tool, transcript.RoleTool)
			user.text.WriteString(st.contents[i])
			user.recs = append(user.recs, i)
		default:
			flush(&user, transcript.RoleUser)
			flush(&tool, transcript.RoleTool)
			asst.text.WriteString(st.contents[i])
			asst.recs = append(asst.recs, i)
		}
	}
	flush(&asst, transcript.RoleAssistant)
	flush(&user, transcript.RoleUser)
	for i := range st.classes {
		if st.classes[i] == classTool {
			if m := modelLine(st.contents[i]); m != "" {
				meta.Model = m
			}
		}
	}
	return msgs, meta
}

// modelLine finds the model in Aider's startup banner: "> Model: gpt-4o
// with diff edit format", or, when a weak model differs from the main one
// (the usual case since v0.83), "> Main model: … with … edit format". The
// "Weak model:" and "Editor model:" lines name other models.
func modelLine(s string) string {
	model := ""
	for _, l := range strings.Split(s, "\n") {
		rest, ok := strings.CutPrefix(l, "Model: ")
		if !ok {
			rest, ok = strings.CutPrefix(l, "Main model: ")
		}
		if ok {
			if f := strings.Fields(rest); len(f) > 0 {
				model = f[0]
			}
		}
	}
	return model
}

// Write implements format.Codec: the records concatenated.
func (Codec) Write(t *transcript.Transcript) ([]byte, error) {
	var b bytes.Buffer
	for i := range t.Records {
		b.Write(t.Records[i].Raw)
	}
	return b.Bytes(), nil
}

// Detect implements format.Codec: Aider's session header, or failing
// that "#### " prompts in a file named like Aider's log.
func (Codec) Detect(name string, head []byte) int {
	s := string(head)
	if strings.HasPrefix(strings.TrimLeft(s, "\r\n"), headerPrefix) {
		return 95
	}
	if strings.Contains(s, "\n"+headerPrefix) {
		return 90
	}
	if strings.HasSuffix(filepath.Base(name), FileName) && strings.Contains(s, "#### ") {
		return 60
	}
	return 0
}

// sessionStamp formats a fork's header time the way Aider does.
func sessionStamp(ts string) string {
	t := time.Now()
	if ts != "" {
		if p, err := time.Parse(time.RFC3339Nano, ts); err == nil {
			t = p
		}
	}
	return t.Format("2006-01-02 15:04:05")
}
