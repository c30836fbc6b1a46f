//go:build !compactd_tune

package summarize

// knob is a weight's name and value; a build tagged compactd_tune reads
// COMPACTD_KNOB_<name> instead, to sweep weights on the tuning half.
func knob(_ string, def float64) float64 { return def }
