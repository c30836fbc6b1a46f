package formattest

import (
	"encoding/json"
	"reflect"
	"testing"

	jsonv1 "github.com/go-json-experiment/json/v1"
)

// DecodersAgree fails t unless encoding/json and go-json-experiment's v1
// API (which the codecs read records with: it is several times faster)
// decode raw into a fresh value alike: the same value, or both an error.
func DecodersAgree(t *testing.T, raw []byte, fresh func() any) {
	t.Helper()
	want, got := fresh(), fresh()
	errWant := json.Unmarshal(raw, want)
	errGot := jsonv1.Unmarshal(raw, got)
	if (errWant == nil) != (errGot == nil) {
		t.Fatalf("%q into %T: encoding/json says %v, jsonv1 says %v", raw, want, errWant, errGot)
	}
	if errWant == nil && !reflect.DeepEqual(want, got) {
		t.Fatalf("%q into %T:\nencoding/json %+v\njsonv1        %+v", raw, want, want, got)
	}
}
