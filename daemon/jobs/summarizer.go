package jobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"

	"github.com/compactd/compactd/compaction/summarize"
	"github.com/compactd/compactd/compaction/transcript"
	"github.com/compactd/compactd/daemon/config"
	"github.com/compactd/compactd/daemon/llm"
	"github.com/compactd/compactd/daemon/sourcefile"
)

// maxNotesBytes bounds the notes file read as a summary: notes are a page
// or two; a huge file there is a mistake, not a summary.
const maxNotesBytes = 1 << 20

// LLMConfig maps the [summarize] section to the model client's settings.
func LLMConfig(s config.Summarize) llm.Config {
	provider := s.Provider
	if provider == "extractive" || provider == "notes" {
		provider = ""
	}
	return llm.Config{
		Provider: provider, BaseURL: s.BaseURL, Model: s.Model, APIKeyEnv: s.APIKeyEnv,
		MaxTokens: s.MaxTokens, Timeout: s.Timeout.Duration, Instructions: s.Instructions,
	}
}

// summarizerFor builds the summarizer req's summarize settings ask for:
// the caller's own when it set one; extractive by default; the notes file
// for provider "notes"; a model (through summarize.Additive on the store's
// archive, so each span is summarized once across cycles) when one is
// configured. It returns the notes to add to the report. preview keeps
// archive changes in memory (dry runs change nothing).
func (r *Runner) summarizerFor(src *source, convKey string, req Request, preview bool) (summarize.Summarizer, []string, error) {
	if req.Options.Summarizer != nil {
		return req.Options.Summarizer, nil, nil
	}
	counter, err := r.tokenCounter(src.t)
	if err != nil {
		return nil, nil, fmt.Errorf("load tokenizer: %w", err)
	}
	cfg := req.Summarize
	switch cfg.Provider {
	case "notes":
		return r.notesSummarizer(src, req, counter)
	case "extractive":
		return &summarize.Extractive{Counter: counter, Now: r.Now}, nil, nil
	case "":
		if strings.TrimSpace(cfg.Model) == "" {
			return &summarize.Extractive{Counter: counter, Now: r.Now}, nil, nil
		}
	default:
		if strings.TrimSpace(cfg.Model) == "" {
			return nil, nil, fmt.Errorf("summarize.provider is %q but summarize.model is not set; name the model to use", cfg.Provider)
		}
	}
	lc := LLMConfig(cfg)
	model, err := llm.New(lc, r.LLMOptions...)
	if err != nil {
		return nil, nil, fmt.Errorf("summarizing model: %w", err)
	}
	maxTokens := lc.MaxTokens
	if maxTokens <= 0 {
		maxTokens = llm.DefaultMaxTokens
	}
	var archive summarize.Archive = r.Store.Summaries()
	if preview {
		archive = &previewArchive{base: archive}
	}
	return &archivedSummarizer{
		add: &summarize.Additive{
			Summarizer: &summarize.LLM{Model: model, Instructions: lc.Instructions, MaxTokens: maxTokens, Counter: counter, Now: r.Now},
			Archive:    archive, Budget: maxTokens, Counter: counter,
		},
		conversation: convKey,
	}, nil, nil
}

// notesSummarizer reads the notes file named in the config, relative to
// the workspace (else the transcript's folder). A missing or blank file
// means no summary at all, said in a note, never an empty one.
func (r *Runner) notesSummarizer(src *source, req Request, counter summarize.TokenCounter) (summarize.Summarizer, []string, error) {
	name := req.Summarize.NotesFile
	if name == "" {
		return nil, nil, errors.New("summarize.provider is \"notes\" but summarize.notes_file is not set")
	}
	if !filepath.IsAbs(name) {
		base := req.Workspace
		if base == "" {
			base = filepath.Dir(src.path)
		}
		name = filepath.Join(base, name)
	}
	skipped := fmt.Sprintf("notes file %s is empty or missing; summarizing skipped", name)
	f, err := sourcefile.OpenRegular(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, []string{skipped}, nil
	}
	if err != nil {
		return nil, []string{fmt.Sprintf("notes file %s cannot be read (%v); summarizing skipped", name, errors.Unwrap(err))}, nil
	}
	defer f.Close()
	content, err := io.ReadAll(io.LimitReader(f, maxNotesBytes+1))
	if err != nil {
		return nil, []string{fmt.Sprintf("notes file %s cannot be read (%v); summarizing skipped", name, err)}, nil
	}
	if len(content) > maxNotesBytes {
		return nil, []string{fmt.Sprintf("notes file %s is larger than %d bytes; summarizing skipped", name, maxNotesBytes)}, nil
	}
	if strings.TrimSpace(strings.TrimPrefix(string(content), "\xef\xbb\xbf")) == "" {
		return nil, []string{skipped}, nil
	}
	return &summarize.Notes{Content: content, Source: name, Counter: counter, Now: r.Now}, nil, nil
}

