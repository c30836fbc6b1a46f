package daemon

import (
	"encoding/json"
	"testing"

	"github.com/compactd/compactd/daemon/config"
)

// settingsJSON is the editor's settings as a client sends them.
func settingsJSON(t testing.TB, settings map[string]any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(settings)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// setSettings replaces the editor's settings, failing on any the
// configuration refuses.
func setSettings(t testing.TB, d *Daemon, settings map[string]any) {
	t.Helper()
	if err := d.SetClientSettings(settingsJSON(t, settings)); err != nil {
		t.Fatal(err)
	}
}

// defaultSettings is the configuration of a daemon given none.
func defaultSettings(string) *resolved { return newResolved(config.Default()) }
