package handoff

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/compactd/compactd/compaction/transcript"
)

// Options say how a view becomes a session of another agent.
type Options struct {
	// From are the source agent's tools, To the target's.
	From, To Tools
	// FromLabel and ToLabel name the agents in the text a call without an
	// equivalent becomes ("Claude Code").
	FromLabel, ToLabel string
	// SessionID, Cwd, Model, Title and Created are the new session's.
	SessionID, Cwd, Model, Title string
	Created                      time.Time
	// Note, when set, opens the session: a user text saying where the
	// conversation comes from and how to recall what was left out.
	Note string
	// Images: the target takes images in user messages. Media gives the
	// images the source holds at a part's Ref, in order (a tool result
	// may hold several; nil: none can be read); an image that is not
	// carried becomes a text saying what it was.
	Images bool
	Media  func(ref transcript.Ref) []Image
}

// An Image is one image's type and bytes.
type Image struct {
	MIME string
	Data []byte
}

// Stats count what the conversion did.
type Stats struct {
	// Mapped tool calls became calls of the target's tools; AsText were
	// rendered as text (no equivalent, or no result to pair them with).
	Mapped, AsText int
	// Images carried as images; ImagesAsText described in words.
	Images, ImagesAsText int
	// Reasoning parts left out: a model's reasoning is bound to it (and
	// signed where the API checks it), so no other model takes it.
	Reasoning int
	// Instructions are system and developer messages left out: the target
	// agent sends its own.
	Instructions int
}

// Convert maps v to a neutral session for the target opts.To describes.
// Summaries stand where the view places them, as user text; a call whose
// result the view lacks becomes text saying so, never a call left
// unanswered.
func Convert(v *transcript.View, opts Options) (*Session, Stats) {
	c := &converter{opts: opts, results: map[string]transcript.Part{}}
	for _, m := range v.Messages {
		for _, p := range m.Parts {
			if p.Kind == transcript.PartToolResult && p.ToolCallID != "" {
				if _, seen := c.results[p.ToolCallID]; !seen {
					c.results[p.ToolCallID] = p
				}
			}
		}
	}
	if opts.Note != "" {
		c.emit(transcript.RoleUser, Part{Kind: transcript.PartText, Text: opts.Note})
	}
	for i := 0; i <= len(v.Messages); i++ {
		for _, s := range v.Summaries {
			if s.Before == i || i == len(v.Messages) && (s.Before < 0 || s.Before > len(v.Messages)) {
				c.flush()
				c.emit(transcript.RoleUser, Part{Kind: transcript.PartText, Text: s.Text})
			}
		}
		if i == len(v.Messages) {
			break
		}
		c.message(&v.Messages[i])
	}
	c.flush()
	out := c.out
	if len(out) == 0 || out[0].Role != transcript.RoleUser {
		out = append([]Message{{Role: transcript.RoleUser, Parts: []Part{{Kind: transcript.PartText, Text: "(The conversation continues from " + opts.FromLabel + ".)"}}}}, out...)
	}
	if len(out) == 0 || out[len(out)-1].Role != transcript.RoleAssistant {
		// The source stopped on a prompt it never answered: the target
		// would send the next prompt right after it, which APIs that want
		// roles to alternate refuse.
		out = append(out, Message{Role: transcript.RoleAssistant, Parts: []Part{{Kind: transcript.PartText, Text: "(This is where the conversation was handed over to " + opts.ToLabel + "; the last message was not answered there.)"}}})
	}
	return &Session{ID: opts.SessionID, Cwd: opts.Cwd, Model: opts.Model, Title: opts.Title, Created: opts.Created, Messages: out}, c.stats
}

type converter struct {
	opts    Options
	results map[string]transcript.Part
	out     []Message
	stats   Stats
	// cur is the assistant message being gathered, calls its mapped
	// calls (answered when it is flushed), answered whether their
	// results were seen since: the assistant's next words then start a
	// new message after them.
	cur      []Part
	calls    []Part
	srcIDs   []string
	answered bool
	// placed are the call ids whose result is written (with its call or
	// as text); a second copy of the result is skipped.
	placed map[string]bool
	seq    int
	// images counts the image parts met per Ref in the current message:
	// the k-th is the k-th image the source holds there.
	images map[transcript.Ref]int
}

