package jsonx

import (
	"bytes"
	"testing"
)

func TestObjectKeepsUntouchedBytes(t *testing.T) {
	raw := []byte(`{"b":1,"sig":"a\u00e9\/x","a":{"x": [1, 2]},"c":"<tag>"}`)
	o, err := ParseObject(raw)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(o.Get("sig")); got != `"a\u00e9\/x"` {
		t.Fatalf("sig value re-encoded: %s", got)
	}
	if err := o.Set("b", "<new & text>"); err != nil {
		t.Fatal(err)
	}
	o.Delete("c")
	want := `{"b":"<new & text>","sig":"a\u00e9\/x","a":{"x": [1, 2]}}`
	if got := string(o.Bytes()); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestParseArrayAndRejects(t *testing.T) {
	elems, err := ParseArray([]byte(` [ {"a":1} , "x",3 ] `))
	if err != nil || len(elems) != 3 || !bytes.Equal(elems[0], []byte(`{"a":1}`)) {
		t.Fatalf("elems=%q err=%v", elems, err)
	}
	if _, err := ParseObject([]byte(`[1]`)); err == nil {
		t.Fatal("array accepted as object")
	}
	if _, err := ParseObject([]byte(`{"a":`)); err == nil {
		t.Fatal("truncated object accepted")
	}
}
