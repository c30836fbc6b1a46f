package modelserver

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// Reasoning the server emits is signed as the real services sign theirs:
// an Anthropic thinking block's signature, an OpenAI reasoning item's
// encrypted_content and a Gemini thoughtSignature are opaque to clients, and
// the service rejects a request whose signed reasoning was altered. The key
// is fixed, so signatures outlive one server (a fork resumed later verifies).
var signKey = []byte("compactd e2e model server: reasoning signatures")

func mac(kind, text string) []byte {
	m := hmac.New(sha256.New, signKey)
	m.Write([]byte(kind))
	m.Write([]byte{0})
	m.Write([]byte(text))
	return m.Sum(nil)
}

// signThinking returns the signature of an Anthropic thinking block.
func signThinking(thinking string) string {
	return base64.StdEncoding.EncodeToString(append([]byte("EqoBCkgIBhABGAIiQ"), mac("thinking", thinking)...))
}

// validThinkingSignature reports whether sig signs thinking.
func validThinkingSignature(thinking, sig string) bool {
	b, err := base64.StdEncoding.DecodeString(sig)
	if err != nil || !strings.HasPrefix(string(b), "EqoBCkgIBhABGAIiQ") {
		return false
	}
	return hmac.Equal(b[len("EqoBCkgIBhABGAIiQ"):], mac("thinking", thinking))
}

// encryptReasoning returns an OpenAI-style encrypted_content carrying the
// reasoning text (so a later request can be checked against it).
func encryptReasoning(text string) string {
	return "gAAAAA" + base64.RawURLEncoding.EncodeToString(append(mac("reasoning", text), text...))
}

// validEncryptedReasoning reports whether enc is content this server issued.
func validEncryptedReasoning(enc string) bool {
	if !strings.HasPrefix(enc, "gAAAAA") {
		return false
	}
	b, err := base64.RawURLEncoding.DecodeString(enc[len("gAAAAA"):])
	if err != nil || len(b) < sha256.Size {
		return false
	}
	return hmac.Equal(b[:sha256.Size], mac("reasoning", string(b[sha256.Size:])))
}

// skipThoughtSignature is the value the Gemini API accepts in place of a
// signature for function calls it did not produce (Gemini CLI sets it on
// resumed history).
const skipThoughtSignature = "skip_thought_signature_validator"

// thoughtSignature returns a Gemini thoughtSignature for a model turn.
func thoughtSignature(text string) string {
	return base64.StdEncoding.EncodeToString(append([]byte("CiQB"), mac("thought", text)...))
}

func validThoughtSignature(sig string) bool {
	if sig == skipThoughtSignature {
		return true
	}
	b, err := base64.StdEncoding.DecodeString(sig)
	return err == nil && strings.HasPrefix(string(b), "CiQB") && len(b) == len("CiQB")+sha256.Size
}
