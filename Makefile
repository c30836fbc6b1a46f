# compactd — see README.md. `make demo` and `make test` are the quick start.
GO      ?= go
BIN     := bin/compactd
GOFLAGS ?=

.PHONY: build demo test check unit bench fuzz stress e2e clean

build:
	$(GO) build -o $(BIN) ./cmd/compactd

check:
	@test -z "$$(gofmt -l cmd daemon lsp compaction)" || (gofmt -l cmd daemon lsp compaction; echo "gofmt: files above need formatting"; exit 1)
	$(GO) vet ./...
	$(GO) test ./...

unit:
	$(GO) test -race ./...

test: check unit

clean:
	rm -rf bin
