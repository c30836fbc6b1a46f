package jsonx

import (
	"bytes"
	"encoding/json"
	"errors"
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

// parseObjectStd is ParseObject as it was, on encoding/json's decoder:
// what the faster one must agree with.
func parseObjectStd(raw []byte) (*Object, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	o := &Object{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("object key is not a string")
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.Members = append(o.Members, Member{Key: key, Value: v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if rest := bytes.TrimSpace(raw[dec.InputOffset():]); len(rest) > 0 {
		return nil, errors.New("trailing data")
	}
	return o, nil
}

// FuzzParseObject holds ParseObject to encoding/json's reading of the same
// bytes: the same members, keys and exact value bytes, and Bytes giving
// back the same object.
func FuzzParseObject(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"b":[1,2,{"c":"d"}],"a":"x"}`, " {\"k\" : \"\\u00e9\\ud800\" , \"n\":null} \n", `{"a":"\xff"}`, `{"a":1}{}`, `[1]`, `{"a":}`, `{"<&>":"é"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := ParseObject(raw)
		want, werr := parseObjectStd(raw)
		if (err == nil) != (werr == nil) {
			t.Fatalf("ParseObject error %v, encoding/json %v", err, werr)
		}
		if err != nil {
			return
		}
		if len(got.Members) != len(want.Members) {
			t.Fatalf("%d members, encoding/json %d", len(got.Members), len(want.Members))
		}
		for i := range got.Members {
			g, w := got.Members[i], want.Members[i]
			if g.Key != w.Key || !bytes.Equal(g.Value, w.Value) {
				t.Fatalf("member %d: %q=%s, encoding/json %q=%s", i, g.Key, g.Value, w.Key, w.Value)
			}
		}
		back, err := parseObjectStd(got.Bytes())
		if err != nil || len(back.Members) != len(got.Members) {
			t.Fatalf("Bytes does not read back: %v\n%s", err, got.Bytes())
		}
	})
}
