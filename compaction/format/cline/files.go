package cline

// Files: a task's API conversation history.
func (Codec) Files() []string { return []string{"**/" + FileName} }
