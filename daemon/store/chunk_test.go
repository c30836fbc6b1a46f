package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// chatRecords returns n small JSONL records shaped like a chat's: ids,
// usage, text; seed picks their ids and texts.
func chatRecords(seed uint64, n int) [][]byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	uuid := func() string {
		return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", rng.Uint32(), rng.IntN(1<<16), rng.IntN(1<<12), rng.IntN(1<<12), rng.Uint64()&(1<<48-1))
	}
	var out [][]byte
	for i := range n {
		out = append(out, fmt.Appendf(nil, `{"parentUuid":"%s","uuid":"%s","sessionId":"%s","message":{"role":"assistant","content":"answer %d: %s","usage":{"input_tokens":%d,"output_tokens":%d}}}`+"\n",
			uuid(), uuid(), uuid(), i, strings.Repeat("word ", rng.IntN(80)), rng.IntN(9000), rng.IntN(900)))
	}
	return out
}

func scannedOf(recs [][]byte) []scanned {
	return scanAll(segments(bytes.Join(recs, nil), cutsAt(recs)))
}

func cutsAt(recs [][]byte) []int64 {
	var cuts []int64
	at := int64(0)
	for _, r := range recs {
		cuts = append(cuts, at)
		at += int64(len(r))
	}
	return cuts
}

