package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/compactd/compactd/daemon/agents"
	_ "github.com/compactd/compactd/daemon/agents/all" // the switches are the registry's
)

// Watch says where transcripts are looked for: the workspace folders,
// every registered agent's own folders (one switch per agent, named by its
// Setting: [watch] claude = false; daemon/agents), and Globs; Exclude
// drops the paths it matches from all of them. Globs and Exclude are
// doublestar patterns ("**" matches any number of folders, none
// included), "~/" the home folder.
type Watch struct {
	Workspace bool
	// Agents holds the switches the layers named, by agent name; an agent
	// none named is watched.
	Agents  map[string]bool
	Globs   []string
	Exclude []string
}

// Agent reports whether the agent named name is watched.
func (w Watch) Agent(name string) bool {
	on, set := w.Agents[name]
	return !set || on
}

// clone is w sharing nothing with it (Config.Clone).
func (w Watch) clone() Watch {
	w.Agents = maps.Clone(w.Agents)
	w.Globs = slices.Clone(w.Globs)
	w.Exclude = slices.Clone(w.Exclude)
	return w
}

// set records one switch (a layer sets only the keys it names).
func (w *Watch) set(name string, on bool) {
	if w.Agents == nil {
		w.Agents = map[string]bool{}
	}
	w.Agents[name] = on
}

// A WatchSwitch is one agent's switch in [watch]: Key as editors send it
// (camelCase), TOML as .compactd.toml names it (snake case), Label the
// agent's name as users know it. The server advertises them, so that
// neither editor lists the agents.
type WatchSwitch struct {
	Key   string `json:"key"`
	TOML  string `json:"toml"`
	Label string `json:"label"`
}

// WatchSwitches are every registered agent's switches, by key.
func WatchSwitches() []WatchSwitch {
	var out []WatchSwitch
	for _, a := range agents.All() {
		label := a.Label
		if label == "" {
			label = a.Name
		}
		out = append(out, WatchSwitch{Key: a.ClientSetting(), TOML: a.Setting, Label: label})
	}
	slices.SortFunc(out, func(a, b WatchSwitch) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// watchKeys maps the keys of [watch], as TOML (snake case) or an editor
// (camelCase) names them, to what they set.
func watchKeys(client bool) map[string]string {
	keys := map[string]string{"workspace": "workspace", "globs": "globs", "exclude": "exclude"}
	for _, a := range agents.All() {
		if client {
			keys[a.ClientSetting()] = a.Name
		} else {
			keys[a.Setting] = a.Name
		}
	}
	return keys
}

// apply overlays the keys of one layer.
func (w *Watch) apply(m map[string]json.RawMessage, client bool) error {
	keys := watchKeys(client)
	for _, k := range sortedKeys(m) {
		v := m[k]
		name, ok := keys[k]
		if !ok {
			valid := make([]string, 0, len(keys))
			for vk := range keys {
				valid = append(valid, vk)
			}
			sort.Strings(valid)
			return fmt.Errorf("unknown key watch.%s (valid: %s)", k, joinQuoted(valid))
		}
		var err error
		switch name {
		case "globs":
			err = json.Unmarshal(v, &w.Globs)
		case "exclude":
			err = json.Unmarshal(v, &w.Exclude)
		case "workspace":
			err = json.Unmarshal(v, &w.Workspace)
		default:
			var on bool
			if err = json.Unmarshal(v, &on); err == nil {
				w.set(name, on)
			}
		}
		if err != nil {
			return fmt.Errorf("watch.%s: %w", k, err)
		}
	}
	return nil
}

func joinQuoted(list []string) string {
	var b bytes.Buffer
	for i, s := range list {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s)
	}
	return b.String()
}

// UnmarshalTOML overlays a [watch] table (its TOML text: the decoder's
// unstable.Unmarshaler).
func (w *Watch) UnmarshalTOML(data []byte) error {
	var table map[string]any
	if err := toml.Unmarshal(data, &table); err != nil {
		return fmt.Errorf("watch must be a table: %w", err)
	}
	m := make(map[string]json.RawMessage, len(table))
	for k, v := range table {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("watch.%s: %w", k, err)
		}
		m[k] = b
	}
	return w.apply(m, false)
}

// UnmarshalJSON overlays an editor's watch settings (camelCase keys).
func (w *Watch) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	return w.apply(m, true)
}

// MarshalJSON writes the settings as an editor sends them.
func (w Watch) MarshalJSON() ([]byte, error) {
	m := map[string]any{"workspace": w.Workspace}
	if w.Globs != nil {
		m["globs"] = w.Globs
	}
	if w.Exclude != nil {
		m["exclude"] = w.Exclude
	}
	for _, a := range agents.All() {
		if on, set := w.Agents[a.Name]; set {
			m[a.ClientSetting()] = on
		}
	}
	return json.Marshal(m)
}