// archivedSummarizer adapts summarize.Additive to the pipeline's
// Summarizer: the pipeline asks for one summary of the archived messages;
// the archive says which of their turns were summarized in earlier cycles.
//
// Turns are numbered as in the conversation's original source. A fork
// begins with the summary messages an earlier cycle wrote; when they are
// the archive's summaries, they stand for turns [0, covered) and the fork's
// later turns continue from there. The summary returned is the archive's
// summaries joined, so the next cycle recognizes it again.
type archivedSummarizer struct {
	add          *summarize.Additive
	conversation string
}

func (a *archivedSummarizer) Name() string { return a.add.Summarizer.Name() }

func (a *archivedSummarizer) Summarize(ctx context.Context, req summarize.Request) (summarize.Summary, error) {
	msgs := req.Messages
	lead := 0
	var leadText []string
	for lead < len(msgs) && msgs[lead].Origin == transcript.OriginSummary {
		leadText = append(leadText, messageText(&msgs[lead]))
		lead++
	}
	base := max(req.FromTurn, 0)
	if lead > 0 {
		kept, err := a.add.Archive.Load(ctx, a.conversation)
		if err != nil {
			return summarize.Summary{}, fmt.Errorf("load summaries of %s: %w", a.conversation, err)
		}
		if covered, ok := coveredBy(kept, strings.Join(leadText, "\n\n")); ok {
			base, msgs = covered, msgs[lead:]
		} else if len(kept) > 0 {
			// The leading summaries are not ours (the agent's own
			// compaction, or a restored older version): the archive no
			// longer describes this history, so start it again.
			if err := a.add.Archive.Save(ctx, a.conversation, nil); err != nil {
				return summarize.Summary{}, fmt.Errorf("reset summaries of %s: %w", a.conversation, err)
			}
			base = 0
		}
	}
	rel := transcript.BuildTurns(msgs)
	turns := make([]transcript.Turn, base+len(rel))
	copy(turns[base:], rel)
	got, err := a.add.Summarize(ctx, a.conversation, msgs, turns, len(turns))
	if err != nil {
		return summarize.Summary{}, err
	}
	if len(got) == 0 {
		return summarize.Summary{}, summarize.ErrNothingToSummarize
	}
	out := summarize.Summary{FromTurn: req.FromTurn, ToTurn: req.ToTurn}
	texts := make([]string, len(got))
	for i, s := range got {
		texts[i] = s.Text
		out.Tokens += s.Tokens
		out.Redacted += s.Redacted
		out.Level = max(out.Level, s.Level)
		out.Model = s.Model
		if s.Created.After(out.Created) {
			out.Created = s.Created
		}
	}
	out.Text = strings.Join(texts, "\n\n")
	return out, nil
}

// coveredBy reports whether the leading summary text is the archive's
// summaries, and which turns they cover.
func coveredBy(kept []summarize.Summary, lead string) (int, bool) {
	if len(kept) == 0 {
		return 0, false
	}
	covered := 0
	for _, s := range kept {
		if s.FromTurn != covered || !strings.Contains(lead, strings.TrimSpace(s.Text)) {
			return 0, false
		}
		covered = s.ToTurn
	}
	return covered, true
}

func messageText(m *transcript.Message) string {
	var parts []string
	for _, p := range m.Parts {
		if p.Text != "" {
			parts = append(parts, p.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// previewArchive reads through to the store but keeps saves in memory, so
// a dry run shows what the archive would hold and changes nothing.
type previewArchive struct {
	base  summarize.Archive
	mu    sync.Mutex
	saved map[string][]summarize.Summary
}

func (p *previewArchive) Load(ctx context.Context, conversation string) ([]summarize.Summary, error) {
	p.mu.Lock()
	s, ok := p.saved[conversation]
	p.mu.Unlock()
	if ok {
		return append([]summarize.Summary(nil), s...), nil
	}
	return p.base.Load(ctx, conversation)
}

func (p *previewArchive) Save(_ context.Context, conversation string, summaries []summarize.Summary) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.saved == nil {
		p.saved = map[string][]summarize.Summary{}
	}
	p.saved[conversation] = append([]summarize.Summary(nil), summaries...)
	return nil
}
