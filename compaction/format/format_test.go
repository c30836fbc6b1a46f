package format

import (
	"testing"
	"time"
)

func TestForkOptionsWithDefaults(t *testing.T) {
	given := ForkOptions{SessionID: "s", Timestamp: "2026-01-02T03:04:05.000Z", TokensBefore: 7}
	if got := given.WithDefaults(); got != given {
		t.Fatalf("defaults replaced what was given: %+v", got)
	}
	a, b := ForkOptions{}.WithDefaults(), ForkOptions{}.WithDefaults()
	if a.SessionID == "" || a.SessionID == b.SessionID {
		t.Fatalf("session ids %q, %q", a.SessionID, b.SessionID)
	}
	ts, err := time.Parse("2006-01-02T15:04:05.000Z", a.Timestamp)
	if err != nil || time.Since(ts) > time.Minute || time.Since(ts) < -time.Minute {
		t.Fatalf("timestamp %q (%v)", a.Timestamp, err)
	}
}
