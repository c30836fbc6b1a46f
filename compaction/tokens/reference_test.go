package tokens

import (
	"sync"
	"testing"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// The library's own tokenizer (regexp2 pretokenizer, its BPE) is the
// reference the counter's pretokenizer and merge are held to.
var (
	referenceMu       sync.Mutex
	referenceEncoders = map[string]*tiktoken.Tiktoken{}
)

func referenceEncoding(t testing.TB, name string) *tiktoken.Tiktoken {
	t.Helper()
	referenceMu.Lock()
	defer referenceMu.Unlock()
	if enc, ok := referenceEncoders[name]; ok {
		return enc
	}
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding(name)
	if err != nil {
		t.Fatal(err)
	}
	referenceEncoders[name] = enc
	return enc
}

// referenceCount is the library's count of s as ordinary text.
func referenceCount(t testing.TB, name, s string) int {
	return len(referenceEncoding(t, name).EncodeOrdinary(s))
}
