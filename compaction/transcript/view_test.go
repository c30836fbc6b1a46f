package transcript

import "testing"

func TestUnchangedPrefix(t *testing.T) {
	src := &Transcript{Messages: []Message{
		{Role: RoleUser, Origin: OriginHuman, Records: []int{0}, Parts: []Part{{Kind: PartText, Text: "a", Ref: Ref{0, -1}}}},
		{Role: RoleAssistant, Records: []int{1, 2}, Parts: []Part{{Kind: PartText, Ref: Ref{1, 0}}, {Kind: PartToolCall, Ref: Ref{2, 0}}}},
		{Role: RoleUser, Origin: OriginToolResult, Records: []int{3}, Parts: []Part{{Kind: PartToolResult, Ref: Ref{3, 0}}}},
		{Role: RoleAssistant, Records: []int{4}, Parts: []Part{{Kind: PartText, Ref: Ref{4, 0}}}},
	}}
	tests := []struct {
		name string
		edit func(v *View)
		want int
	}{
		{"untouched", func(v *View) {}, 4},
		{"part changed", func(v *View) { v.Messages[2].Parts[0].Changed = true }, 2},
		{"part removed", func(v *View) { v.Messages[1].Parts = v.Messages[1].Parts[:1] }, 1},
		{"message dropped", func(v *View) { v.Messages = append(v.Messages[:1], v.Messages[2:]...) }, 1},
		{"history cut", func(v *View) { v.Messages = v.Messages[2:]; v.Cut = true }, 0},
		{"summary inserted", func(v *View) { v.Summaries = []Summary{{Text: "s", Before: 3}} }, 3},
		{"tail dropped", func(v *View) { v.Messages = v.Messages[:2] }, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := NewView(src)
			tt.edit(v)
			if got := v.UnchangedPrefix(); got != tt.want {
				t.Fatalf("UnchangedPrefix = %d, want %d", got, tt.want)
			}
		})
	}
}
