package all

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/compactd/compactd/compaction/format"
	"github.com/compactd/compactd/compaction/format/formattest"
	"github.com/compactd/compactd/compaction/transcript"
)

// reformatSample is a sample that reads as a conversation, with what it
// reads as.
type reformatSample struct {
	name  string
	data  []byte
	codec format.Codec
	tr    *transcript.Transcript
}

func reformatSamples(t testing.TB) []reformatSample {
	var out []reformatSample
	for _, s := range formattest.Samples(t) {
		data, err := os.ReadFile(s.Path)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(s.Path)
		c, err := format.Detect(name, data)
		if err != nil {
			continue
		}
		tr, err := c.Parse(data)
		if err != nil || len(tr.Messages) == 0 {
			continue
		}
		out = append(out, reformatSample{name: name, data: data, codec: c, tr: tr})
	}
	return out
}

// sameReading fails t unless got, a reformatted sample, reads as the
// sample does: detected as its format, parsed to the same messages.
func sameReading(t *testing.T, s reformatSample, got []byte) {
	t.Helper()
	c, err := format.Detect(s.name, got)
	if err != nil {
		t.Fatalf("not recognized any more: %v", err)
	}
	if c.Format() != s.codec.Format() {
		t.Fatalf("detected as %s, the original as %s", c.Format(), s.codec.Format())
	}
	tr, err := c.Parse(got)
	if err != nil {
		t.Fatalf("does not parse: %v", err)
	}
	if len(tr.Messages) != len(s.tr.Messages) {
		t.Fatalf("%d messages, the original %d", len(tr.Messages), len(s.tr.Messages))
	}
	for i := range tr.Messages {
		a, b := &tr.Messages[i], &s.tr.Messages[i]
		if a.Role != b.Role || len(a.Parts) != len(b.Parts) {
			t.Fatalf("message %d: %s with %d parts, the original %s with %d", i, a.Role, len(a.Parts), b.Role, len(b.Parts))
		}
		for j := range a.Parts {
			if a.Parts[j].Kind != b.Parts[j].Kind || a.Parts[j].Kind == transcript.PartText && a.Parts[j].Text != b.Parts[j].Text {
				t.Fatalf("message %d part %d: %s %q, the original %s %q", i, j, a.Parts[j].Kind, a.Parts[j].Text, b.Parts[j].Kind, b.Parts[j].Text)
			}
		}
	}
}

// TestDetectsReformattedLargeDocuments: the same for every JSON document
// sample grown past what detection reads (its longest array repeated), so
// that the head ends mid-element — where an indented Cline
// ui_messages.json was "not a recognized transcript". -short tries one
// layout (indented) of each.
func TestDetectsReformattedLargeDocuments(t *testing.T) {
	var grownFormats []string
	defer func() { t.Logf("grown documents: %v", grownFormats) }()
	for _, s := range reformatSamples(t) {
		big, ok := formattest.Enlarge(s.name, s.data, 2*format.DetectBytes)
		if !ok {
			continue
		}
		tr, err := s.codec.Parse(big)
		if err != nil {
			t.Errorf("%s/%s grown: %v", s.codec.Format(), s.name, err)
			continue
		}
		if c, err := format.Detect(s.name, big); err != nil || c.Format() != s.codec.Format() {
			continue // grown, it reads as another format: not a layout question
		}
		grown := reformatSample{name: s.name, data: big, codec: s.codec, tr: tr}
		grownFormats = append(grownFormats, string(s.codec.Format())+"/"+s.name)
		reformats := formattest.Reformats()
		if testing.Short() {
			reformats = reformats[:1] // indented: the layout a head cut mid-element first missed
		}
		for _, r := range reformats {
			got, ok := r.Apply(s.name, big)
			if !ok {
				continue
			}
			t.Run(string(s.codec.Format())+"/"+s.name+"/"+r.String(), func(t *testing.T) {
				sameReading(t, grown, got)
			})
		}
	}
}

// TestDetectsLengthenedDocuments: the same for every JSON document
// sample whose head, where detection stops reading, ends inside one long
// string — of its first record (a pasted file, a system prompt, an
// opencode message's info holding whole files) or of what surrounds the
// records (a session's title, a request's system prompt). Real opencode
// exports whose first message id sat 85–660 KB in were "not a
// recognized transcript". -short tries one layout (indented) of each.
//
// Only the formats in lengthenedFormats are held to it so far: the same
// test finds jp, cline and copilot-chat documents with a long first record
// and copilot-chat's with a long member around them unread too.
func TestDetectsLengthenedDocuments(t *testing.T) {
	for _, s := range reformatSamples(t) {
		for _, where := range lengthenedFormats[s.codec.Format()] {
			big, ok := formattest.Lengthen(s.name, s.data, 2*format.DetectBytes, where)
			if !ok {
				continue
			}
			tr, err := s.codec.Parse(big)
			if err != nil {
				t.Errorf("%s/%s lengthened: %v", s.codec.Format(), s.name, err)
				continue
			}
			grown := reformatSample{name: s.name, data: big, codec: s.codec, tr: tr}
			reformats := formattest.Reformats()
			if testing.Short() {
				reformats = reformats[:1]
			}
			for _, r := range reformats {
				got, ok := r.Apply(s.name, big)
				if !ok {
					continue
				}
				t.Run(string(s.codec.Format())+"/"+s.name+"/"+[]string{"first", "lead"}[where]+"/"+r.String(), func(t *testing.T) {
					sameReading(t, grown, got)
				})
			}
		}
	}
}