// TestChunksGiveTheirRecordsBack: every segment chunkRecords makes, joined
// from any run of records (ids, usage members, none, bytes that only
// look like them), gives its bytes back through its patch, and
// patchGives sees a patch or body that does not.
func TestChunksGiveTheirRecordsBack(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{`"`, `{`, `}`, `,"usage":{`, `\`, `-`, `0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f`, "a", "7", `"usage"`, `:`, "\n"}
	var recs [][]byte
	for range 3000 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		b.WriteByte('\n')
		recs = append(recs, []byte(b.String()))
	}
	recs = append(recs, chatRecords(1, 500)...)
	rng.Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
	all := bytes.Join(recs, nil)
	segs := chunkRecords(scannedOf(recs))
	if len(segs) >= len(recs)/4 {
		t.Errorf("%d records made %d segments; want small records chunked", len(recs), len(segs))
	}
	var back []byte
	for _, s := range segs {
		var err error
		if back, err = applyPatch(back, s.body, s.patch); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(back, all) {
		t.Fatalf("segments give %d bytes back; want the %d recorded", len(back), len(all))
	}
	// patchGives agrees with applyPatch, and refuses what differs.
	checked := 0
	for _, rs := range [][][]byte{recs[:40], chatRecords(2, 30), recs[100:101]} {
		sc := scannedOf(rs)
		raw, body, patch := joinRecords(sc)
		if !bytes.Equal(raw, bytes.Join(rs, nil)) {
			t.Fatal("joinRecords: raw bytes are not the records'")
		}
		if patch == nil {
			continue
		}
		checked++
		if !patchGives(body, patch, raw) {
			t.Fatal("patchGives refuses a patch that gives its records back")
		}
		for _, tamper := range []func() ([]byte, []byte, []byte){
			func() ([]byte, []byte, []byte) { return body, patch, append(append([]byte(nil), raw...), 'x') },
			func() ([]byte, []byte, []byte) { return body, patch, raw[:len(raw)-1] },
			func() ([]byte, []byte, []byte) {
				p := append([]byte(nil), patch...)
				p[len(p)-1] ^= 1
				return body, p, raw
			},
			func() ([]byte, []byte, []byte) {
				b := append([]byte(nil), body...)
				b[len(b)/2] ^= 1
				return b, patch, raw
			},
		} {
			if b, p, w := tamper(); patchGives(b, p, w) {
				t.Errorf("patchGives accepts a tampered segment")
			}
		}
	}
	if checked == 0 {
		t.Fatal("no joined segment had a patch")
	}
}

// TestChunkBoundariesFollowTheRecords: the same records with other ids,
// behind other records, are cut into the same chunks once past the first
// pick, so a fork that renewed every id and dropped the start of the
// conversation shares almost all its chunks with the source.
func TestChunkBoundariesFollowTheRecords(t *testing.T) {
	src := chatRecords(5, 2000)
	// The fork: new ids on every record, the first 300 records dropped and
	// a summary in their place, three records changed.
	ids := chatRecords(6, 2000)
	var fork [][]byte
	fork = append(fork, []byte(`{"type":"summary","summary":"what came before"}`+"\n"))
	for i := 300; i < len(src); i++ {
		rec := src[i]
		// Take the ids of another record: only the ids differ.
		rec = append(append([]byte(nil), ids[i][:bytes.Index(ids[i], []byte(`,"message"`))]...), rec[bytes.Index(rec, []byte(`,"message"`)):]...)
		if i%600 == 0 {
			rec = bytes.Replace(rec, []byte("answer"), []byte("ANSWER"), 1)
		}
		fork = append(fork, rec)
	}
	bodies := map[[32]byte]bool{}
	for _, s := range chunkRecords(scannedOf(src)) {
		bodies[sha256.Sum256(s.body)] = true
	}
	forkSegs := chunkRecords(scannedOf(fork))
	var shared, sharedBytes, total int
	for _, s := range forkSegs {
		total += len(s.body)
		if bodies[sha256.Sum256(s.body)] {
			shared++
			sharedBytes += len(s.body)
		}
	}
	t.Logf("the fork shares %d of its %d segments, %d of %d body bytes", shared, len(forkSegs), sharedBytes, total)
	if float64(sharedBytes) < 0.9*float64(total) {
		t.Errorf("the fork shares %d of its %d segments (%d of %d body bytes) with its source; want ≥ 90 %% of its bytes", shared, len(forkSegs), sharedBytes, total)
	}
}

// TestStoreWithRecordSegmentsReadsAndGrows: a store written record by
// record (before small records were chunked) opens, gives every version
// back byte for byte, and its source, grown, is recorded on top of what
// it holds: the new version costs what was added and reads back whole.
func TestStoreWithRecordSegmentsReadsAndGrows(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v6.db")
	fixture, err := os.ReadFile(filepath.Join("testdata", "v6-record-segments.sql"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(string(fixture)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// The source path as the fixture recorded it: a string in the store,
	// never opened.
	const source = "/home/dev/.claude/projects/-home-dev-app/633053b8-8e4f-4f0c-9208-01fbe907143b.jsonl"
	c, ok, err := s.FindConversation(ctx, source, "session:633053b8-8e4f-4f0c-9208-01fbe907143b")
	if err != nil || !ok {
		t.Fatalf("FindConversation = %v, %v", ok, err)
	}
	vs, err := s.Versions(ctx, c.ID)
	if err != nil || len(vs) != 4 {
		t.Fatalf("Versions = %d, %v; want 4", len(vs), err)
	}
	var recordSegments int
	s.db.QueryRow(`SELECT count(*) FROM blobs`).Scan(&recordSegments)
	contents := map[string][]byte{}
	for _, v := range vs {
		b, err := s.Content(ctx, v.ContentHash) // checked against its hash
		if err != nil {
			t.Fatalf("%s: %v", v.Label, err)
		}
		if int64(len(b)) != v.Size {
			t.Errorf("%s: %d bytes; want %d", v.Label, len(b), v.Size)
		}
		contents[v.Label] = b
	}

	// The session grew by a turn of small records.
	grown := append([]byte(nil), contents["v3"]...)
	for _, r := range chatRecords(8, 40) {
		grown = append(grown, r...)
	}
	before := storedBytes(t, s)
	v5, _, err := s.RecordVersion(ctx, NewVersion{Conversation: c, Kind: KindSource, ParentID: vs[2].ID, SourcePath: source,
		Content: grown, Cuts: LineCuts(grown)})
	if err != nil {
		t.Fatal(err)
	}
	added := int64(len(grown) - len(contents["v3"]))
	if cost := storedBytes(t, s) - before; cost > added {
		t.Errorf("a source that grew by %d bytes cost %d", added, cost)
	}
	for _, v := range append(vs, v5) {
		want := contents[v.Label]
		if v.Label == v5.Label {
			want = grown
		}
		if got, err := s.Content(ctx, v.ContentHash); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s after the growth: %d bytes, %v; want its %d", v.Label, len(got), err, len(want))
		}
	}
	if probs, err := s.IntegrityCheck(ctx); err != nil || len(probs) > 0 {
		t.Errorf("integrity: %v %v", probs, err)
	}
	t.Logf("%d record segments in the fixture; the %d bytes added cost %d", recordSegments, added, storedBytes(t, s)-before)
}
