import type { Database, RunResult, Statement } from 'sqlite3';
import { pagesOf, type DurableStore, type StoredAnswer } from './durable-store.js';

/**
 * The response cache's SQLite file (`<dataDir>/cache.sqlite`), ours alone, through the `sqlite3` driver's
 * public API (docs/decisions.md, "The response cache owns its SQLite file"). One table: the body as the bytes
 * the wire gets, when it was fetched, and when it expires, with an index on the expiry, so a purge is one
 * DELETE on the index and never reads a body. Expiry follows the cache's clock.
 *
 * The driver runs every statement on libuv's pool: a write, and SQLite's WAL checkpoints, never hold up the
 * event loop that answers hits from memory.
 */
/**
 * WAL: readers never wait for the writer, and a write is one append (the default rollback journal lost writes
 * under concurrency). synchronous=NORMAL: a power cut may lose the last writes, never corrupt the file (it is
 * a cache). `keyv` is the table earlier versions kept entries in (through @keyv/sqlite): those are fetched
 * again once.
 */
const SCHEMA = `
  PRAGMA journal_mode = WAL;
  PRAGMA synchronous = NORMAL;
  CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    body BLOB NOT NULL,
    fetched_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS responses_by_expiry ON responses (expires_at);
  DROP TABLE IF EXISTS keyv;
`;

/** SQLite waits this long for a lock held by another connection before a statement fails. */
const BUSY_TIMEOUT_MS = 5_000;
/** SQLITE_OPEN_NOFOLLOW (SQLite 3.31+, the driver passes open flags through): never through a link. */
const OPEN_NOFOLLOW = 0x0100_0000;

interface Row {
  body: Buffer;
  fetchedAt: number;
  pages: number | null;
}

/**
 * The pages of a paginated answer (docs/pagination.md), a column added to files made before pagination: NULL
 * there, one page. SQLite has no ADD COLUMN IF NOT EXISTS; the column already being there is the one error
 * expected.
 */
async function addPagesColumn(db: Database): Promise<void> {
  await new Promise<void>((resolve, reject) =>
    db.exec('ALTER TABLE responses ADD COLUMN pages INTEGER', (error) =>
      error && !/duplicate column/i.test(error.message) ? reject(error) : resolve(),
    ),
  );
}

export async function openSqliteStore(path: string, now: () => number): Promise<DurableStore> {
  const { default: sqlite3 } = await import('sqlite3');
  const db = await new Promise<Database>((resolve, reject) => {
    const opened: Database = new sqlite3.Database(path, sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE | OPEN_NOFOLLOW, (error) =>
      error ? reject(error) : resolve(opened),
    );
  });
  try {
    db.configure('busyTimeout', BUSY_TIMEOUT_MS);
    await new Promise<void>((resolve, reject) => db.exec(SCHEMA, (error) => (error ? reject(error) : resolve())));
    await addPagesColumn(db);
    const statements = {
      read: await prepare(db, 'SELECT body, fetched_at AS fetchedAt, pages FROM responses WHERE key = ? AND expires_at > ?'),
      write: await prepare(
        db,
        'INSERT INTO responses (key, body, fetched_at, expires_at, pages) VALUES (?, ?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET body = excluded.body, fetched_at = excluded.fetched_at, expires_at = excluded.expires_at, pages = excluded.pages',
      ),
      purge: await prepare(db, 'DELETE FROM responses WHERE expires_at <= ?'),
    };
    return sqliteStore(db, statements, now);
  } catch (error) {
    await new Promise((resolve) => db.close(resolve));
    throw error;
  }
}

function sqliteStore(db: Database, statements: Record<'read' | 'write' | 'purge', Statement>, now: () => number): DurableStore {
  return {
    async get(key) {
      const row = await new Promise<Row | undefined>((resolve, reject) =>
        statements.read.get<Row>([key, now()], (error, found) => (error ? reject(error) : resolve(found))),
      );
      return row ? ({ bytes: row.body, fetchedAt: row.fetchedAt, ...pagesOf(row.pages) } satisfies StoredAnswer) : undefined;
    },
    async set(key, answer, ttlMs) {
      await run(statements.write, [key, answer.bytes, answer.fetchedAt, now() + ttlMs, answer.pages ?? null]);
    },
    purgeExpired: () => run(statements.purge, [now()]),
    async close() {
      for (const statement of Object.values(statements)) await new Promise((resolve) => statement.finalize(resolve));
      await new Promise<void>((resolve, reject) => db.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

function prepare(db: Database, sql: string): Promise<Statement> {
  return new Promise((resolve, reject) => {
    const statement: Statement = db.prepare(sql, (error) => (error ? reject(error) : resolve(statement)));
  });
}

/** Runs a statement; resolves with the number of rows it changed. */
function run(statement: Statement, params: unknown[]): Promise<number> {
  return new Promise((resolve, reject) => {
    statement.run(params, function (this: RunResult, error: Error | null) {
      if (error) reject(error);
      else resolve(this.changes);
    });
  });
}
