package lsp

import (
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/compaction/gauge"
	"github.com/compactd/compactd/daemon/index"
)

// diagnosticCode marks compactd's own diagnostics, so code actions can
// recognize them in their context.
const diagnosticCode = "context-window"

// publishDiagnostics sends the transcript's diagnostic when its level is
// warn or critical, and clears it when it drops, sending nothing when
// nothing changed.
func (s *Server) publishDiagnostics(u protocol.DocumentURI, snap *index.Snapshot) {
	diags := []protocol.Diagnostic{}
	if snap != nil && snap.Level != index.LevelOK {
		diags = append(diags, diagnosticFor(snap))
	}
	s.mu.Lock()
	if snap == nil {
		delete(s.ledgerDiags, u)
	}
	diags = append(diags, s.ledgerDiags[u]...)
	s.mu.Unlock()
	key := ""
	for _, d := range diags {
		key += fmt.Sprint(d.Severity, d.Range.Start.Line, d.Message)
	}
	s.mu.Lock()
	prev, had := s.diagSent[u]
	if had && prev == key || !had && key == "" {
		s.mu.Unlock()
		return
	}
	if key == "" {
		delete(s.diagSent, u)
	} else {
		s.diagSent[u] = key
	}
	s.mu.Unlock()
	s.notify(protocol.MethodTextDocumentPublishDiagnostics, &protocol.PublishDiagnosticsParams{URI: u, Diagnostics: diags})
}

func diagnosticFor(snap *index.Snapshot) protocol.Diagnostic {
	sev := protocol.DiagnosticSeverityWarning
	if snap.Level == index.LevelCritical {
		sev = protocol.DiagnosticSeverityError
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Context window %d %% full (%s tokens of %s, %s)", int(snap.Ratio*100+0.5),
		index.Short(snap.Tokens), index.Short(snap.Window), sourceWords(snap.Source))
	if m := snap.Mark(); m != nil {
		b.WriteString("; " + markWords(snap, m))
	}
	if n := snap.AutoSavings(); n > 0 {
		fmt.Fprintf(&b, ". Compacting would save about %s tokens (%d %% of the window).", index.Short(n), int(float64(n)*100/float64(snap.Window)+0.5))
	} else {
		b.WriteString(". Compact the conversation to free room.")
	}
	return protocol.Diagnostic{
		Range:    protocol.Range{End: protocol.Position{Line: 0, Character: 1}},
		Severity: sev, Code: diagnosticCode, Source: "compactd", Message: b.String(),
	}
}

func sourceWords(source string) string {
	if source == index.SourceUsage {
		return "reported usage plus estimate"
	}
	return "estimated"
}

// markWords says where the agent compacts by itself: "claude-code
// auto-compacts at 140k (env), 16k from now", "codex auto-compaction off
// (user settings)".
func markWords(snap *index.Snapshot, m *gauge.Mark) string {
	s := string(snap.Format) + " " + m.Text
	switch {
	case m.Disabled || m.At == 0:
	case m.Buffer > 0:
		s += ", " + index.Short(m.Buffer) + " from now"
	default:
		s += ": past it, the agent compacts before its next request"
	}
	return s
}
