package aider

// Files: the chat history Aider keeps in the project folder.
func (Codec) Files() []string { return []string{"**/" + FileName} }
