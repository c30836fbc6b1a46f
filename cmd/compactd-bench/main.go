// Command compactd-bench is `make bench`: it measures every performance
// figure compactd promises and prints them in one Markdown table, each
// beside its anchor (the bar it must meet) with a verdict.
//
//	go run ./cmd/compactd-bench [-quick] [-only NAME]
//
// Each section lives in its own file and registers itself from init with
// register(section{...}); a section returns rows. Rows that have a bar
// (ratios, equalities) print first, raw timings after.
//
// Its bars are Linux figures and it runs on Linux: each command's peak RSS
// comes from rusage through a launcher that reports on file descriptor 3.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"time"
)

// A row is one measured figure.
type row struct {
	Section string
	Name    string
	Value   string
	// Anchor is the bar the figure is held to ("≤ 1.5", "equal"); "" for
	// figures shown for context only.
	Anchor string
	// Pass is the verdict against Anchor; ignored when Anchor is "".
	Pass bool
}

func (r row) verdict() string {
	switch {
	case r.Anchor == "":
		return "info"
	case r.Pass:
		return "pass"
	default:
		return "FAIL"
	}
}

// config is what every section gets.
type config struct {
	// Quick shrinks the workloads so the whole run stays near two minutes.
	Quick bool
	// TempDir is a directory the section may write to; removed afterwards.
	TempDir string
	// Log receives progress lines (stderr).
	Log io.Writer
}

func (c *config) logf(format string, args ...any) {
	fmt.Fprintf(c.Log, "bench: "+format+"\n", args...)
}

// A section measures one area.
type section struct {
	Name    string
	Summary string
	Run     func(ctx context.Context, cfg *config) ([]row, error)
}

var sections []section

func register(s section) { sections = append(sections, s) }

func main() {
	if len(os.Args) > 2 && os.Args[1] == launchArg {
		os.Exit(launch(os.Args[2:]))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("compactd-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	quick := fs.Bool("quick", false, "smaller workloads (about two minutes in all)")
	only := fs.String("only", "", "run only the named sections (comma-separated)")
	shapesOut := fs.String("write-shapes", "", "write the shapes section's sessions (100 MB each, 20 MB with -quick) into this folder, to profile compactd on them, and exit")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *shapesOut != "" {
		if err := writeShapes(*shapesOut, *quick, stderr); err != nil {
			fmt.Fprintf(stderr, "compactd-bench: %v\n", err)
			return 1
		}
		return 0
	}
	selected := sections
	if *only != "" {
		selected = nil
		for _, name := range strings.Split(*only, ",") {
			i := slices.IndexFunc(sections, func(s section) bool { return s.Name == strings.TrimSpace(name) })
			if i < 0 {
				fmt.Fprintf(stderr, "compactd-bench: no section %q (have %s)\n", name, sectionNames())
				return 2
			}
			selected = append(selected, sections[i])
		}
	}
	tmp, err := os.MkdirTemp("", "compactd-bench-")
	if err != nil {
		fmt.Fprintf(stderr, "compactd-bench: %v\n", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	cfg := &config{Quick: *quick, TempDir: tmp, Log: stderr}
	var rows []row
	failed := false
	for _, s := range selected {
		start := time.Now()
		cfg.logf("%s: %s", s.Name, s.Summary)
		got, err := s.Run(ctx, cfg)
		if err != nil {
			fmt.Fprintf(stderr, "compactd-bench: section %s: %v\n", s.Name, err)
			failed = true
			rows = append(rows, row{Section: s.Name, Name: "section failed: " + err.Error(), Value: "—", Anchor: "runs", Pass: false})
			continue
		}
		for i := range got {
			got[i].Section = s.Name
		}
		rows = append(rows, got...)
		cfg.logf("%s done in %v", s.Name, time.Since(start).Round(time.Millisecond))
	}
	writeTable(stdout, rows)
	for _, r := range rows {
		if r.Anchor != "" && !r.Pass {
			failed = true
		}
	}
	if failed {
		return 1
	}
	return 0
}

func sectionNames() string {
	names := make([]string, len(sections))
	for i, s := range sections {
		names[i] = s.Name
	}
	return strings.Join(names, ", ")
}

// writeTable prints rows as a Markdown table, rows with a bar first
// (keeping each group's order), then a verdict summary.
func writeTable(w io.Writer, rows []row) {
	ordered := slices.Clone(rows)
	slices.SortStableFunc(ordered, func(a, b row) int {
		return boolRank(a.Anchor == "") - boolRank(b.Anchor == "")
	})
	fmt.Fprintln(w, "| Section | Figure | Value | Anchor | Verdict |")
	fmt.Fprintln(w, "|---|---|---:|---|---|")
	pass, fail := 0, 0
	for _, r := range ordered {
		anchor := r.Anchor
		if anchor == "" {
			anchor = "—"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", r.Section, escapeCell(r.Name), escapeCell(r.Value), escapeCell(anchor), r.verdict())
		switch r.verdict() {
		case "pass":
			pass++
		case "FAIL":
			fail++
		}
	}
	fmt.Fprintf(w, "\n%d pass, %d fail, %d informational\n", pass, fail, len(rows)-pass-fail)
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

func escapeCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// median returns the median of durations (which it sorts).
func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	n := len(d)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return d[n/2]
	}
	return (d[n/2-1] + d[n/2]) / 2
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }
