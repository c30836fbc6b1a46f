-- A store as the first schema (user_version 1) wrote it: whole version
-- contents inline, no content addressing, no token cache, no application_id.
CREATE TABLE conversations (
	id          INTEGER PRIMARY KEY,
	key         TEXT NOT NULL UNIQUE,
	source_path TEXT NOT NULL,
	created_at  TEXT NOT NULL
);
CREATE TABLE versions (
	id              INTEGER PRIMARY KEY,
	conversation_id INTEGER NOT NULL REFERENCES conversations(id),
	label           TEXT NOT NULL,
	parent_id       INTEGER REFERENCES versions(id),
	source_path     TEXT NOT NULL,
	fork_path       TEXT NOT NULL DEFAULT '',
	report          TEXT NOT NULL DEFAULT '{}',
	created_at      TEXT NOT NULL,
	content         BLOB NOT NULL,
	UNIQUE (conversation_id, label)
);
INSERT INTO conversations VALUES (1, 'session:0b7e5a40-1111-4a2b-9c3d-5e6f7a8b9c0d', '/home/dev/.claude/projects/-home-dev-app/0b7e5a40-1111-4a2b-9c3d-5e6f7a8b9c0d.jsonl', '2025-06-01T10:00:00Z');
INSERT INTO versions VALUES (1, 1, 'v1', NULL, '/home/dev/.claude/projects/-home-dev-app/0b7e5a40-1111-4a2b-9c3d-5e6f7a8b9c0d.jsonl', '', '{}', '2025-06-01T10:00:00Z',
 CAST('{"type":"user","uuid":"u1","message":{"role":"user","content":"fix the build"}}' || char(10) ||
      '{"type":"assistant","uuid":"a1","message":{"role":"assistant","content":[{"type":"text","text":"Looking at go.mod"}]}}' || char(10) ||
      '{"type":"user","uuid":"u2","message":{"role":"user","content":"thanks"}}' || char(10) AS BLOB));
INSERT INTO versions VALUES (2, 1, 'v2', 1, '/home/dev/.claude/projects/-home-dev-app/0b7e5a40-1111-4a2b-9c3d-5e6f7a8b9c0d.jsonl', '/home/dev/.claude/projects/-home-dev-app/9d1c0f22-2222-4b3c-8d4e-6f7a8b9c0d1e.jsonl', '{"tokensBefore":120,"tokensAfter":40}', '2025-06-01T10:05:00Z',
 CAST('{"type":"user","uuid":"u2","message":{"role":"user","content":"thanks"}}' || char(10) AS BLOB));
PRAGMA user_version = 1;
