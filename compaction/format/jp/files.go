package jp

// Files: a conversation's events file.
func (Codec) Files() []string { return []string{"**/.jp/conversations/**/" + EventsFile} }
