// Command rankgen writes the rank tables compaction/tokens embeds
// (ranktable.Build) from the rank files of github.com/pkoukk/tiktoken-go-
// loader: `go generate ./compaction/tokens`. TestEmbeddedRanks checks the
// committed tables are what it writes.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/pkoukk/tiktoken-go-loader/assets"

	"github.com/compactd/compactd/compaction/tokens/internal/ranktable"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: rankgen DIR")
		os.Exit(2)
	}
	for _, name := range []string{"o200k_base", "cl100k_base"} {
		src, err := assets.Assets.ReadFile(name + ".tiktoken")
		if err == nil {
			var table []byte
			if table, err = ranktable.Build(src); err == nil {
				err = os.WriteFile(filepath.Join(os.Args[1], name+".ranks"), table, 0o644)
			}
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "rankgen: %s: %v\n", name, err)
			os.Exit(1)
		}
	}
}
