package store

import (
	"bytes"
	"compress/flate"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// How a blob's data is compressed (blobs.codec).
const (
	codecFlate = 0 // schema 2's segments
	codecZstd  = 1
)

var (
	zstdEncoder = sync.OnceValue(func() *zstd.Encoder {
		e, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
		return e
	})
	zstdDecoder = sync.OnceValue(func() *zstd.Decoder {
		d, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
		return d
	})
)

func compress(b []byte) []byte {
	return zstdEncoder().EncodeAll(b, make([]byte, 0, len(b)/2+64))
}

var errCorruptBlob = errors.New("corrupt blob")

// inflate decompresses a blob's data, which must come to size bytes.
func inflate(data []byte, codec int, size int64) ([]byte, error) {
	var out []byte
	switch codec {
	case codecZstd:
		var err error
		if out, err = zstdDecoder().DecodeAll(data, make([]byte, 0, size)); err != nil {
			return nil, errCorruptBlob
		}
	case codecFlate:
		var buf bytes.Buffer
		buf.Grow(int(size))
		if _, err := buf.ReadFrom(flate.NewReader(bytes.NewReader(data))); err != nil {
			return nil, errCorruptBlob
		}
		out = buf.Bytes()
	default:
		return nil, errCorruptBlob
	}
	if int64(len(out)) != size {
		return nil, errCorruptBlob
	}
	return out, nil
}

// patchChunk is how many records' patches one stored chunk holds: versions
// sharing a prefix of records (a source that grew) share its chunks.
const patchChunk = 512

// A stored content is the list of its records' bodies (blob ids, in
// order) and, when any record was normalized, the list of its patch
// chunks (blob ids; chunk k holds the patches of records [k·patchChunk,
// (k+1)·patchChunk), each as a uvarint length and the patch).

func encodePatches(ps [][]byte) []byte {
	n := 0
	for _, p := range ps {
		n += binary.MaxVarintLen32 + len(p)
	}
	b := make([]byte, 0, n)
	for _, p := range ps {
		b = binary.AppendUvarint(b, uint64(len(p)))
		b = append(b, p...)
	}
	return b
}

func splitPatches(b []byte) ([][]byte, error) {
	var out [][]byte
	for len(b) > 0 {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return nil, errCorruptPatch
		}
		p := b[k : k+int(n)]
		if n == 0 {
			p = nil
		}
		out = append(out, p)
		b = b[k+int(n):]
	}
	return out, nil
}

// record is one segment of a content being stored.
type record struct {
	body, patch []byte
	sum         [32]byte
	// id is the stored body's blob id: found, inserted, or -1-j for the
	// same body as record j of this content.
	id   int64
	data []byte // compressed body, when it must be inserted
}

// A querier reads the store: the database outside a transaction, or a
// transaction.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

// A preparedContent is a content ready to be stored: its records
// normalized and hashed, the bodies already stored found, the others
// compressed, its patch chunks encoded. Preparing is the CPU-heavy half
// of storing, and it needs no lock: blobs and contents are only ever
// added, so what it found stays true. Done inside the write transaction
// it held the store's write lock for seconds on a large session, and
// under load the other writers' busy timeout ran out (SQLITE_BUSY on a
// token cache flush, a failed compaction in the other server).
type preparedContent struct {
	hash string
	size int
	// stored says the content was stored already.
	stored  bool
	baseIDs []int64
	recs    []record
	// chunks are the content's patch chunks; nil when no record has a
	// patch (and none of the prefix's had).
	chunks []patchChunkPlan
}

// A patchChunkPlan is one patch chunk: a stored blob's id, or the chunk
// to store.
type patchChunkPlan struct {
	id   int64
	size int
	sum  [32]byte
	data []byte // compressed
}

