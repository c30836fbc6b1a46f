package sourcefile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

func compress(t *testing.T, data []byte) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(data, nil)
}

func TestReadPlainAndCompressed(t *testing.T) {
	dir := t.TempDir()
	data := bytes.Repeat([]byte(`{"type":"response_item","payload":{"type":"message"}}`+"\n"), 5000)
	plain := filepath.Join(dir, "rollout-1.jsonl")
	os.WriteFile(plain, data, 0o644)
	os.WriteFile(plain+".zst", compress(t, data), 0o644)
	for _, p := range []string{plain, plain + ".zst"} {
		got, err := ReadFile(p)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("ReadFile(%s): %d bytes, %v", filepath.Base(p), len(got), err)
		}
		head, err := ReadHead(p, 100)
		if err != nil || !bytes.Equal(head, data[:100]) {
			t.Fatalf("ReadHead(%s): %q, %v", filepath.Base(p), head, err)
		}
	}
	if !Compressed(plain+".zst") || Compressed(plain) || PlainName(plain+".zst") != plain || Twin(plain) != plain+".zst" || Twin(plain+".zst") != plain {
		t.Error("names")
	}
}

func TestCorruptStreamNamesThePath(t *testing.T) {
	dir := t.TempDir()
	data := bytes.Repeat([]byte("a line of a rollout\n"), 1000)
	z := compress(t, data)
	for name, content := range map[string][]byte{
		"truncated.jsonl.zst": z[:len(z)/2],
		"garbage.jsonl.zst":   []byte("this is not zstd at all"),
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, content, 0o644)
		if _, err := ReadFile(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: err %v, want one naming the path", name, err)
		}
	}
	if _, err := ReadFile(filepath.Join(dir, "gone.jsonl.zst")); !os.IsNotExist(err) {
		t.Errorf("a missing file: %v, want not-exist", err)
	}
}
