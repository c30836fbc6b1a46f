// Package jsonx edits JSON while keeping every byte it does not touch:
// object members keep their order and their values' exact bytes, so a codec
// can rewrite one content block of a record and leave signatures, unknown
// fields and escapes as the agent wrote them.
package jsonx

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// A Member is one key of an object with its value's exact bytes.
type Member struct {
	Key   string
	Value json.RawMessage
}

// Object is a JSON object with ordered members.
type Object struct {
	Members []Member
}

// ParseObject splits raw, which must be a JSON object, into its members.
// Values are raw's own bytes (not copies). It accepts what encoding/json's
// decoder accepts — repeated keys, invalid UTF-8 in strings — on the
// go-json-experiment tokenizer, several times faster: a fork re-renders a
// record of every message it edits, and large sessions have hundreds of
// thousands.
func ParseObject(raw []byte) (*Object, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(raw), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	if tok.Kind() != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	o := &Object{Members: make([]Member, 0, 16)}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		if tok.Kind() != '"' {
			return nil, fmt.Errorf("object key is not a string")
		}
		key := tok.String()
		v, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		end := int(dec.InputOffset())
		o.Members = append(o.Members, Member{Key: key, Value: raw[end-len(v) : end : end]})
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	// Only whitespace may follow, as encoding/json's Decoder would not
	// check but Unmarshal does.
	if rest := bytes.TrimSpace(raw[dec.InputOffset():]); len(rest) > 0 {
		return nil, fmt.Errorf("invalid character %q after top-level value", rest[0])
	}
	return o, nil
}

// ParseArray splits raw, which must be a JSON array, into its elements'
// exact bytes.
func ParseArray(raw []byte) ([]json.RawMessage, error) {
	if t := bytes.TrimLeft(raw, " \t\r\n"); len(t) == 0 || t[0] != '[' {
		return nil, fmt.Errorf("not a JSON array")
	}
	var out []json.RawMessage
	if err := jsonv1.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// Keys match as encoding/json matches an object's members to the struct
// fields the codecs decode records into: ignoring case, the last of
// several winning. An edit then changes what a codec reads back, even of
// a record whose keys differ from the agent's only in case or repeat.

// index returns the member a field tagged key decodes from, or -1.
func (o *Object) index(key string) int {
	for i := len(o.Members) - 1; i >= 0; i-- {
		if strings.EqualFold(o.Members[i].Key, key) {
			return i
		}
	}
	return -1
}

// Get returns the value of key, or nil.
func (o *Object) Get(key string) json.RawMessage {
	if i := o.index(key); i >= 0 {
		return o.Members[i].Value
	}
	return nil
}

// Has reports whether key is present.
func (o *Object) Has(key string) bool { return o.index(key) >= 0 }

// SetRaw sets key to raw bytes, in place if present, else appended.
func (o *Object) SetRaw(key string, raw json.RawMessage) {
	if i := o.index(key); i >= 0 {
		o.Members[i].Value = raw
		return
	}
	o.Members = append(o.Members, Member{Key: key, Value: raw})
}

// Set marshals v (without HTML escaping) and sets key to it.
func (o *Object) Set(key string, v any) error {
	raw, err := Marshal(v)
	if err != nil {
		return err
	}
	o.SetRaw(key, raw)
	return nil
}

// Delete removes key (every member that matches it) if present.
func (o *Object) Delete(key string) {
	for i := o.index(key); i >= 0; i = o.index(key) {
		o.Members = append(o.Members[:i:i], o.Members[i+1:]...)
	}
}

// Bytes renders the object compactly; member values keep their bytes.
func (o *Object) Bytes() []byte {
	n := 2
	for _, m := range o.Members {
		n += len(m.Key) + len(m.Value) + 4
	}
	b := make([]byte, 0, n)
	b = append(b, '{')
	for i, m := range o.Members {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendKey(b, m.Key)
		b = append(b, ':')
		b = append(b, m.Value...)
	}
	return append(b, '}')
}

// appendKey appends key as a JSON string: as it is when nothing in it
// needs escaping (every key the agents write), else as Marshal writes it.
func appendKey(b []byte, key string) []byte {
	for i := 0; i < len(key); i++ {
		if c := key[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			k, _ := Marshal(key)
			return append(b, k...)
		}
	}
	b = append(b, '"')
	b = append(b, key...)
	return append(b, '"')
}

// MarshalJSON lets an Object nest inside values passed to Marshal.
func (o *Object) MarshalJSON() ([]byte, error) { return o.Bytes(), nil }

// Array renders elements as a compact JSON array.
func Array(elems []json.RawMessage) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(e)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// Marshal is json.Marshal without HTML escaping and without a trailing
// newline: agents write '<' and '&' literally, and so do we.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
