package lsp

import (
	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/recall"
	"github.com/compactd/compactd/daemon"
	"github.com/compactd/compactd/daemon/config"
)

// EditorInfo is what the server owns and editors need: the files it
// reads (the codecs' file patterns), the syntax of the recall handles
// compaction writes, the agents a conversation continues in and the
// agents' watch switches. The server advertises it in initialize's
// capabilities.experimental.compactd, and `compactd editor-info` prints it
// for editors that need it before they start the server (which files to
// attach to); neither editor repeats it.
type EditorInfo struct {
	// DocumentPatterns are doublestar globs matched against a whole path.
	DocumentPatterns []string `json:"documentPatterns"`
	// RecallHandle is a handle's syntax as a regular expression
	// (ECMAScript and Lua-convertible: letters, a class, a count);
	// RecallMark finds the handles a text names, the handle its first
	// group; RecallSyntax says it in words.
	RecallHandle string `json:"recallHandle"`
	RecallMark   string `json:"recallMark"`
	RecallSyntax string `json:"recallSyntax"`
	// HandoffAgents are the agents a conversation can continue in
	// (compactd.handoff's "agent"), with the names users know them by.
	HandoffAgents []HandoffAgent `json:"handoffAgents"`
	// WatchSwitches are the agents' switches of the watch settings
	// (VS Code's compactd.watch, Neovim's settings.watch, by Key): false
	// stops watching that agent's own folders. The editors list no agent.
	WatchSwitches []config.WatchSwitch `json:"watchSwitches"`
}

// A HandoffAgent is one agent compactd.handoff can continue in.
type HandoffAgent struct {
	Name  string `json:"name"`
	Label string `json:"label"`
}

// Info is the server's EditorInfo.
func Info() EditorInfo {
	info := EditorInfo{
		DocumentPatterns: format.FilePatterns(),
		RecallHandle:     recall.HandlePattern, RecallMark: recall.MarkPattern, RecallSyntax: recall.Syntax,
		WatchSwitches: config.WatchSwitches(),
	}
	for _, name := range daemon.HandoffTargets() {
		info.HandoffAgents = append(info.HandoffAgents, HandoffAgent{Name: name, Label: daemon.HandoffLabel(name)})
	}
	return info
}
