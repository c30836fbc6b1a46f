package sessiongen

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// Options shape a generated session.
type Options struct {
	// Seed makes the session reproducible: equal Options, equal bytes.
	Seed uint64
	// Turns is the number of human prompts; 0 means 12 unless TargetBytes decides.
	Turns int
	// TargetBytes, when > 0, keeps adding turns until the output is at
	// least this large (Turns is then a minimum).
	TargetBytes int
	// Cwd is the project directory; "" means /home/dev/src/inventory-service.
	Cwd string
	// Model is the model name; "" means the agent's usual default.
	Model string
	// SessionID overrides the generated session id.
	SessionID string
}

func (o Options) withDefaults(defaultModel string) Options {
	if o.Cwd == "" {
		o.Cwd = "/home/dev/src/inventory-service"
	}
	if o.Model == "" {
		o.Model = defaultModel
	}
	if o.Turns <= 0 && o.TargetBytes <= 0 {
		o.Turns = 12
	}
	return o
}

var startTime = time.Date(2025, 11, 17, 9, 30, 0, 0, time.UTC)

// project is the imaginary repository the agent works on: its files have
// stable contents so re-reads of a file return the same text, like they do
// in real sessions, and edits bump a file's revision.
type project struct {
	rng      *rand.Rand
	cwd      string
	files    []string
	revision map[string]int
	now      time.Time
	ids      int
}

var sourceFiles = []string{
	"cmd/server/main.go",
	"internal/api/handler.go",
	"internal/api/handler_test.go",
	"internal/api/middleware.go",
	"internal/store/postgres.go",
	"internal/store/postgres_test.go",
	"internal/store/migrations/0003_add_sku_index.sql",
	"internal/inventory/reserve.go",
	"internal/inventory/reserve_test.go",
	"internal/inventory/pricing.go",
	"internal/config/config.go",
	"pkg/retry/backoff.go",
	"web/src/components/StockTable.tsx",
	"web/src/api/client.ts",
	"web/package.json",
	"Makefile",
	"go.mod",
	"README.md",
	"docker-compose.yml",
	".github/workflows/ci.yml",
}

var identifiers = []string{
	"ReserveStock", "ReleaseHold", "skuIndex", "parseRequest", "withTimeout", "ErrOutOfStock",
	"PriceQuote", "applyDiscount", "warehouseID", "reservationTTL", "NewHandler", "listItems",
	"txRetry", "backoffJitter", "scanRow", "validateSKU", "metricsMiddleware", "loadConfig",
}

func newProject(seed uint64, cwd string) *project {
	return &project{
		rng:      rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		cwd:      cwd,
		files:    sourceFiles,
		revision: map[string]int{},
		now:      startTime,
	}
}

func (p *project) pick(list []string) string { return list[p.rng.IntN(len(list))] }

// tick advances the clock a little and returns the timestamp Claude and
// Codex write (millisecond RFC 3339, UTC).
func (p *project) tick(maxMillis int) string {
	p.now = p.now.Add(time.Duration(50+p.rng.IntN(maxMillis)) * time.Millisecond)
	return p.now.Format("2006-01-02T15:04:05.000Z")
}

// uuid returns a random-looking v4 uuid from the session's rng.
func (p *project) uuid() string {
	a, b := p.rng.Uint64(), p.rng.Uint64()
	a = a&^0xf000 | 0x4000
	b = b&^(0xc<<60) | (0x8 << 60)
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", a>>32, (a>>16)&0xffff, a&0xffff, b>>48, b&0xffffffffffff)
}

// token returns an id like Anthropic's msg_/toolu_/req_ ids.
func (p *project) token(prefix string, n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	var b strings.Builder
	b.WriteString(prefix)
	for range n {
		b.WriteByte(alphabet[p.rng.IntN(len(alphabet))])
	}
	return b.String()
}

// blob returns n bytes of base64 text, for signatures and encrypted content.
func (p *project) blob(n int) string {
	raw := make([]byte, n*3/4+3)
	for i := range raw {
		raw[i] = byte(p.rng.Uint32())
	}
	s := base64.StdEncoding.EncodeToString(raw)
	return s[:n]
}

func (p *project) abs(rel string) string { return p.cwd + "/" + rel }