// putContent stores b, whose records start at cuts, and returns b's
// content hash. Records are normalized (see normalize) and stored once by
// their body's hash; storing content already present costs one lookup.
//
// h is b's ContentHash when the caller has it ("" computes it). prefix,
// when not "", is the hash of a stored content that b may extend
// (the previous read of a growing transcript): if b starts with it, its
// records are taken as they are stored and only the rest is read, so
// recording a transcript that grew costs what it grew.
func putContent(ctx context.Context, tx *sql.Tx, b []byte, cuts []int64, prefix, h string) (string, error) {
	p, err := prepareContent(ctx, tx, b, cuts, prefix, h)
	if err != nil {
		return "", err
	}
	return p.put(ctx, tx)
}

// prepareContent does what putContent does before writing (see
// preparedContent), reading through q.
func prepareContent(ctx context.Context, q querier, b []byte, cuts []int64, prefix, h string) (*preparedContent, error) {
	base, err := prefixOf(ctx, q, b, prefix)
	if err != nil {
		return nil, err
	}
	if h == "" {
		h = ContentHash(b)
	}
	p := &preparedContent{hash: h, size: len(b)}
	if p.stored, err = contentStored(ctx, q, h); err != nil || p.stored {
		return p, err
	}

	// Normalize the records after the prefix, group the small ones into
	// chunks, and hash each segment, on every core.
	recs := chunkRecords(scanAll(segmentsFrom(b, cuts, base.size)))
	parallel(len(recs), func(i int) { recs[i].sum = sha256.Sum256(recs[i].body) })
	if err := findBodies(ctx, q, recs); err != nil {
		return nil, err
	}
	p.baseIDs, p.recs = base.ids, recs

	// Patches: the prefix's full chunks as stored, the rest rebuilt.
	var chunkIDs []int64
	var tail [][]byte
	if base.hash != "" {
		full := len(base.ids) / patchChunk
		if base.chunkIDs != nil {
			chunkIDs = append(chunkIDs, base.chunkIDs[:full]...)
			if len(base.chunkIDs) > full {
				ps, err := readPatchChunk(ctx, q, base.chunkIDs[full])
				if err != nil {
					return nil, err
				}
				tail = ps
			}
		} else {
			// A schema-2 prefix: its records have empty patches.
			tail = make([][]byte, len(base.ids)-full*patchChunk)
			for k := 0; k < full; k++ {
				chunkIDs = append(chunkIDs, -1) // built below
			}
		}
	}
	anyPatch := base.chunkIDs != nil
	for _, r := range recs {
		tail = append(tail, r.patch)
		anyPatch = anyPatch || r.patch != nil
	}
	if anyPatch {
		if p.chunks, err = planPatchChunks(ctx, q, chunkIDs, tail, len(base.ids)+len(recs)); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func contentStored(ctx context.Context, q querier, h string) (bool, error) {
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM contents WHERE hash = ?`, h).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("look up content: %w", err)
	}
	return true, nil
}

// put writes what p prepared: the bodies and patch chunks stored since
// it was prepared are found again (another writer may have added them),
// the others inserted, then the content row.
func (p *preparedContent) put(ctx context.Context, tx *sql.Tx) (string, error) {
	if p.stored {
		return p.hash, nil
	}
	if stored, err := contentStored(ctx, tx, p.hash); err != nil || stored {
		return p.hash, err
	}
	if err := insertBodies(ctx, tx, p.recs); err != nil {
		return "", err
	}
	ids := append(p.baseIDs[:len(p.baseIDs):len(p.baseIDs)], make([]int64, 0, len(p.recs))...)
	for _, r := range p.recs {
		ids = append(ids, r.id)
	}
	var patchList []byte
	if p.chunks != nil {
		chunkIDs := make([]int64, len(p.chunks))
		for k := range p.chunks {
			id, err := insertBlob(ctx, tx, &p.chunks[k])
			if err != nil {
				return "", fmt.Errorf("store patches: %w", err)
			}
			chunkIDs[k] = id
		}
		patchList = encodeIDs(chunkIDs)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO contents(hash, size, segments, patches) VALUES (?, ?, ?, ?)`,
		p.hash, p.size, encodeIDs(ids), patchList); err != nil {
		return "", fmt.Errorf("store content: %w", err)
	}
	return p.hash, nil
}

// prefixBase is a stored content b extends.
type prefixBase struct {
	hash     string
	size     int64
	ids      []int64
	chunkIDs []int64 // nil: stored without patches
}

// prefixOf loads the stored content prefix when b starts with its bytes.
func prefixOf(ctx context.Context, q querier, b []byte, prefix string) (prefixBase, error) {
	if prefix == "" {
		return prefixBase{}, nil
	}
	var size int64
	var segs, patches []byte
	err := q.QueryRowContext(ctx, `SELECT size, segments, patches FROM contents WHERE hash = ?`, prefix).Scan(&size, &segs, &patches)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && (size > int64(len(b)) || size == 0)) {
		return prefixBase{}, nil
	}
	if err != nil {
		return prefixBase{}, fmt.Errorf("look up content: %w", err)
	}
	if sum := sha256.Sum256(b[:size]); hex.EncodeToString(sum[:]) != prefix {
		return prefixBase{}, nil // rewritten, not grown
	}
	ids, err := decodeIDs(segs)
	if err != nil {
		return prefixBase{}, nil // read it all rather than trust a damaged list
	}
	base := prefixBase{hash: prefix, size: size, ids: ids}
	if patches != nil {
		if base.chunkIDs, err = decodeIDs(patches); err != nil || (len(ids)+patchChunk-1)/patchChunk != len(base.chunkIDs) {
			return prefixBase{}, nil
		}
	}
	return base, nil
}

