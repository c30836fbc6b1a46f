package handoff

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/compactd/compactd/compaction/transcript"
)

// TestConvertKeepsTheInvariantsOnAnyView: whatever the view holds — roles
// in any order, calls without results, results without calls, results
// before their calls or twice, calls issued as separate items, text beside
// results — the session alternates, opens with the user, ends with the
// model, and answers every call first thing in the next message; every
// call is mapped or rendered as text, none lost.
func TestConvertKeepsTheInvariantsOnAnyView(t *testing.T) {
	roles := []transcript.Role{transcript.RoleUser, transcript.RoleAssistant, transcript.RoleTool, transcript.RoleSystem}
	for seed := uint64(0); seed < 3000; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		var msgs []transcript.Message
		calls := 0
		for i, n := 0, r.IntN(14); i < n; i++ {
			m := transcript.Message{Role: roles[r.IntN(len(roles))], Origin: transcript.OriginHuman}
			for j, k := 0, 1+r.IntN(3); j < k; j++ {
				id := fmt.Sprintf("c%d", r.IntN(8))
				switch r.IntN(5) {
				case 0:
					m.Parts = append(m.Parts, text(fmt.Sprintf("words %d", r.IntN(100))))
				case 1:
					name, args := "Bash", `{"command":"ls"}`
					if r.IntN(3) == 0 {
						name, args = "Unknown", `{"x":1}`
					}
					if m.Role == transcript.RoleAssistant {
						calls++
					}
					m.Parts = append(m.Parts, callOf(id, name, args))
				case 2:
					m.Parts = append(m.Parts, result(id, "out"))
				case 3:
					m.Parts = append(m.Parts, transcript.Part{Kind: transcript.PartReasoning, Text: "hm"})
				default:
					m.Parts = append(m.Parts, transcript.Part{Kind: transcript.PartImage, MIME: "image/png"})
				}
			}
			msgs = append(msgs, m)
		}
		v := &transcript.View{Messages: msgs}
		if r.IntN(3) == 0 {
			v.Summaries = []transcript.Summary{{Text: "summary", Before: r.IntN(len(msgs) + 1)}}
		}
		s, st := Convert(v, Options{From: claudeLike, To: codexLike, Cwd: "/p", Images: true})
		if err := s.Check(); err != nil {
			t.Fatalf("seed %d: %v\nview: %+v\nsession:\n%s", seed, err, msgs, dump(s))
		}
		if st.Mapped+st.AsText < 0 || st.Mapped+st.AsText > calls {
			t.Fatalf("seed %d: %d mapped + %d as text of %d assistant calls", seed, st.Mapped, st.AsText, calls)
		}
	}
}
