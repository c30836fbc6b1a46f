package jsonx

import (
	"fmt"
	"strings"

	"github.com/compactd/compactd/compaction/transcript"
)

// ArrayFork writes views of a transcript held as one JSON array of records
// in a document (OpenAI Chat messages, Responses items): the array is
// replaced by the view's records, everything around it stays byte for
// byte, and records the view keeps whole keep their bytes and indentation.
type ArrayFork struct {
	Src []byte
	Doc *ArrayDocument
	// Skip lists records the codec writes itself, outside the array.
	Skip map[int]bool
	// NewMessage renders a message the view made (a summary, a message
	// without source records) with the given role.
	NewMessage func(role, text string) []byte
	// Record renders source record rec of the view's message msg from the
	// record's source parts and the parts the view kept. It returns the
	// element's bytes (nil drops the record) and whether they are the
	// source's own, which are copied with their layout.
	Record func(msg, rec int, source, kept []transcript.Part) (b []byte, same bool, err error)
	// Edits are splices outside the array, made by Record (a system
	// prompt kept in a field of the document).
	Edits []Edit
}

// Write returns the forked document.
func (f *ArrayFork) Write(v *transcript.View) ([]byte, error) {
	src := v.Source
	srcParts := PartsByRecord(src)
	layout := LayoutOf(f.Src, f.Doc)
	var elems []Elem
	fromSource := func(b []byte, r transcript.Record) Elem { return Elem{Bytes: b, Source: f.Doc.ElementAt(int(r.Start))} }
	built := func(b []byte) Elem { return Elem{Bytes: layout.Format(b), Source: -1} }
	for _, s := range PlanFork(v, f.Skip) {
		switch {
		case s.Record >= 0:
			r := src.Records[s.Record]
			elems = append(elems, fromSource(r.Raw, r))
		case s.Summary >= 0:
			elems = append(elems, built(f.NewMessage("user", v.Summaries[s.Summary].Text)))
		default:
			m := &v.Messages[s.Message]
			if len(m.Records) == 0 {
				var texts []string
				for _, p := range m.Parts {
					texts = append(texts, p.Text)
				}
				elems = append(elems, built(f.NewMessage(string(m.Role), strings.Join(texts, "\n"))))
				continue
			}
			kept := KeptParts(m)
			for _, rec := range m.Records {
				r := src.Records[rec]
				b, same, err := f.Record(s.Message, rec, srcParts[rec], kept[rec])
				switch {
				case err != nil:
					return nil, fmt.Errorf("record at byte %d: %w", r.Start, err)
				case b == nil:
				case same:
					elems = append(elems, fromSource(b, r))
				default:
					elems = append(elems, built(b))
				}
			}
		}
	}
	edits := append(f.Edits, Edit{Span: f.Doc.Array, Bytes: f.Doc.ArrayBytes(f.Src, layout, elems)})
	return Splice(f.Src, edits), nil
}