// segmentsFrom splits b[from:] at the cuts past from.
func segmentsFrom(b []byte, cuts []int64, from int64) [][]byte {
	var cs []int64
	for _, c := range cuts {
		if c > from {
			cs = append(cs, c-from)
		}
	}
	return segments(b[from:], cs)
}

// findBodies finds each record's body among the stored blobs and
// compresses (on every core) the ones missing; a body a record before it
// in this content has too gets that record's index (-1-j).
func findBodies(ctx context.Context, q querier, recs []record) error {
	seen := map[[32]byte]int{} // first record with each body, in this content
	var first []int
	for i := range recs {
		if j, ok := seen[recs[i].sum]; ok {
			recs[i].id = -1 - int64(j) // resolved after the inserts
			continue
		}
		seen[recs[i].sum] = i
		first = append(first, i)
	}
	found, err := blobIDs(ctx, q, recs, first)
	if err != nil {
		return err
	}
	var missing []int
	for _, i := range first {
		if id, ok := found[recs[i].sum]; ok {
			recs[i].id = id
		} else {
			missing = append(missing, i)
		}
	}
	parallel(len(missing), func(k int) {
		r := &recs[missing[k]]
		r.data = compress(r.body)
	})
	return nil
}

// lookupBatch is how many hashes one lookup asks for: a large session has
// hundreds of thousands of records, and a query each was most of the time
// recording it took.
const lookupBatch = 500

// blobIDs returns the ids of the stored blobs whose hashes are those of
// recs[i] for i in which.
func blobIDs(ctx context.Context, q querier, recs []record, which []int) (map[[32]byte]int64, error) {
	found := make(map[[32]byte]int64, len(which))
	for from := 0; from < len(which); from += lookupBatch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		batch := which[from:min(from+lookupBatch, len(which))]
		args := make([]any, len(batch))
		for k, i := range batch {
			args[k] = recs[i].sum[:]
		}
		rows, err := q.QueryContext(ctx, `SELECT hash, id FROM blobs WHERE hash IN (?`+strings.Repeat(",?", len(batch)-1)+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("look up segments: %w", err)
		}
		for rows.Next() {
			var h []byte
			var id int64
			if err := rows.Scan(&h, &id); err != nil {
				rows.Close()
				return nil, fmt.Errorf("look up segments: %w", err)
			}
			var sum [32]byte
			if copy(sum[:], h) == len(sum) {
				found[sum] = id
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("look up segments: %w", err)
		}
	}
	return found, nil
}

