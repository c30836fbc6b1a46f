package cursor

// Files: sessions are JSON Lines files.
func (Codec) Files() []string { return []string{"**/*.jsonl"} }
