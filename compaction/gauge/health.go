package gauge

import (
	"fmt"
	"time"
)

// The loop users report (openai/codex#35669, #35032): an agent that
// compacts again and again because what it keeps refills the window. It
// shows as many compactions close together, or a window still mostly full
// right after one.
const (
	LoopCompactions = 3
	LoopWithin      = 15 * time.Minute
	LoopFillAfter   = 0.70
)

// A CompactionPoint is one of the agent's own compactions as compaction
// health sees it.
type CompactionPoint struct {
	At time.Time
	// Before and After are the context's size just before and right after
	// it (0 when unknown).
	Before, After int
}

// Health is how the agent's own compactions of one session went.
type Health struct {
	Compactions int `json:"compactions"`
	// FillAfter is each compaction's fill right after it (After over the
	// window; 0 when unknown), in order.
	FillAfter []float64 `json:"fillAfter"`
	// IntervalSeconds are the times between consecutive compactions.
	IntervalSeconds []int64 `json:"intervalSeconds"`
	// Loop: LoopCompactions or more within LoopWithin, or a compaction that
	// left the window LoopFillAfter full or more. Warning says which.
	Loop    bool   `json:"loop"`
	Warning string `json:"warning,omitempty"`
}

// HealthOf judges a session's compactions, oldest first, in a window of
// window tokens.
func HealthOf(points []CompactionPoint, window int) Health {
	h := Health{Compactions: len(points), FillAfter: make([]float64, len(points)), IntervalSeconds: []int64{}}
	worst, worstAt := 0.0, -1
	for i, p := range points {
		if window > 0 && p.After > 0 {
			h.FillAfter[i] = float64(p.After) / float64(window)
			if h.FillAfter[i] > worst {
				worst, worstAt = h.FillAfter[i], i
			}
		}
		if i > 0 && !p.At.IsZero() && !points[i-1].At.IsZero() {
			h.IntervalSeconds = append(h.IntervalSeconds, int64(p.At.Sub(points[i-1].At).Seconds()))
		}
	}
	// The densest run: the most compactions within LoopWithin of each other.
	most, span := 0, time.Duration(0)
	for i := range points {
		if points[i].At.IsZero() {
			continue
		}
		j := i
		for j+1 < len(points) && !points[j+1].At.IsZero() && points[j+1].At.Sub(points[i].At) <= LoopWithin {
			j++
		}
		if n := j - i + 1; n > most {
			most, span = n, points[j].At.Sub(points[i].At)
		}
	}
	switch {
	case most >= LoopCompactions:
		h.Loop = true
		h.Warning = fmt.Sprintf("the agent compacted %d times within %s (%d or more within %d minutes is a loop): what it keeps refills the window", most, roughly(span), LoopCompactions, int(LoopWithin.Minutes()))
	case worst >= LoopFillAfter:
		h.Loop = true
		h.Warning = fmt.Sprintf("right after its compaction a%d the window was still %d %% full (%d %% or more is a loop in the making): what it keeps refills the window", worstAt+1, int(100*worst+0.5), int(100*LoopFillAfter))
	}
	if h.Loop && worst > 0 && most >= LoopCompactions {
		h.Warning += fmt.Sprintf("; the fullest it left the window was %d %%", int(100*worst+0.5))
	}
	return h
}

// roughly renders a span: "3 s", "4 min".
func roughly(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%d s", int(d.Seconds()+0.5))
	}
	return fmt.Sprintf("%d min", int(d.Minutes()+0.5))
}