func (c *converter) message(m *transcript.Message) {
	c.images = map[transcript.Ref]int{}
	switch m.Role {
	case transcript.RoleSystem, transcript.RoleDeveloper:
		c.stats.Instructions++
		return
	case transcript.RoleAssistant:
		if c.answered {
			c.flush()
		}
		for _, p := range m.Parts {
			c.assistantPart(p)
		}
		return
	}
	var rest []Part
	for _, p := range m.Parts {
		switch p.Kind {
		case transcript.PartToolResult:
			if c.placed[p.ToolCallID] || c.pending(p.ToolCallID) {
				c.answered = c.answered || c.pending(p.ToolCallID)
				continue
			}
			// A result whose call the view does not hold.
			rest = append(rest, Part{Kind: transcript.PartText, Text: resultText(p)})
			c.markPlaced(p.ToolCallID)
		case transcript.PartText, transcript.PartAttachment, transcript.PartDocument:
			if strings.TrimSpace(p.Text) != "" {
				rest = append(rest, Part{Kind: transcript.PartText, Text: p.Text})
			}
		case transcript.PartImage:
			rest = append(rest, c.image(p))
		case transcript.PartReasoning, transcript.PartOpaque:
			c.stats.Reasoning++
		}
	}
	if len(rest) == 0 {
		return
	}
	c.flush()
	c.emit(transcript.RoleUser, rest...)
}

func (c *converter) pending(id string) bool {
	for _, src := range c.srcIDs {
		if src == id {
			return true
		}
	}
	return false
}

func (c *converter) markPlaced(id string) {
	if c.placed == nil {
		c.placed = map[string]bool{}
	}
	c.placed[id] = true
}

func (c *converter) assistantPart(p transcript.Part) {
	switch p.Kind {
	case transcript.PartText:
		if strings.TrimSpace(p.Text) != "" {
			c.cur = append(c.cur, Part{Kind: transcript.PartText, Text: p.Text})
		}
	case transcript.PartReasoning, transcript.PartOpaque:
		c.stats.Reasoning++
	case transcript.PartToolCall:
		c.call(p)
	case transcript.PartToolResult:
		// A result inside the assistant message (some formats log
		// server-side tools so): its call is answered here.
		if !c.placed[p.ToolCallID] && !c.pending(p.ToolCallID) {
			c.cur = append(c.cur, Part{Kind: transcript.PartText, Text: resultText(p)})
			c.markPlaced(p.ToolCallID)
		}
	case transcript.PartImage:
		img := c.image(p)
		if img.Kind == transcript.PartImage {
			// Assistant messages take no images: describe it.
			c.stats.Images--
			c.stats.ImagesAsText++
			img = Part{Kind: transcript.PartText, Text: imageText(p, "")}
		}
		c.cur = append(c.cur, img)
	default:
		if strings.TrimSpace(p.Text) != "" {
			c.cur = append(c.cur, Part{Kind: transcript.PartText, Text: p.Text})
		}
	}
}

