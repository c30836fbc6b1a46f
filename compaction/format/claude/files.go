package claude

// Files: sessions are JSON Lines files.
func (Codec) Files() []string { return []string{"**/*.jsonl"} }
