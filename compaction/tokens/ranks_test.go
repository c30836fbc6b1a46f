package tokens

import (
	"maps"
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
		if len(got) < 100_000 || !maps.Equal(got, want) {
			t.Fatalf("%s: %d ranks, the offline loader reads %d (or they differ)", name, len(got), len(want))
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
