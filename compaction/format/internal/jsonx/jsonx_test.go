package jsonx

import (
	"bytes"
	"encoding/json"
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

// An edit changes what encoding/json reads back into a struct, whose
// fields match keys ignoring case, the last of several winning.
func TestObjectKeysMatchAsDecodersRead(t *testing.T) {
	raw := []byte(`{"uuid":"first","UUID":"last","pArentUuid":"p","n":1}`)
	o, err := ParseObject(raw)
	if err != nil {
		t.Fatal(err)
	}
	var read struct {
		UUID   string `json:"uuid"`
		Parent string `json:"parentUuid"`
	}
	if err := json.Unmarshal(raw, &read); err != nil || string(o.Get("uuid")) != `"`+read.UUID+`"` || !o.Has("parentUuid") {
		t.Fatalf("Get(uuid) = %s, decoder reads %q (%v)", o.Get("uuid"), read.UUID, err)
	}
	_ = o.Set("parentUuid", "q")
	_ = o.Set("uuid", "new")
	if err := json.Unmarshal(o.Bytes(), &read); err != nil || read.UUID != "new" || read.Parent != "q" {
		t.Fatalf("after edits %s reads %+v (%v)", o.Bytes(), read, err)
	}
	o.Delete("UuId")
	if got := string(o.Bytes()); got != `{"pArentUuid":"q","n":1}` {
		t.Fatalf("delete left %s", got)
	}
}
