package formattest

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	jsonv1 "github.com/go-json-experiment/json/v1"
)

// DecodersAgree fails t unless encoding/json and go-json-experiment's v1
// API (which the codecs read records with: it is several times faster)
// decode raw into a fresh value alike: the same value, or both an error
// of the same kind. A value of the wrong JSON type is skipped by both and
// the rest decoded (codecs that decode leniently use what is left), so
// then the values must agree too.
func DecodersAgree(t *testing.T, raw []byte, fresh func() any) {
	t.Helper()
	want, got := fresh(), fresh()
	errWant := json.Unmarshal(raw, want)
	errGot := jsonv1.Unmarshal(raw, got)
	if (errWant == nil) != (errGot == nil) {
		t.Fatalf("%q into %T: encoding/json says %v, jsonv1 says %v", raw, want, errWant, errGot)
	}
	var typeWant *json.UnmarshalTypeError
	var typeGot *jsonv1.UnmarshalTypeError
	if errors.As(errWant, &typeWant) != errors.As(errGot, &typeGot) {
		t.Fatalf("%q into %T: encoding/json says %v, jsonv1 says %v", raw, want, errWant, errGot)
	}
	if (errWant == nil || typeWant != nil) && !reflect.DeepEqual(want, got) {
		t.Fatalf("%q into %T (error %v):\nencoding/json %+v\njsonv1        %+v", raw, want, errWant, want, got)
	}
}