// call maps one tool call, or renders it (and its result) as text.
func (c *converter) call(p transcript.Part) {
	if c.placed[p.ToolCallID] || c.pending(p.ToolCallID) {
		return // a second copy of a call already written
	}
	res, answered := c.results[p.ToolCallID]
	if answered {
		if src, ok := c.opts.From.find(p.ToolName); ok {
			if neutral, ok := src.decode(p.Args); ok {
				if enc, ok := c.opts.To.encode(neutral, c.opts.Cwd); ok {
					c.seq++
					id := callID(p.ToolCallID, c.seq)
					part := Part{Kind: transcript.PartToolCall, CallID: id, Tool: enc.name, Args: enc.args, Freeform: enc.freeform}
					if enc.freeform {
						part.Text, part.Args = enc.args, ""
					}
					c.cur = append(c.cur, part)
					c.calls = append(c.calls, Part{Kind: transcript.PartToolResult, CallID: id, Tool: enc.name, Text: res.Text, IsError: res.IsError})
					c.srcIDs = append(c.srcIDs, p.ToolCallID)
					c.stats.Mapped++
					return
				}
			}
		}
	}
	c.stats.AsText++
	text := callText(p, c.opts.FromLabel)
	if answered {
		text += "\n" + resultText(res)
	} else {
		text += "\n(no result was recorded)"
	}
	c.cur = append(c.cur, Part{Kind: transcript.PartText, Text: text})
	c.markPlaced(p.ToolCallID)
}

// flush writes the assistant message gathered and its calls' results.
func (c *converter) flush() {
	if len(c.cur) > 0 {
		c.emit(transcript.RoleAssistant, c.cur...)
	}
	if len(c.calls) > 0 {
		for _, id := range c.srcIDs {
			c.markPlaced(id)
		}
		c.emit(transcript.RoleUser, c.calls...)
	}
	c.cur, c.calls, c.srcIDs, c.answered = nil, nil, nil, false
}

// emit appends parts as a message of role, joined to the last message
// when it has the same role (results stay first: they only ever open a
// message).
func (c *converter) emit(role transcript.Role, parts ...Part) {
	if len(parts) == 0 {
		return
	}
	if n := len(c.out); n > 0 && c.out[n-1].Role == role {
		c.out[n-1].Parts = append(c.out[n-1].Parts, parts...)
		return
	}
	c.out = append(c.out, Message{Role: role, Parts: append([]Part(nil), parts...)})
}

func (c *converter) image(p transcript.Part) Part {
	k := c.images[p.Ref]
	c.images[p.Ref]++
	if c.opts.Images && c.opts.Media != nil {
		if imgs := c.opts.Media(p.Ref); k < len(imgs) && imgs[k].MIME != "" && len(imgs[k].Data) > 0 {
			c.stats.Images++
			return Part{Kind: transcript.PartImage, MIME: imgs[k].MIME, Data: imgs[k].Data}
		}
	}
	c.stats.ImagesAsText++
	why := "the target takes no images"
	if c.opts.Images {
		why = "its bytes could not be read from the source"
	}
	return Part{Kind: transcript.PartText, Text: imageText(p, why)}
}

func imageText(p transcript.Part, why string) string {
	desc := "[image"
	if p.MIME != "" {
		desc += " " + p.MIME
	}
	if p.Width > 0 && p.Height > 0 {
		desc += fmt.Sprintf(", %d×%d", p.Width, p.Height)
	}
	if p.Size > 0 {
		desc += fmt.Sprintf(", %d bytes", p.Size)
	}
	if why != "" {
		desc += "; not carried over: " + why
	}
	return desc + "]"
}

// callText renders a call the target has no equivalent for.
func callText(p transcript.Part, agent string) string {
	args := p.Args
	var v any
	if json.Unmarshal([]byte(args), &v) == nil {
		if b, err := json.MarshalIndent(v, "", "  "); err == nil {
			args = string(b)
		}
	}
	return fmt.Sprintf("[tool call in %s: %s]\n%s", agent, p.ToolName, args)
}

func resultText(p transcript.Part) string {
	head := "[tool result"
	if p.ToolName != "" {
		head += " of " + p.ToolName
	}
	if p.IsError {
		head += ", an error"
	}
	return head + "]\n" + p.Text
}

// callID keeps the source's call id where every API takes it (letters,
// digits, '_' and '-', at most 64), else makes one.
func callID(src string, seq int) string {
	ok := src != "" && len(src) <= 64
	for _, r := range src {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			ok = false
			break
		}
	}
	if ok {
		return src
	}
	return fmt.Sprintf("call_handoff_%d", seq)
}
