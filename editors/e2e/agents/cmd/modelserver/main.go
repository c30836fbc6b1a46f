// Command modelserver runs the real-agent suite's scripted model endpoint on
// 127.0.0.1, for running an agent against it by hand:
//
//	go run ./editors/e2e/agents/cmd/modelserver -log /tmp/requests -script script.json
//
// It prints its URL, then serves until interrupted. The script is JSON:
// {"TASK": {"Steps": [[{"Kind": "read", "Path": "/abs/file"}]], "Answer": "…"}}; a
// prompt names its task with [task:TASK]. Without -script every request is
// answered "OK.".
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/compactd/compactd/editors/e2e/agents/modelserver"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "loopback address to listen on")
	logDir := flag.String("log", "", "folder receiving every request body and reply")
	scriptPath := flag.String("script", "", "JSON file mapping task names to turns")
	latency := flag.Duration("latency", 0, "delay before each reply")
	flag.Parse()
	script := &modelserver.Script{}
	if *scriptPath != "" {
		b, err := os.ReadFile(*scriptPath)
		if err != nil {
			fmt.Fprintln(os.Stderr, "modelserver: read the script:", err)
			os.Exit(1)
		}
		if err := json.Unmarshal(b, &script.Turns); err != nil {
			fmt.Fprintf(os.Stderr, "modelserver: %s is not a script (JSON object of task name to turn): %v\n", *scriptPath, err)
			os.Exit(1)
		}
	}
	srv, err := modelserver.StartAt(*addr, modelserver.Options{Script: script, LogDir: *logDir, Latency: *latency})
	if err != nil {
		fmt.Fprintln(os.Stderr, "modelserver:", err)
		os.Exit(1)
	}
	fmt.Println(srv.URL())
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	printed := map[int]bool{}
	for {
		changed := srv.Changed()
		// Print every finished exchange once (several may finish together).
		for _, e := range srv.Exchanges() {
			if e.Finished.IsZero() || printed[e.Seq] {
				continue
			}
			printed[e.Seq] = true
			what := fmt.Sprintf("task=%q step=%d", e.Task, e.Step)
			if e.Summary {
				what = "summary"
			}
			fmt.Fprintf(os.Stderr, "%s #%d %s %s %s -> %d %s context=%d %s\n", e.Finished.Format("15:04:05.000"),
				e.Seq, e.API, e.Method, e.Path, e.Status, what, e.Usage.Context(), e.Rejected)
		}
		select {
		case <-stop:
			srv.Close()
			return
		case <-changed:
		}
	}
}
