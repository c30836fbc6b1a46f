-- A store as schema 2 (content-addressed segments, token cache, application_id)
-- wrote it, before the summaries archive existed: the v1 fixture migrated by
-- the schema-2 build, frozen with sqlite3 .dump.
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE conversations (
	id          INTEGER PRIMARY KEY,
	key         TEXT NOT NULL UNIQUE,
	source_path TEXT NOT NULL,
	created_at  TEXT NOT NULL
, format TEXT NOT NULL DEFAULT '', session_id TEXT NOT NULL DEFAULT '');
INSERT INTO conversations VALUES(1,'session:0b7e5a40-1111-4a2b-9c3d-5e6f7a8b9c0d','/home/dev/.claude/projects/-home-dev-app/0b7e5a40-1111-4a2b-9c3d-5e6f7a8b9c0d.jsonl','2025-06-01T10:00:00Z','claude-code','0b7e5a40-1111-4a2b-9c3d-5e6f7a8b9c0d');
CREATE TABLE versions (
	id              INTEGER PRIMARY KEY,
	conversation_id INTEGER NOT NULL REFERENCES conversations(id),
	label           TEXT NOT NULL,
	parent_id       INTEGER REFERENCES versions(id),
	source_path     TEXT NOT NULL,
	fork_path       TEXT NOT NULL DEFAULT '',
	report          TEXT NOT NULL DEFAULT '{}',
	created_at      TEXT NOT NULL,
	kind TEXT NOT NULL DEFAULT 'source', source_hash TEXT NOT NULL DEFAULT '', content_hash TEXT NOT NULL DEFAULT '', size INTEGER NOT NULL DEFAULT 0, format TEXT NOT NULL DEFAULT '', pipeline TEXT NOT NULL DEFAULT '[]', options TEXT NOT NULL DEFAULT '{}', tokens_before INTEGER NOT NULL DEFAULT 0, tokens_after INTEGER NOT NULL DEFAULT 0,
	UNIQUE (conversation_id, label)
);
INSERT INTO versions VALUES(1,1,'v1',NULL,'/home/dev/.claude/projects/-home-dev-app/0b7e5a40-1111-4a2b-9c3d-5e6f7a8b9c0d.jsonl','','{}','2025-06-01T10:00:00Z','source','1e3cfb9fc2f84e01510c5de2618e3494f38f5d1a1b4531e34805dddf61ba50a6','1e3cfb9fc2f84e01510c5de2618e3494f38f5d1a1b4531e34805dddf61ba50a6',272,'','[]','{}',0,0);
INSERT INTO versions VALUES(2,1,'v2',1,'/home/dev/.claude/projects/-home-dev-app/0b7e5a40-1111-4a2b-9c3d-5e6f7a8b9c0d.jsonl','/home/dev/.claude/projects/-home-dev-app/9d1c0f22-2222-4b3c-8d4e-6f7a8b9c0d1e.jsonl','{"tokensBefore":120,"tokensAfter":40}','2025-06-01T10:05:00Z','compact','4f29c9d2aab1ac64fc99c31ceb34af62354d3499d1e47b6db6f1ea8dd339fde6','4f29c9d2aab1ac64fc99c31ceb34af62354d3499d1e47b6db6f1ea8dd339fde6',73,'claude-code','["auto"]','{}',120,40);
CREATE TABLE blobs (
			id   INTEGER PRIMARY KEY,
			hash BLOB NOT NULL UNIQUE,
			size INTEGER NOT NULL,
			data BLOB NOT NULL
		);
INSERT INTO blobs VALUES(1,X'ebab913f973d328285e4ce9efd9a3d59b93fb24b744df64236d66513bb6d5675',80,X'aa562aa92c4855b2522a2d4e2d52d2512a2dcd4c01f10c95749472538b8b13d35395acaa958af273901425e7e795a4e695285929a56556289464a42a249566e6a428d5d67201020000ffff');
INSERT INTO blobs VALUES(2,X'68084a2fe79e73d6d7803d7f3cecb84e8678b72b2bfb9692590f144a01ccff0a',119,X'aa562aa92c4855b2524a2c2ece2c2e49cc2b51d2512a2dcd4c0109192ae928e5a6161727a6a72a59552b15e5e7a0ab4ccecf2b49cd2b51b28a861b54925a01920153564a3ef9f9d99979e90a89250ae9f97ab9f9294ab5b1b5b55c80000000ffff');
INSERT INTO blobs VALUES(3,X'4f29c9d2aab1ac64fc99c31ceb34af62354d3499d1e47b6db6f1ea8dd339fde6',73,X'aa562aa92c4855b2522a2d4e2d52d2512a2dcd4c01f18c94749472538b8b13d35395acaa958af273901425e7e795a4e695285929956424e665172bd5d67201020000ffff');
CREATE TABLE contents (
			hash     TEXT PRIMARY KEY,
			size     INTEGER NOT NULL,
			segments BLOB NOT NULL
		) WITHOUT ROWID;
INSERT INTO contents VALUES('1e3cfb9fc2f84e01510c5de2618e3494f38f5d1a1b4531e34805dddf61ba50a6',272,X'62626202040000ffff');
INSERT INTO contents VALUES('4f29c9d2aab1ac64fc99c31ceb34af62354d3499d1e47b6db6f1ea8dd339fde6',73,X'6203040000ffff');
CREATE TABLE token_cache (
			hash     BLOB NOT NULL,
			encoding TEXT NOT NULL,
			tokens   INTEGER NOT NULL,
			approx   INTEGER NOT NULL DEFAULT 0,
			PRIMARY KEY (hash, encoding)
		) WITHOUT ROWID;
INSERT INTO token_cache VALUES(X'00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff','o200k_base',42,0);
CREATE INDEX versions_conversation ON versions(conversation_id, id);
CREATE INDEX versions_fork_path ON versions(fork_path);
CREATE INDEX conversations_source_path ON conversations(source_path);
COMMIT;
PRAGMA user_version = 2;
PRAGMA application_id = 1668116580;
