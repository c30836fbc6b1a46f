//go:build compactd_tune

package strategy

import (
	"os"
	"strconv"
)

// knob is a tuning hook (temporary): COMPACTD_KNOB_<name> overrides def.
func knob(name string, def float64) float64 {
	if v, err := strconv.ParseFloat(os.Getenv("COMPACTD_KNOB_"+name), 64); err == nil {
		return v
	}
	return def
}