// insertBodies stores the bodies findBodies compressed (unless another
// writer stored them since) and sets every record's id.
func insertBodies(ctx context.Context, tx *sql.Tx, recs []record) error {
	var pending []int
	for i := range recs {
		if recs[i].data != nil {
			pending = append(pending, i)
		}
	}
	found, err := blobIDs(ctx, tx, recs, pending)
	if err != nil {
		return err
	}
	insert, err := tx.PrepareContext(ctx, `INSERT INTO blobs(hash, size, data, codec) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer insert.Close()
	for k, i := range pending {
		r := &recs[i]
		if k%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if id, ok := found[r.sum]; ok {
			r.id = id
		} else {
			res, err := insert.ExecContext(ctx, r.sum[:], len(r.body), r.data, codecZstd)
			if err != nil {
				return fmt.Errorf("store segment: %w", err)
			}
			r.id, _ = res.LastInsertId()
		}
		r.data = nil
	}
	for i := range recs {
		if recs[i].id < 0 {
			recs[i].id = recs[-1-recs[i].id].id
		}
	}
	return nil
}

// planPatchChunks plans the content's patch chunks: chunkIDs holds the
// ids of the leading chunks kept as stored (-1 for one to build from
// scratch: all its patches empty), tail the patches of the records after
// them, n the content's record count. Chunks already stored are found;
// the others are compressed, to be inserted.
func planPatchChunks(ctx context.Context, q querier, chunkIDs []int64, tail [][]byte, n int) ([]patchChunkPlan, error) {
	var plans []patchChunkPlan
	plan := func(ps [][]byte) error {
		enc := encodePatches(ps)
		c := patchChunkPlan{size: len(enc), sum: sha256.Sum256(enc)}
		err := q.QueryRowContext(ctx, `SELECT id FROM blobs WHERE hash = ?`, c.sum[:]).Scan(&c.id)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			c.data = compress(enc)
		case err != nil:
			return fmt.Errorf("look up patches: %w", err)
		}
		plans = append(plans, c)
		return nil
	}
	for _, id := range chunkIDs {
		if id >= 0 {
			plans = append(plans, patchChunkPlan{id: id})
			continue
		}
		if err := plan(make([][]byte, patchChunk)); err != nil {
			return nil, err
		}
	}
	for len(tail) > 0 {
		size := min(patchChunk, len(tail))
		if err := plan(tail[:size]); err != nil {
			return nil, err
		}
		tail = tail[size:]
	}
	if want := (n + patchChunk - 1) / patchChunk; len(plans) != want {
		return nil, fmt.Errorf("store patches: %d chunks for %d records", len(plans), n)
	}
	return plans, nil
}

// insertBlob returns the id of c's blob, inserting it unless it is
// stored (found when planned, or by another writer since).
func insertBlob(ctx context.Context, tx *sql.Tx, c *patchChunkPlan) (int64, error) {
	if c.data == nil {
		return c.id, nil
	}
	var id int64
	err := tx.QueryRowContext(ctx, `SELECT id FROM blobs WHERE hash = ?`, c.sum[:]).Scan(&id)
	if err == nil {
		return id, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO blobs(hash, size, data, codec) VALUES (?, ?, ?, ?)`, c.sum[:], c.size, c.data, codecZstd)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// readPatchChunk reads one stored chunk of patches.
func readPatchChunk(ctx context.Context, q querier, id int64) ([][]byte, error) {
	var n int64
	var data []byte
	var codec int
	if err := q.QueryRowContext(ctx, `SELECT size, data, codec FROM blobs WHERE id = ?`, id).Scan(&n, &data, &codec); err != nil {
		return nil, fmt.Errorf("read patches %d: %w", id, err)
	}
	b, err := inflate(data, codec, n)
	if err != nil {
		return nil, fmt.Errorf("read patches %d: %w", id, err)
	}
	return splitPatches(b)
}

// parallel runs fn(0..n-1) on every core.
func parallel(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), max(1, n/64))
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int, 256)
	for range workers {
		wg.Go(func() {
			for i := range next {
				fn(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
