package sessiongen

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// The generator writes JSON by hand: encoding/json would cost reflection on
// every record, and a 200 MB benchmark file has hundreds of thousands.

const hexDigits = "0123456789abcdef"

// writeString writes s as a JSON string the way agents do: '<', '>' and '&'
// literal, control characters escaped, invalid UTF-8 replaced.
func writeString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b.WriteString(s[start:i])
			switch c {
			case '"':
				b.WriteString(`\"`)
			case '\\':
				b.WriteString(`\\`)
			case '\n':
				b.WriteString(`\n`)
			case '\t':
				b.WriteString(`\t`)
			case '\r':
				b.WriteString(`\r`)
			default:
				b.WriteString(`\u00`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString(s[start:i])
			b.WriteString(`\ufffd`)
			i++
			start = i
			continue
		}
		i += size
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}

// field writes `"key":` preceded by a comma unless it opens the object.
func key(b *bytes.Buffer, k string) {
	last := b.Bytes()
	if n := len(last); n > 0 && last[n-1] != '{' && last[n-1] != '[' {
		b.WriteByte(',')
	}
	b.WriteByte('"')
	b.WriteString(k)
	b.WriteString(`":`)
}

func str(b *bytes.Buffer, k, v string) {
	key(b, k)
	writeString(b, v)
}

func num(b *bytes.Buffer, k string, v int) {
	key(b, k)
	b.WriteString(strconv.Itoa(v))
}

func boolean(b *bytes.Buffer, k string, v bool) {
	key(b, k)
	if v {
		b.WriteString("true")
	} else {
		b.WriteString("false")
	}
}

func null(b *bytes.Buffer, k string) {
	key(b, k)
	b.WriteString("null")
}

// rawKey writes `"key":` followed by raw JSON.
func raw(b *bytes.Buffer, k, v string) {
	key(b, k)
	b.WriteString(v)
}

// sep writes a comma between array elements.
func sep(b *bytes.Buffer) {
	last := b.Bytes()
	if n := len(last); n > 0 && last[n-1] != '[' && last[n-1] != '{' {
		b.WriteByte(',')
	}
}
