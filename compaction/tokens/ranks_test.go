package tokens

import (
	"testing"

	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// TestRanksAsTheOfflineLoaderReadsThem: readRanks gives every encoding's
// ranks exactly as the library's offline loader does.
func TestRanksAsTheOfflineLoaderReadsThem(t *testing.T) {
	for name, file := range rankFiles {
		got, err := readRanks(file)
		if err != nil {
			t.Fatal(err)
		}
		want, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe(file)
		if err != nil {
			t.Fatal(err)
		}
		if got.len() < 100_000 || got.len() != len(want) {
			t.Fatalf("%s: %d ranks, the offline loader reads %d", name, got.len(), len(want))
		}
		for tok, rank := range want {
			if r, ok := got.get(tok); !ok || r != rank {
				t.Fatalf("%s: token %q has rank %d (found %v), the offline loader reads %d", name, tok, r, ok, rank)
			}
		}
		for _, miss := range []string{"", "\x00\x00\x00\x00\x00\x00\x00\x00\x00zzzq", "not a token of any encoding, surely"} {
			if _, ok := want[miss]; !ok {
				if r, ok := got.get(miss); ok {
					t.Fatalf("%s: %q found with rank %d; it is no token", name, miss, r)
				}
			}
		}
	}
}

func BenchmarkReadRanks(b *testing.B) {
	b.Run("readRanks", func(b *testing.B) {
		for b.Loop() {
			readRanks(rankFiles[O200kBase])
		}
	})
	b.Run("offline loader", func(b *testing.B) {
		for b.Loop() {
			tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe(rankFiles[O200kBase])
		}
	})
}