// fileText renders a source file. The content depends only on the path
// and its revision, so repeated reads return identical text.
func (p *project) fileText(rel string) string {
	rev := p.revision[rel]
	h := uint64(len(rel))
	for _, c := range rel {
		h = h*131 + uint64(c)
	}
	r := rand.New(rand.NewPCG(h, uint64(rev)))
	lines := 60 + r.IntN(180)
	var b strings.Builder
	pkg := rel
	if i := strings.LastIndexByte(pkg, '/'); i >= 0 {
		pkg = pkg[:i]
		if j := strings.LastIndexByte(pkg, '/'); j >= 0 {
			pkg = pkg[j+1:]
		}
	}
	fmt.Fprintf(&b, "package %s\n\n", pkg)
	for i := 2; i < lines; i++ {
		id := identifiers[r.IntN(len(identifiers))]
		switch r.IntN(7) {
		case 0:
			fmt.Fprintf(&b, "func %s(ctx context.Context, id string) error {\n", id)
		case 1:
			fmt.Fprintf(&b, "\tif err := %s(ctx, req.ID); err != nil {\n\t\treturn fmt.Errorf(\"%s %%s: %%w\", req.ID, err)\n\t}\n", id, strings.ToLower(id))
			i += 2
		case 2:
			fmt.Fprintf(&b, "\t// %s must run inside the reservation transaction (rev %d).\n", id, rev)
		case 3:
			b.WriteString("}\n\n")
			i++
		case 4:
			fmt.Fprintf(&b, "\tqty := item.Quantity - %d\n", r.IntN(50))
		case 5:
			fmt.Fprintf(&b, "\tlog.Printf(\"%s: warehouse=%%s sku=%%s\", w, sku)\n", id)
		default:
			fmt.Fprintf(&b, "\treturn %s(ctx, tx, item)\n", id)
		}
	}
	return b.String()
}

// numbered renders lines [from, to) of text the way Claude's Read tool
// shows them: right-aligned line numbers and an arrow.
func numbered(text string, from, to int) (out string, total int) {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	total = len(lines)
	if to <= 0 || to > total {
		to = total
	}
	if from < 1 {
		from = 1
	}
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%6d→%s\n", i, lines[i-1])
	}
	return b.String(), total
}

// A shellRun is a command with its output, exit code and whether the
// output reports an error the agent fixes later.
type shellRun struct {
	Command, Description string
	Stdout, Stderr       string
	ExitCode             int
}

func (p *project) testRun(failing bool) shellRun {
	pkg := p.pick([]string{"./internal/api/...", "./internal/inventory/...", "./internal/store/...", "./..."})
	var out bytes.Buffer
	n := 20 + p.rng.IntN(120)
	for i := 0; i < n; i++ {
		name := p.pick(identifiers)
		fmt.Fprintf(&out, "=== RUN   Test%s/case_%d\n--- PASS: Test%s/case_%d (0.%02ds)\n", name, i, name, i, p.rng.IntN(99))
	}
	if failing {
		file := p.pick([]string{"internal/inventory/reserve.go", "internal/api/handler.go", "internal/store/postgres.go"})
		line := 20 + p.rng.IntN(200)
		id := p.pick(identifiers)
		fmt.Fprintf(&out, "--- FAIL: Test%s (0.04s)\n    %s_test.go:%d: %s() = ErrOutOfStock, want nil\nFAIL\n", id, strings.TrimSuffix(file, ".go"), line, id)
		fmt.Fprintf(&out, "# github.com/acme/inventory-service/%s\n%s:%d:%d: undefined: %s\nFAIL\tgithub.com/acme/inventory-service/%s [build failed]\n", file[:strings.LastIndexByte(file, '/')], file, line, 5+p.rng.IntN(30), id, file[:strings.LastIndexByte(file, '/')])
		return shellRun{Command: "go test " + pkg, Description: "Run the package tests", Stdout: out.String(), ExitCode: 1}
	}
	fmt.Fprintf(&out, "PASS\nok  \tgithub.com/acme/inventory-service/%s\t%d.%03ds\n", strings.TrimSuffix(strings.TrimPrefix(pkg, "./"), "/..."), p.rng.IntN(4), p.rng.IntN(1000))
	return shellRun{Command: "go test " + pkg, Description: "Run the package tests", Stdout: out.String()}
}

