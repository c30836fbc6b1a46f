package config

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/compactd/compactd/compaction/strategy"
)

// TestRejectedLayerLeavesNothingBehind: a layer that does not validate is
// left out whole — none of its keys reach the configuration, whichever
// of its tables the earlier layers also set — and the error names it.
// Each case is the user file, the workspace file and the editor's
// settings; want are the tools, models, prices and watch switches the
// result holds.
func TestRejectedLayerLeavesNothingBehind(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		user, workspace      string
		client               string
		wantTools            map[string]strategy.ToolHint
		wantModels           []string
		wantPrices           []string
		wantWatchOff         []string
		wantErr, wantSources []string
	}{
		{
			name:      "the workspace file's new tool, beside an unknown strategy",
			user:      "[tools.Read]\nresponse = \"keep\"\n",
			workspace: "[compact]\nstrategies = [\"no-such-strategy\"]\n[tools.Bash]\nresponse = \"strip\"\n",
			wantTools: map[string]strategy.ToolHint{"Read": {Response: "keep"}},
			wantErr:   []string{"no-such-strategy"}, wantSources: []string{"user"},
		},
		{
			name:      "the workspace file's field of a tool the user file set",
			user:      "[tools.Read]\nresponse = \"keep\"\n",
			workspace: "[tools.Read]\nrequest = \"strip\"\n[gauge]\nwarn = 2\n",
			wantTools: map[string]strategy.ToolHint{"Read": {Response: "keep"}},
			wantErr:   []string{"gauge.warn"}, wantSources: []string{"user"},
		},
		{
			name:       "the workspace file's model and price",
			user:       "[models.\"mine\"]\ncontext_window = 32768\n",
			workspace:  "[models.\"theirs\"]\ncontext_window = 8192\n[prices.\"theirs\"]\ninput = 1\noutput = 2\n[log]\nlevel = \"loud\"\n",
			wantModels: []string{"mine"}, wantErr: []string{"log.level"}, wantSources: []string{"user"},
		},
		{
			name:         "the workspace file's watch switch",
			workspace:    "[watch]\nclaude = false\n[compact]\nkeep_last = -1\n",
			wantErr:      []string{"keep_last"},
			wantTools:    map[string]strategy.ToolHint{},
			wantSources:  []string{},
			wantWatchOff: nil,
		},
		{
			name:        "the editor's tool and switch, after both files applied",
			user:        "[tools.Read]\nresponse = \"keep\"\n",
			workspace:   "[tools.Grep]\nresponse = \"strip\"\n[watch]\ncodex = false\n",
			client:      `{"tools": {"Bash": {"response": "remove"}, "Read": {"request": "strip"}}, "watch": {"claude": false}, "gauge": {"critical": 0.1}}`,
			wantTools:   map[string]strategy.ToolHint{"Read": {Response: "keep"}, "Grep": {Response: "strip"}},
			wantErr:     []string{"LSP settings"},
			wantSources: []string{"user", "workspace"}, wantWatchOff: []string{"codex"},
		},
		{
			name:        "every layer valid: each sets only the fields it names",
			user:        "[tools.Read]\nresponse = \"keep\"\n",
			workspace:   "[tools.Read]\nrequest = \"strip\"\n[tools.Bash]\nresponse = \"strip\"\n",
			client:      `{"tools": {"Bash": {"request": "remove"}}}`,
			wantTools:   map[string]strategy.ToolHint{"Read": {Request: "strip", Response: "keep"}, "Bash": {Request: "remove", Response: "strip"}},
			wantSources: []string{"user", "workspace", "LSP settings"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			user, ws := isolate(t)
			if tc.user != "" {
				write(t, user, tc.user)
			}
			file := ""
			if tc.workspace != "" {
				file = filepath.Join(ws, WorkspaceFile)
				write(t, file, tc.workspace)
			}
			c, err := Resolve(file, Layers{Files: true, Client: json.RawMessage(tc.client)})
			for _, want := range tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("error %v does not name %q", err, want)
				}
			}
			if len(tc.wantErr) == 0 && err != nil {
				t.Errorf("unexpected error: %v", err)
			}
			if len(c.Tools) != 0 || len(tc.wantTools) != 0 {
				if !reflect.DeepEqual(c.Tools, tc.wantTools) {
					t.Errorf("tools = %+v, want %+v", c.Tools, tc.wantTools)
				}
			}
			var models, prices []string
			for k := range c.Models {
				models = append(models, k)
			}
			for k := range c.Prices {
				prices = append(prices, k)
			}
			slices.Sort(models)
			slices.Sort(prices)
			if !slices.Equal(models, tc.wantModels) || !slices.Equal(prices, tc.wantPrices) {
				t.Errorf("models %v, prices %v; want %v, %v", models, prices, tc.wantModels, tc.wantPrices)
			}
			var off []string
			for name, on := range c.Watch.Agents {
				if !on {
					off = append(off, name)
				}
			}
			slices.Sort(off)
			if !slices.Equal(off, tc.wantWatchOff) {
				t.Errorf("agents switched off %v, want %v", off, tc.wantWatchOff)
			}
			var sources []string
			for _, s := range c.Sources {
				switch {
				case s == user:
					sources = append(sources, "user")
				case s == file:
					sources = append(sources, "workspace")
				default:
					sources = append(sources, s)
				}
			}
			if len(sources) != 0 || len(tc.wantSources) != 0 {
				if !slices.Equal(sources, tc.wantSources) {
					t.Errorf("sources %v, want %v", sources, tc.wantSources)
				}
			}
		})
	}
}
