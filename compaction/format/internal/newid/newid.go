// Package newid makes the identifiers forks need (session ids, record
// uuids, condense ids): random ones, and ones derived from a fork's
// session id so that the same fork is written the same way twice. It is
// pure apart from reading crypto/rand, and imports nothing of compactd.
package newid

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/google/uuid"
)

// UUID returns a random RFC 4122 version 4 uuid in its canonical
// lower-case 8-4-4-4-12 form (the one generator compactd uses, jobs'
// session ids included).
func UUID() string { return uuid.NewString() }

// Derived returns the n-th uuid derived from seed (a fork's session id):
// shaped like a version 4 uuid, the same for the same seed and n.
func Derived(seed string, n int) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s/%d", seed, n)))
	return format(sum[:16])
}

// format sets b's version 4 and variant bits and writes it in the
// canonical form.
func format(b []byte) string {
	var u uuid.UUID
	copy(u[:], b)
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return u.String()
}

// Hex returns 128 random bits as 32 lower-case hex digits.
func Hex() string {
	b := random16()
	return hex.EncodeToString(b[:])
}

func random16() [16]byte {
	var b [16]byte
	// crypto/rand.Read never returns an error (it crashes the program
	// instead when the system source fails).
	_, _ = rand.Read(b[:])
	return b
}