func (p *project) shell() shellRun {
	switch p.rng.IntN(6) {
	case 0:
		return p.testRun(p.rng.IntN(3) == 0)
	case 1:
		var out strings.Builder
		for i := 0; i < 5+p.rng.IntN(10); i++ {
			fmt.Fprintf(&out, " M %s\n", p.pick(p.files))
		}
		return shellRun{Command: "git status --short", Description: "Show working tree status", Stdout: out.String()}
	case 2:
		var out strings.Builder
		for i := 0; i < 200+p.rng.IntN(800); i++ {
			fmt.Fprintf(&out, "%s INFO reserve: sku=SKU-%05d warehouse=wh-%d qty=%d latency=%dms\n", p.now.Add(time.Duration(i)*time.Second).Format(time.RFC3339), p.rng.IntN(99999), p.rng.IntN(9), p.rng.IntN(40), p.rng.IntN(900))
		}
		return shellRun{Command: "docker compose logs --tail=1000 api", Description: "Show recent API logs", Stdout: out.String()}
	case 3:
		return shellRun{Command: "go build ./...", Description: "Build all packages", Stdout: ""}
	case 4:
		return shellRun{Command: "npm --prefix web run lint", Description: "Lint the web client", Stdout: "> web@0.4.1 lint\n> eslint src --ext .ts,.tsx\n\n", Stderr: "/home/dev/src/inventory-service/web/src/api/client.ts\n  42:7  error  'retryCount' is assigned a value but never used  @typescript-eslint/no-unused-vars\n\n✖ 1 problem (1 error, 0 warnings)\n", ExitCode: 1}
	default:
		var out strings.Builder
		for i := 0; i < 40+p.rng.IntN(200); i++ {
			fmt.Fprintf(&out, "%s:%d:%s\n", p.pick(p.files), 1+p.rng.IntN(300), p.pick(identifiers))
		}
		return shellRun{Command: "grep -rn " + p.pick(identifiers) + " --include=*.go .", Description: "Find usages", Stdout: out.String()}
	}
}

var prompts = []string{
	"The reservation endpoint returns 500 when two requests race for the last unit. Find out why and fix it.",
	"Add a SKU index migration and make sure the store tests still pass.",
	"You must never change the public API of internal/api without asking me first. Now refactor the handler to use the new store interface.",
	"Always run the full test suite before you say something is done.",
	"Why does the pricing code apply the discount twice? Show me the lines.",
	"Add retries with jitter to the postgres calls, but never retry inside an open transaction.",
	"The web client's StockTable flickers on refresh; look at client.ts and fix the polling.",
	"Write table-driven tests for ReserveStock covering out-of-stock and expired holds.",
	"Update README.md with the new environment variables. Keep it short.",
	"CI is red on the lint step, please fix it.",
	"You must keep the migrations backwards compatible. Add the warehouse_id column.",
	"Explain how reservationTTL interacts with the release job.",
}

var replies = []string{
	"I found the race: the stock check and the decrement run in separate statements, so two requests can both pass the check. I moved both into one `UPDATE ... WHERE quantity >= $1` and the handler now maps zero affected rows to ErrOutOfStock.",
	"The migration is in place and the store tests pass. The index is created concurrently so it will not lock the table in production.",
	"Done. The handler now depends on the `Store` interface; the public API of internal/api is unchanged.",
	"All tests pass (`go test ./...`). Summary of the change is above.",
	"The discount is applied once in `PriceQuote` and again in `applyDiscount` when the coupon path is taken. I removed the second application and added a test.",
	"Postgres calls now retry with exponential backoff and full jitter, and the retry wrapper refuses to run inside a transaction.",
}

// thought returns a plausible thinking paragraph.
func (p *project) thought() string {
	file := p.pick(p.files)
	return fmt.Sprintf("The user wants this handled carefully. I should read %s first, then check where %s is called from. "+
		"If the tests fail I need to look at the exact error before editing anything; the CLAUDE.md says to always run the tests.", file, p.pick(identifiers))
}

// onePixelPNG is a tiny valid PNG (a 1x1 image header with a bigger
// declared size), enough for image dimension detection.
func pngHeader(w, h int) []byte {
	b := []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'}
	b = append(b, byte(w>>24), byte(w>>16), byte(w>>8), byte(w), byte(h>>24), byte(h>>16), byte(h>>8), byte(h), 8, 6, 0, 0, 0)
	b = append(b, 0, 0, 0, 0) // CRC, not checked by readers of the header
	return append(b, make([]byte, 200)...)
}

func base64Std(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
