package openaichat

// Files: trajectories as agents' harnesses save them.
func (Codec) Files() []string { return []string{"**/*.traj.json"} }
