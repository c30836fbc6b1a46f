package modelserver

// LatestTask returns the task the latest tagged user prompt names ("" if
// none) and the index of the item after that prompt: what a Fallback
// reads to answer a task it scripts from the request alone.
func (c *Conversation) LatestTask() (string, int) { return c.latestTask() }
