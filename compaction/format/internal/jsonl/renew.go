package jsonl

import (
	"encoding/json"
	"fmt"

	"github.com/compactd/compactd/compaction/format/internal/jsonx"
	"github.com/compactd/compactd/compaction/transcript"
)

// RenewSession is Renew for a line codec whose lines name the session by
// its id at key (a path of object keys: "sessionId", or "data",
// "sessionId"): every line as it is, with the transcript's own id
// replaced by session wherever a line names it; lines that name none, or
// another, stay byte for byte. Other ids (uuids, event ids, parent links)
// stay: they only need to be unique within a file.
func RenewSession(t *transcript.Transcript, session string, key ...string) ([]byte, error) {
	old := t.Meta.SessionID
	return Rewrite(t, func(i int, r transcript.Record) ([]byte, error) {
		if r.Kind == transcript.RecordMalformed || old == "" {
			return nil, nil
		}
		o, err := jsonx.ParseObject(r.Raw)
		if err != nil {
			return nil, fmt.Errorf("renew: line %d: %w", i+1, err)
		}
		objects := []*jsonx.Object{o}
		for _, k := range key[:len(key)-1] {
			inner, err := jsonx.ParseObject(objects[len(objects)-1].Get(k))
			if err != nil {
				return nil, nil // no such object: nothing names the session
			}
			objects = append(objects, inner)
		}
		last := objects[len(objects)-1]
		var id string
		if json.Unmarshal(last.Get(key[len(key)-1]), &id) != nil || id != old {
			return nil, nil
		}
		_ = last.Set(key[len(key)-1], session)
		for j := len(objects) - 1; j > 0; j-- {
			objects[j-1].SetRaw(key[j-1], objects[j].Bytes())
		}
		return o.Bytes(), nil
	})
}