// lengthenedFormats are the formats whose detection reads a document
// whose head ends inside one long string, and where: first (inside the
// first record), lead (inside what surrounds the records). A request or
// a bare array of items whose keys are reordered so that the head ends
// inside the first record's content, before its role or type, shows
// nothing that tells the Messages API from Chat Completions or
// Responses: no head tells it, so those two are held to lead only.
var lengthenedFormats = map[transcript.Format][]int{
	transcript.FormatOpenCode:          {formattest.LengthenFirst, formattest.LengthenLead},
	transcript.FormatKilo:              {formattest.LengthenFirst, formattest.LengthenLead},
	transcript.FormatAnthropicMessages: {formattest.LengthenLead},
	transcript.FormatOpenAIResponses:   {formattest.LengthenLead},
}

// TestDetectsReformattedSamples is issue 34's item 4: every format is
// recognised by its content, whatever its layout — every codec fixture and
// corpus file, indented, compacted, its keys reordered, with a BOM and
// CRLF line ends, reads as the original does. Before, a Cline
// ui_messages.json indented with four spaces was "not a recognized
// transcript".
func TestDetectsReformattedSamples(t *testing.T) {
	for _, s := range reformatSamples(t) {
		for _, r := range formattest.Reformats() {
			got, ok := r.Apply(s.name, s.data)
			if !ok {
				continue
			}
			t.Run(string(s.codec.Format())+"/"+s.name+"/"+r.String(), func(t *testing.T) {
				sameReading(t, s, got)
			})
		}
	}
}

// FuzzDetectReformatted reformats a sample of every format — the fuzzer
// picks the sample, the indentation, the keys' order (a seeded shuffle),
// a BOM, CRLF line ends and whether the document is grown past what
// detection reads (its longest array repeated, or, for lengthenedFormats,
// one long string of its first record or around its records) — and
// checks it reads as the sample does.
func FuzzDetectReformatted(f *testing.F) {
	samples := reformatSamples(f)
	reformats := formattest.Reformats()
	for i := range samples {
		r := reformats[i%len(reformats)]
		f.Add(uint16(i), uint8(i), uint8(r.Keys), r.Seed, r.BOM, r.CRLF, uint8(i%8))
	}
	indents := []string{"", "  ", "    ", "\t", " "}
	const (
		asIs = iota
		enlarged
		lengthenedFirst
		lengthenedLead
		growths
	)
	type key struct{ sample, growth int }
	var mu sync.Mutex
	grown := map[key]*reformatSample{} // nil: cannot grow
	grow := func(t *testing.T, i, growth int) *reformatSample {
		mu.Lock()
		defer mu.Unlock()
		if g, ok := grown[key{i, growth}]; ok {
			return g
		}
		s := samples[i]
		grown[key{i, growth}] = nil
		var big []byte
		ok := false
		switch growth {
		case enlarged:
			big, ok = formattest.Enlarge(s.name, s.data, 2*format.DetectBytes)
		case lengthenedFirst, lengthenedLead:
			where := formattest.LengthenFirst
			if growth == lengthenedLead {
				where = formattest.LengthenLead
			}
			if !slices.Contains(lengthenedFormats[s.codec.Format()], where) {
				return nil
			}
			big, ok = formattest.Lengthen(s.name, s.data, 2*format.DetectBytes, where)
		}
		if !ok {
			return nil
		}
		tr, err := s.codec.Parse(big)
		if err != nil {
			t.Fatalf("%s grown: %v", s.name, err)
		}
		if c, err := format.Detect(s.name, big); growth == enlarged && (err != nil || c.Format() != s.codec.Format()) {
			return nil // grown, it reads as another format
		}
		grown[key{i, growth}] = &reformatSample{name: s.name, data: big, codec: s.codec, tr: tr}
		return grown[key{i, growth}]
	}
	f.Fuzz(func(t *testing.T, sample uint16, indent, keys uint8, seed uint64, bom, crlf bool, growth uint8) {
		i := int(sample) % len(samples)
		s := samples[i]
		if g := int(growth) % growths; g != asIs {
			grownSample := grow(t, i, g)
			if grownSample == nil {
				return
			}
			s = *grownSample
		}
		r := formattest.Reformat{Indent: indents[int(indent)%len(indents)], Keys: int(keys) % 4, Seed: seed, BOM: bom, CRLF: crlf}
		got, ok := r.Apply(s.name, s.data)
		if !ok {
			return
		}
		t.Logf("%s/%s, %s", s.codec.Format(), s.name, r)
		sameReading(t, s, got)
	})
}
