//go:build compactd_tune

package salience

import (
	"os"
	"strconv"
	"sync"
)

var (
	knobMu    sync.Mutex
	knobCache = map[string]float64{}
)

// knob is a tuning hook (temporary): COMPACTD_KNOB_<name> overrides def.
func knob(name string, def float64) float64 {
	knobMu.Lock()
	defer knobMu.Unlock()
	if v, ok := knobCache[name]; ok {
		return v
	}
	v := def
	if x, err := strconv.ParseFloat(os.Getenv("COMPACTD_KNOB_"+name), 64); err == nil {
		v = x
	}
	knobCache[name] = v
	return v
}

// ResetKnobs forgets the knobs read (temporary, for sweeps).
func ResetKnobs() {
	knobMu.Lock()
	knobCache = map[string]float64{}
	knobMu.Unlock()
}
