package formattest

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
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

// SeedFiles adds the files glob matches to f's corpus: each whole, or
// each non-empty line of them when byLine.
func SeedFiles(f *testing.F, glob string, byLine bool) {
	f.Helper()
	names, err := filepath.Glob(glob)
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		if byLine {
			SeedLines[[]byte](f, data)
		} else {
			f.Add(data)
		}
	}
}

// SeedLines adds each non-empty line of data to f's corpus, as T: the
// fuzz target's argument type.
func SeedLines[T string | []byte](f *testing.F, data []byte) {
	f.Helper()
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(line) > 0 {
			f.Add(T(bytes.Clone(line)))
		}
	}
}
