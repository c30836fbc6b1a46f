# compactd — see README.md. Quick start: `make demo`, `make test`.
GO        ?= go
BIN       := bin/compactd
# Where end-to-end tools (code-server, newer Neovim, npm trees) are cached.
E2E_HOME  ?= $(CURDIR)/.cache/e2e
# Fuzz time per target: short in `make test`, long in `make fuzz`.
FUZZTIME  ?= 10s
export E2E_HOME COMPACTD_E2E_HOME=$(E2E_HOME)
# One build configuration for everything but -race and fuzzing: the one compactd ships in (CGO
# off, -trimpath). Go's build cache keys on both, so lint's vet, cross, the unit and Wine suites,
# the binaries tests build, dist and the e2e binaries all reuse one compile of each package per
# platform instead of compiling modernc.org/sqlite and the rest once more per setting.
export CGO_ENABLED ?= 0
GOFLAGS := $(filter-out -trimpath,$(GOFLAGS)) -trimpath
export GOFLAGS

.PHONY: build demo test setup check lint cross wine wine-setup unit race fuzz fuzz-short stress bench bench-quick e2e e2e-setup e2e-agents dist clean

build:
	$(GO) build -o $(BIN) ./cmd/compactd

## demo: build, then run gauge, dry run, compaction, history, diff and restore
## over a copy of the bundled example workspace.
demo: build
	@bash cmd/compactd/demo.sh $(BIN)

## check: the fast loop — formatting, vet, unit tests (-short: fewer crash trials, no 100 MB runs).
check: lint
	$(GO) test -short -count=1 ./...

# The platforms compactd ships on (make dist builds each).
PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64

## cross: every package, tests included, builds and vets for each platform (CGO off, as shipped;
## -trimpath, as make dist builds, so dist reuses what this compiled, and so do lint on
## linux/amd64 and the Wine suite on windows/amd64).
cross:
	@for p in $(PLATFORMS); do \
	  echo "cross: $$p"; \
	  GOOS=$${p%/*} GOARCH=$${p#*/} CGO_ENABLED=0 $(GO) build -trimpath ./... && \
	  GOOS=$${p%/*} GOARCH=$${p#*/} CGO_ENABLED=0 $(GO) vet -trimpath ./... || exit 1; \
	done

wine-setup:
	@bash .ci/wine/install.sh

## wine: the Go suite for windows/amd64 under Wine 10 (go test -exec, -short; skips listed with
## their reasons), then the Windows CLI end to end: gauge, dry run, compact, compact --in-place
## while another process holds the transcript open, history, diff, restore, doctor.
wine: wine-setup
	@bash .ci/wine/test.sh
	@bash .ci/wine/cli_e2e.sh

## lint: gofmt, go vet, and no merge conflict markers left in any tracked file (inside a string
## — a webview's script, a Lua or shell heredoc — they compile; Aider's SEARCH/REPLACE blocks in
## testdata are transcripts, not conflicts).
lint:
	@files="$$(gofmt -l cmd daemon lsp compaction)"; \
	  if [ -n "$$files" ]; then echo "gofmt: these files need formatting:"; echo "$$files"; exit 1; fi
	@if git rev-parse --git-dir >/dev/null 2>&1 && \
	  git grep -nE '^(<<<<<<<|>>>>>>>)( |$$)|^=======$$' -- . ':(exclude)**/testdata/**' | grep -vE '^[^:]+:[0-9]+:(<<<<<<< SEARCH|>>>>>>> REPLACE)$$'; then \
	  echo "lint: merge conflict markers (above) left in tracked files"; exit 1; fi
	$(GO) vet ./...

## unit: the whole Go suite once, in full (50 kill -9 crash trials, concurrent appends, 1 GB frames).
unit:
	$(GO) test -count=1 -timeout 30m ./...

## race: the suite under the race detector (-short keeps it within CI's time).
race:
	CGO_ENABLED=1 $(GO) test -race -short -count=1 -timeout 30m ./...

## test: everything — CI runs this on a clean clone (.ci/test.sh): lint, cross, unit, race, wine,
## fuzz-short, dist, e2e, each timed, with the installs (make setup) in the background from the
## start; every stage runs even after a failure, and a summary ends it.
## (the VS Code e2e runs the linux-x64 VSIX that make dist packaged, its bundled binary serving)
test:
	@bash .ci/test.sh

## setup: every install make test needs (Debian packages, Wine, code-server, Neovim, the agents,
## the extension's npm tree); each target also installs what it needs on its own.
setup:
	@bash .ci/setup.sh

fuzz-short:
	@bash .ci/fuzz.sh $(FUZZTIME)

## fuzz: every codec's fuzz target for 10 minutes.
fuzz:
	@bash .ci/fuzz.sh 10m

## stress: 1,000 kill -9 trials and 1,000 compactions under a concurrent appender; the
## reliability suite (chaos_test.go, *_stress_test.go) at length: damaged and unusable
## stores, pipes, loops, sparse giants, a 600 MB line, a million lines, interrupts, two
## servers and CLIs on one store with an appender, SIGKILL of every writing command;
## then the two-servers-one-store scenario (100 rounds under as many busy processes as
## cores) once more with the servers built with the race detector.
## `make unit` runs each of these once (the short form).
stress:
	COMPACTD_STRESS=1 $(GO) test -v -count=1 -timeout 150m -run 'Crash|ConcurrentAppend|Stress|Chaos|DamagedStore|StoreUnavailable|OddFiles|Recover' ./daemon/... ./cmd/... ./lsp/...
	COMPACTD_STRESS=1 COMPACTD_SERVE_RACE=1 CGO_ENABLED=1 $(GO) test -race -v -count=1 -timeout 150m -run 'TestStressTwoServersOneStore' ./cmd/compactd/

## bench: every performance figure beside its bar (see README "Performance").
bench: build
	$(GO) run ./cmd/compactd-bench

bench-quick: build
	$(GO) run ./cmd/compactd-bench -quick

e2e-setup:
	@bash editors/e2e/setup/install.sh

## e2e: real clients — Node LSP client, headless and TUI Neovim (0.7.2 and 0.12), VS Code via code-server —
## and the real agents (e2e-agents).
e2e: build e2e-setup
	@bash .ci/e2e.sh $(CURDIR)/$(BIN)

## e2e-agents: Claude Code, Codex and Gemini CLI (pinned, from npm) work against a scripted model server
## on 127.0.0.1 while compactd serve watches; compactd gauges, compacts and restores their sessions and
## the agents resume every fork. Installs the agents into $(E2E_HOME)/agents first.
e2e-agents: build
	@bash editors/e2e/agents/run.sh $(CURDIR)/$(BIN)

## dist: the release — six binaries (linux, darwin, windows × amd64, arm64; CGO off, version
## stamped), their archives, six platform VSIXes each with its own binary, SHA256SUMS, in
## bin/dist; then checks each holds a binary of its own OS and architecture.
dist:
	@bash .ci/dist.sh

clean:
	rm -rf bin
