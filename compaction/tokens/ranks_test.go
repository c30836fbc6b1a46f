package tokens

import (
	"testing"

	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
	"github.com/pkoukk/tiktoken-go-loader/assets"

	"github.com/compactd/compactd/compaction/tokens/internal/ranktable"
)

// TestEmbeddedRanks: the embedded tables are what internal/rankgen builds
// from the offline loader's rank files (go generate writes them), and
// every token has the rank the loader reads, no other text one.
func TestEmbeddedRanks(t *testing.T) {
	for name, file := range map[string]string{
		O200kBase:  "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
		CL100kBase: "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
	} {
		src, err := assets.Assets.ReadFile(name + ".tiktoken")
		if err != nil {
			t.Fatal(err)
		}
		built, err := ranktable.Build(src)
		if err != nil {
			t.Fatal(err)
		}
		if string(built) != *rankFiles[name] {
			t.Fatalf("%s: the embedded table is not what internal/rankgen builds from the loader's file: run go generate ./compaction/tokens", name)
		}
		got, err := readRanks(name)
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
	b.Run("embedded table", func(b *testing.B) {
		for b.Loop() {
			readRanks(O200kBase)
		}
	})
	b.Run("offline loader", func(b *testing.B) {
		for b.Loop() {
			tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe("https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken")
		}
	})
}
