package lsp

import (
	"io"
	"os"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/compactd/compactd/compaction/recall"
	"github.com/compactd/compactd/daemon/index"
)

// cmdRecall opens what a placeholder's or summary's recall handle names
// (argument: {uri, handle}).
const cmdRecall = "compactd.recall"

// maxRecallLine bounds what a code action reads of the line under the
// cursor: a placeholder line is short; a huge line is a tool output.
const maxRecallLine = 4 << 20

// maxRecallActions bounds the actions one line offers.
const maxRecallActions = 5

// recallActions are "Recall rXXXXXX…" for the handles the line at the
// range's start names: the one under the cursor when there is one, else
// each (a summary names one; a line of placeholders several).
func recallActions(snap *index.Snapshot, uri protocol.DocumentURI, pos protocol.Position) []protocol.CodeAction {
	line := readLine(snap, int(pos.Line))
	if line == "" {
		return nil
	}
	handles := recall.Find(line)
	if at := recall.FindAt(line, byteOffset(line, int(pos.Character))); at != "" {
		handles = []string{at}
	}
	var out []protocol.CodeAction
	for i, h := range handles {
		if i == maxRecallActions {
			break
		}
		title := "Recall " + h + "…"
		out = append(out, protocol.CodeAction{
			Title: title, Kind: protocol.Source,
			Command: &protocol.Command{Title: title, Command: cmdRecall, Arguments: []any{map[string]any{"uri": string(uri), "handle": h}}},
		})
	}
	return out
}

// readLine reads one line of the snapshot's file, "" when it cannot.
func readLine(snap *index.Snapshot, n int) string {
	start, end, ok := snap.LineSpan(n)
	if !ok {
		return ""
	}
	f, err := os.Open(snap.Path)
	if err != nil {
		return ""
	}
	defer f.Close()
	size := int64(maxRecallLine)
	if end >= 0 && end-start < size {
		size = end - start
	}
	buf := make([]byte, size)
	k, err := f.ReadAt(buf, start)
	if err != nil && err != io.EOF {
		return ""
	}
	return string(buf[:k])
}

// byteOffset converts an LSP character (UTF-16 code units) into a byte
// offset in line.
func byteOffset(line string, char int) int {
	units := 0
	for i, r := range line {
		if units >= char {
			return i
		}
		if r == utf8.RuneError {
			units++
			continue
		}
		units += len(utf16.Encode([]rune{r}))
	}
	return len(line)
}

// recallCommand runs cmdRecall.
