//! The SQLite store: one generic table of JSON records, keyed by product, organization,
//! workspace, record type and id, plus the list of seeded scopes.
//!
//! Every tool call runs in one transaction ([`Store::transaction`]), so a failing tool changes
//! nothing. One writer connection behind a mutex, used from `spawn_blocking`, keeps writes
//! serialised; reads run on a pool of read-only connections ([`Store::read`]), and WAL gives each
//! its own snapshot, so reads never wait for a write (nor for each other) and use every core.
//! WAL also lets a second process (for example `serve-api` next to `serve`) read at the same time.

use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex};

use rusqlite::OpenFlags;

use rusqlite::{params, Connection, OptionalExtension, Transaction};
use rusqlite_migration::{Migrations, M};
use serde_json::{Map, Value};

use crate::clock;

/// Who owns a set of records: the caller's organization and, for workspaced products, workspace.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Scope {
    pub product: String,
    pub organization: String,
    /// Empty when the product is not workspaced.
    pub workspace: String,
}

/// A stored record.
#[derive(Debug, Clone)]
pub struct Row {
    pub id: String,
    pub seq: i64,
    pub json: Map<String, Value>,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("sandbox database {path}: {source}")]
    Open {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("sandbox database: {0}")]
    Sql(#[from] rusqlite::Error),
    #[error("sandbox database {path}: cannot bring its schema up to date: {message}")]
    Migrate { path: PathBuf, message: String },
    #[error("sandbox data directory {path}: {source}")]
    Dir {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The database file is there but is not a sandbox database: an emptied file or another
    /// program's database. Replacing it would lose whatever it held without a word.
    #[error("sandbox database {path}: {why}, not a sandbox database; it is left as it is (replacing it would lose its records): restore it from a backup, or move it away (with any -wal and -shm file beside it) to start a new sandbox, seeded again")]
    NotASandbox { path: PathBuf, why: String },
}

pub struct Store {
    conn: Mutex<Connection>,
    readers: Readers,
    path: PathBuf,
}

/// The database's page size. A record is stored in the table's own b-tree (schema version 4),
/// whose cells hold up to about a quarter of a page before spilling into overflow pages, which
/// SQLite then copies out on every read: 8 KiB keeps a record of up to about 2 KB (a sandbox
/// record is about 1 KB with its escaped copy) in one cell. SQLite's default is 4 KiB.
const PAGE_SIZE: i64 = 8192;

/// Gives the database [`PAGE_SIZE`] pages, once: a new database gets them before its first
/// write; one with smaller pages (made before schema version 4) is rewritten by `VACUUM`, which
/// needs it out of WAL mode and no other connection. Should that fail (another process has the
/// data directory open), the database keeps its pages: its reads cost more, and are the same.
fn ensure_page_size(conn: &Connection, path: &Path) {
    let current: i64 = match conn.query_row("PRAGMA page_size", [], |r| r.get(0)) {
        Ok(n) => n,
        Err(_) => return,
    };
    if current >= PAGE_SIZE {
        return;
    }
    let rewritten = (|| -> Result<(), String> {
        // SQLite answers the mode it is in: still `wal` while another connection has it open.
        let mode: String = conn
            .pragma_update_and_check(None, "journal_mode", "DELETE", |r| r.get(0))
            .map_err(|e| e.to_string())?;
        if !mode.eq_ignore_ascii_case("delete") {
            return Err(format!(
                "it stays in {mode} mode (another connection has it open)"
            ));
        }
        conn.pragma_update(None, "page_size", PAGE_SIZE)
            .and_then(|()| conn.execute_batch("VACUUM"))
            .map_err(|e| e.to_string())
    })();
    if let Err(e) = rewritten {
        tracing::warn!(
            path = %path.display(),
            error = %e,
            "sandbox database: its pages stay {current} bytes (it could not be rewritten with {PAGE_SIZE}-byte pages); reads cost more"
        );
    }
}

/// Read-only connections, lent one per read transaction.
struct Readers {
    idle: Mutex<Vec<Connection>>,
    returned: Condvar,
}

/// How many read connections: one per core (reads are CPU work in SQLite's page cache), at least
/// two so a read never waits for one long read, at most 16.
fn reader_count() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 16))
}

/// The schema's versions, oldest first, applied by `rusqlite_migration` (which records the
/// version in SQLite's `user_version`). Append a new `M::up` to change the schema; never edit
/// a released one. Version 1 is written with `IF NOT EXISTS` so that data directories created
/// before versioning (whose `user_version` is 0) adopt it unchanged.
/// The schema's versions, in order: version `n` is `SCHEMAS[n - 1]`.
const SCHEMAS: [&str; 5] = [SCHEMA_V1, SCHEMA_V2, SCHEMA_V3, SCHEMA_V4, SCHEMA_V5];

/// How many schema versions there are (the latest `user_version`).
#[cfg(test)]
fn migrations_count() -> i64 {
    SCHEMAS.len() as i64
}

fn migrations() -> Migrations<'static> {
    Migrations::new(SCHEMAS.iter().map(|sql| M::up(sql)).collect())
}

const SCHEMA_V1: &str = "
CREATE TABLE IF NOT EXISTS records (
    product      TEXT NOT NULL,
    organization TEXT NOT NULL,
    workspace    TEXT NOT NULL,
    type         TEXT NOT NULL,
    id           TEXT NOT NULL,
    seq          INTEGER NOT NULL,
    created_at   TEXT NOT NULL,
    json         TEXT NOT NULL,
    PRIMARY KEY (product, organization, workspace, type, id)
);
CREATE INDEX IF NOT EXISTS records_recent
    ON records (product, organization, workspace, type, created_at DESC, seq DESC);
CREATE TABLE IF NOT EXISTS scopes (
    product      TEXT NOT NULL,
    organization TEXT NOT NULL,
    workspace    TEXT NOT NULL,
    seed         INTEGER NOT NULL,
    seeded_at    TEXT NOT NULL,
    PRIMARY KEY (product, organization, workspace)
);
";

/// Version 2: a record's `json` is always the text of a JSON object. [`list_page_json`] sends
/// that text on as it is (inside a tool's answer), so text that is not an object must never be
/// stored: triggers refuse it on every write, whoever writes (this code writes only what
/// `serde_json` serialized). A record stored earlier that is not an object was read as `{}`; it
/// becomes `{}`.
const SCHEMA_V2: &str = "
UPDATE records SET json = '{}'
    WHERE CASE WHEN json_valid(json) THEN json_type(json) <> 'object' ELSE 1 END;
CREATE TRIGGER records_json_is_an_object_on_insert BEFORE INSERT ON records
    WHEN CASE WHEN json_valid(NEW.json) THEN json_type(NEW.json) <> 'object' ELSE 1 END
    BEGIN SELECT RAISE(ABORT, 'records.json must be the text of a JSON object'); END;
CREATE TRIGGER records_json_is_an_object_on_update BEFORE UPDATE OF json ON records
    WHEN CASE WHEN json_valid(NEW.json) THEN json_type(NEW.json) <> 'object' ELSE 1 END
    BEGIN SELECT RAISE(ABORT, 'records.json must be the text of a JSON object'); END;
";

/// Version 3: beside each record's `json`, `json_in_string`: that text as it reads inside a JSON
/// string (escaped, without the quotes). A tool's answer carries its JSON twice, once as the
/// text block a model reads (a JSON string); [`list_page_json`] joins these escaped texts into it
/// instead of escaping a whole page on every call. A stored generated column, so SQLite computes
/// it on every write, whoever writes, and it can never disagree with `json`: `json_quote` escapes
/// exactly as `serde_json` does (`\"`, `\\`, `\b \f \n \r \t`, other control bytes as
/// lowercase `\u00XX`, nothing else). SQLite cannot add a stored column to a table, so the table
/// is rebuilt (rows, index and the version 2 triggers, unchanged).
const SCHEMA_V3: &str = "
CREATE TABLE records_v3 (
    product        TEXT NOT NULL,
    organization   TEXT NOT NULL,
    workspace      TEXT NOT NULL,
    type           TEXT NOT NULL,
    id             TEXT NOT NULL,
    seq            INTEGER NOT NULL,
    created_at     TEXT NOT NULL,
    json           TEXT NOT NULL,
    json_in_string TEXT NOT NULL
        GENERATED ALWAYS AS (substr(json_quote(json), 2, length(json_quote(json)) - 2)) STORED,
    PRIMARY KEY (product, organization, workspace, type, id)
);
INSERT INTO records_v3 (product, organization, workspace, type, id, seq, created_at, json)
    SELECT product, organization, workspace, type, id, seq, created_at, json FROM records;
DROP TABLE records;
ALTER TABLE records_v3 RENAME TO records;
CREATE INDEX records_recent
    ON records (product, organization, workspace, type, created_at DESC, seq DESC);
CREATE TRIGGER records_json_is_an_object_on_insert BEFORE INSERT ON records
    WHEN CASE WHEN json_valid(NEW.json) THEN json_type(NEW.json) <> 'object' ELSE 1 END
    BEGIN SELECT RAISE(ABORT, 'records.json must be the text of a JSON object'); END;
CREATE TRIGGER records_json_is_an_object_on_update BEFORE UPDATE OF json ON records
    WHEN CASE WHEN json_valid(NEW.json) THEN json_type(NEW.json) <> 'object' ELSE 1 END
    BEGIN SELECT RAISE(ABORT, 'records.json must be the text of a JSON object'); END;
";

/// Version 4: the records are stored in the order a list reads them. The table is keyed by
/// scope, type, `created_at DESC`, `seq DESC` (then `id`, so that the key is unique) and has no
/// rowid, so a page is read in one pass over the table's own b-tree; before, each of a page's
/// rows was found through the `records_recent` index and then sought in the table by rowid, about
/// 800 instructions a row (issue 17). A unique index on the old key (scope, type, `id`) keeps
/// reads, replacements and deletions by id as they were: `INSERT OR REPLACE` replaces the record
/// with the same id. The table is rebuilt (rows, generated column and the version 2 triggers,
/// unchanged); `records_recent` is gone, the table's key being that order.
/// The answers of writes that carried an idempotency key (see [`kept_answer`]).
const SCHEMA_V5: &str = "
CREATE TABLE answers (
    product      TEXT NOT NULL,
    organization TEXT NOT NULL,
    workspace    TEXT NOT NULL,
    key          TEXT NOT NULL,
    tool         TEXT NOT NULL,
    answered_at  INTEGER NOT NULL,
    json         TEXT NOT NULL,
    PRIMARY KEY (product, organization, workspace, key)
) WITHOUT ROWID;
CREATE INDEX answers_by_age ON answers (answered_at);
";

const SCHEMA_V4: &str = "
CREATE TABLE records_v4 (
    product        TEXT NOT NULL,
    organization   TEXT NOT NULL,
    workspace      TEXT NOT NULL,
    type           TEXT NOT NULL,
    id             TEXT NOT NULL,
    seq            INTEGER NOT NULL,
    created_at     TEXT NOT NULL,
    json           TEXT NOT NULL,
    json_in_string TEXT NOT NULL
        GENERATED ALWAYS AS (substr(json_quote(json), 2, length(json_quote(json)) - 2)) STORED,
    PRIMARY KEY (product, organization, workspace, type, created_at DESC, seq DESC, id)
) WITHOUT ROWID;
INSERT INTO records_v4 (product, organization, workspace, type, id, seq, created_at, json)
    SELECT product, organization, workspace, type, id, seq, created_at, json FROM records;
DROP TABLE records;
ALTER TABLE records_v4 RENAME TO records;
CREATE UNIQUE INDEX records_by_id ON records (product, organization, workspace, type, id);
CREATE TRIGGER records_json_is_an_object_on_insert BEFORE INSERT ON records
    WHEN CASE WHEN json_valid(NEW.json) THEN json_type(NEW.json) <> 'object' ELSE 1 END
    BEGIN SELECT RAISE(ABORT, 'records.json must be the text of a JSON object'); END;
CREATE TRIGGER records_json_is_an_object_on_update BEFORE UPDATE OF json ON records
    WHEN CASE WHEN json_valid(NEW.json) THEN json_type(NEW.json) <> 'object' ELSE 1 END
    BEGIN SELECT RAISE(ABORT, 'records.json must be the text of a JSON object'); END;
";

/// The database's file name in the data directory.
const DB_FILE: &str = "sandbox.sqlite3";

/// Creates the data directory (and any missing parent) readable by its owner only (0700 on
/// unix): it holds the signing key of download links and every sandbox record. Windows has no
/// modes: the directory and its files inherit the access list of the parent, which for the
/// default directory (`default_data_dir`, in the user's profile) is the user's, SYSTEM's and the
/// administrators' only.
fn create_private_dir(dir: &Path) -> Result<(), StoreError> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir).map_err(|source| StoreError::Dir {
        path: dir.to_path_buf(),
        source,
    })
}

/// The lock of `<dir>/sandbox.lock`, held while a process opens the directory's database, so
/// that instances started together take turns to bring its schema up to date (issue 37, item 8).
/// `rusqlite_migration` reads the schema's version before its migration transaction: two
/// processes upgrading one older database could both read the old version and apply the same
/// migration twice ("trigger … already exists"). Serving does not take it (SQLite's own locks
/// order the writes). Released when the returned file is dropped, or by the system when the
/// process dies.
fn lock_for_opening(dir: &Path) -> Result<std::fs::File, StoreError> {
    let path = dir.join(LOCK_FILE);
    let io = |source| StoreError::Dir {
        path: path.clone(),
        source,
    };
    let mut options = std::fs::OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let file = options.open(&path).map_err(io)?;
    file.lock().map_err(io)?;
    Ok(file)
}

const LOCK_FILE: &str = "sandbox.lock";

/// Creates a new file at `path` (an existing one is an error) readable and writable by its owner
/// only (0600 on unix; on Windows, the directory's inherited access list, see
/// [`create_private_dir`]): the data directory's key and database.
pub(crate) fn create_private_file(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

/// Builds a new database at `path`, which has none: at its latest schema, beside it first, then
/// linked into place, so that the file at `path` is always a whole sandbox database (an empty
/// one is then never ours to fill, [`refuse_foreign`]). Several processes opening a new data
/// directory together each build one; the first link wins and the others open it.
fn create_database(dir: &Path, path: &Path) -> Result<(), StoreError> {
    let nanos = time::OffsetDateTime::now_utc().unix_timestamp_nanos();
    let building = dir.join(format!(".{DB_FILE}.new-{}-{nanos}", std::process::id()));
    let io = |source| StoreError::Dir {
        path: building.clone(),
        source,
    };
    create_private_file(&building).map_err(io)?;
    let built = (|| {
        // In rollback-journal mode: every migration is in the file itself when it closes (a WAL
        // would hold them in a file of the temporary name). Opening it in place turns on WAL.
        let mut conn = Connection::open(&building).map_err(|source| StoreError::Open {
            path: building.clone(),
            source,
        })?;
        ensure_page_size(&conn, &building);
        migrations()
            .to_latest(&mut conn)
            .map_err(|e| StoreError::Migrate {
                path: building.clone(),
                message: e.to_string(),
            })?;
        conn.close().map_err(|(_, e)| StoreError::from(e))?;
        match std::fs::hard_link(&building, path) {
            Ok(()) => Ok(()),
            // Another process linked its own first: that one is the database.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
            Err(e) => Err(StoreError::Dir {
                path: path.to_path_buf(),
                source: e,
            }),
        }
    })();
    let _ = std::fs::remove_file(&building);
    built
}

/// Refuses a database file that is not a sandbox database: an empty file (truncated, or
/// never finished: [`create_database`] never leaves one), or an SQLite database without our
/// tables or schema version. A file that is not SQLite at all is refused when it is read.
fn refuse_foreign(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    let refuse = |why: String| StoreError::NotASandbox {
        path: path.to_path_buf(),
        why,
    };
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version != 0 {
        // Ours (a version newer than this binary's is refused by the migrations).
        return Ok(());
    }
    let mut stmt =
        conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")?;
    let tables: Vec<String> = stmt
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let ours = |t: &str| tables.iter().any(|n| n == t);
    if tables.is_empty() {
        return Err(refuse("it holds no tables (an emptied file)".into()));
    }
    // Versions before the migrations wrote our tables with user_version 0: adopted.
    if ours("records") && ours("scopes") {
        return Ok(());
    }
    Err(refuse(format!(
        "it is another program's database (tables {})",
        tables.join(", ")
    )))
}

/// How long the answer of a write with an idempotency key is kept: the server's default
/// idempotency window (24 h), within which it sends a retried or re-confirmed write the same key.
pub const ANSWER_WINDOW_SECS: i64 = 24 * 60 * 60;

/// The first answer of the write `key` in `scope`, kept within [`ANSWER_WINDOW_SECS`] of `now`
/// (unix seconds); `Err` when the key was used by another tool (a new request needs a new key).
/// With [`keep_answer`], in the write's own transaction, this is what makes a write with a key
/// run once in the sandbox as in the API: a replay after the server's ledger lost its records
/// (a flushed Redis, a restart with a memory ledger) gets the first answer, and nothing runs.
pub fn kept_answer(
    tx: &Connection,
    scope: &Scope,
    key: &str,
    tool: &str,
    now: i64,
) -> Result<Option<Value>, runtime_model::backend::BackendError> {
    use runtime_model::backend::BackendError;
    let row: Option<(String, String)> = tx
        .query_row(
            "SELECT tool, json FROM answers WHERE product = ?1 AND organization = ?2 \
             AND workspace = ?3 AND key = ?4 AND answered_at > ?5",
            params![
                scope.product,
                scope.organization,
                scope.workspace,
                key,
                now - ANSWER_WINDOW_SECS
            ],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()
        .map_err(|e| BackendError::Storage(format!("sandbox database: {e}")))?;
    let Some((first_tool, json)) = row else {
        return Ok(None);
    };
    if first_tool != tool {
        return Err(BackendError::Invalid(
            runtime_model::texts::Text::SandboxIdempotencyKeyReused
                .fill(runtime_model::locale::Locale::En, &[("tool", &first_tool)]),
        ));
    }
    serde_json::from_str(&json)
        .map(Some)
        .map_err(|e| BackendError::Storage(format!("sandbox database: a kept answer: {e}")))
}

/// Keeps `answer` as the answer of the write `key` in `scope` (see [`kept_answer`]), and drops
/// the answers older than the window.
pub fn keep_answer(
    tx: &Connection,
    scope: &Scope,
    key: &str,
    tool: &str,
    answer: &str,
    now: i64,
) -> Result<(), runtime_model::backend::BackendError> {
    let db = |e: rusqlite::Error| {
        runtime_model::backend::BackendError::Storage(format!("sandbox database: {e}"))
    };
    tx.execute(
        "DELETE FROM answers WHERE answered_at <= ?1",
        params![now - ANSWER_WINDOW_SECS],
    )
    .map_err(db)?;
    tx.execute(
        "INSERT OR REPLACE INTO answers (product, organization, workspace, key, tool, answered_at, json) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            scope.product,
            scope.organization,
            scope.workspace,
            key,
            tool,
            now,
            answer
        ],
    )
    .map_err(db)?;
    Ok(())
}

impl Store {
    /// Opens `<dir>/sandbox.sqlite3`, creating the directory and a new database when there is
    /// no database file; an existing file that is not a sandbox database is refused
    /// ([`StoreError::NotASandbox`]), never replaced.
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        create_private_dir(dir)?;
        // Held until the store is open: see [`lock_for_opening`].
        let _opening = lock_for_opening(dir)?;
        let path = dir.join(DB_FILE);
        match std::fs::metadata(&path) {
            Ok(m) if m.len() == 0 => {
                return Err(StoreError::NotASandbox {
                    path,
                    why: "it is empty (0 bytes)".into(),
                })
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => create_database(dir, &path)?,
            Err(source) => return Err(StoreError::Dir { path, source }),
        }
        // Without SQLITE_OPEN_CREATE: a file gone since is an error, never a new empty database.
        let mut conn = Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_URI
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|source| StoreError::Open {
            path: path.clone(),
            source,
        })?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        refuse_foreign(&conn, &path)?;
        ensure_page_size(&conn, &path);
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        migrations()
            .to_latest(&mut conn)
            .map_err(|e| StoreError::Migrate {
                path: path.clone(),
                message: e.to_string(),
            })?;
        let mut idle = Vec::new();
        for _ in 0..reader_count() {
            // Read-only: a read tool that tried to write would fail, never write past the writer.
            let r = Connection::open_with_flags(
                &path,
                OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )
            .map_err(|source| StoreError::Open {
                path: path.clone(),
                source,
            })?;
            r.busy_timeout(std::time::Duration::from_secs(5))?;
            idle.push(r);
        }
        Ok(Store {
            conn: Mutex::new(conn),
            readers: Readers {
                idle: Mutex::new(idle),
                returned: Condvar::new(),
            },
            path,
        })
    }

    /// Runs `f` in a read transaction on a pooled read-only connection: it sees the last
    /// committed state, waits for no writer, and cannot write.
    pub fn read<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, E>,
    ) -> Result<T, E> {
        self.pooled_read(f, |e| E::from(StoreError::from(e)))
    }

    /// [`Store::read`] for tool calls: store failures become `BackendError::Storage`.
    pub fn call_read<T>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, runtime_model::backend::BackendError>,
    ) -> Result<T, runtime_model::backend::BackendError> {
        self.pooled_read(f, |e| {
            runtime_model::backend::BackendError::Storage(format!("sandbox database: {e}"))
        })
    }

    /// A read connection from the pool, `f` in a read transaction on it, the connection back.
    fn pooled_read<T, E>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, E>,
        db: impl FnOnce(rusqlite::Error) -> E,
    ) -> Result<T, E> {
        let conn = self.readers.take();
        let out = read_transaction(&conn, f, db);
        self.readers.give_back(conn);
        out
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How many calls can use the store at once: one per read connection, one for the writer.
    /// More threads working at once would only wait for a connection.
    pub fn lanes(&self) -> usize {
        reader_count() + 1
    }

    /// Frees what the writer connection's page cache holds (`PRAGMA shrink_memory`), after a
    /// write much larger than the ordinary ones (seeding a scope); the pages stay in the file
    /// and come back on demand. A failure only leaves the cache as it was.
    pub fn shrink_writer_cache(&self) {
        let conn = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        if let Err(e) = conn.execute_batch("PRAGMA shrink_memory") {
            tracing::debug!(error = %e, "sandbox database: shrink_memory failed");
        }
    }

    /// [`Store::transaction`] for tool calls: store failures become `BackendError::Storage`.
    pub fn call_transaction<T>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, runtime_model::backend::BackendError>,
    ) -> Result<T, runtime_model::backend::BackendError> {
        let mut conn = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        let db = |e: rusqlite::Error| {
            runtime_model::backend::BackendError::Storage(format!("sandbox database: {e}"))
        };
        let tx = conn.transaction().map_err(db)?;
        let out = f(&tx)?;
        tx.commit().map_err(db)?;
        Ok(out)
    }

    /// Runs `f` in one transaction: committed when it returns `Ok`, rolled back otherwise.
    pub fn transaction<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&Transaction<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        // A poisoned lock only means another call panicked mid-transaction; SQLite rolled it back.
        let mut conn = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        let tx = conn.transaction().map_err(StoreError::from)?;
        let out = f(&tx)?;
        tx.commit().map_err(StoreError::from)?;
        Ok(out)
    }
}

impl Readers {
    /// An idle connection, waiting for one to come back when all are lent.
    fn take(&self) -> Connection {
        // A poisoned lock only means a thread panicked while pushing or popping; the list is whole.
        let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(c) = idle.pop() {
                return c;
            }
            idle = self.returned.wait(idle).unwrap_or_else(|p| p.into_inner());
        }
    }

    fn give_back(&self, conn: Connection) {
        self.idle
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(conn);
        self.returned.notify_one();
    }
}

/// Runs `f` in a read transaction on `conn`, so that the statements it runs see one snapshot.
///
/// `BEGIN` and `ROLLBACK` are cached statements: rusqlite's `Connection::transaction` compiles
/// both anew on every call, which cost a sandbox read tool about 6K instructions of its ~250K
/// (issue 17). A read changes nothing, so the transaction always ends in a rollback; one that
/// failed to end is ended again without the cache, so the connection never returns to the pool
/// holding an old snapshot.
fn read_transaction<T, E>(
    conn: &Connection,
    f: impl FnOnce(&Connection) -> Result<T, E>,
    db: impl FnOnce(rusqlite::Error) -> E,
) -> Result<T, E> {
    if let Err(e) = conn.prepare_cached("BEGIN").and_then(|mut s| s.execute([])) {
        return Err(db(e));
    }
    let out = f(conn);
    let ended = conn
        .prepare_cached("ROLLBACK")
        .and_then(|mut s| s.execute([]));
    if ended.is_err() && !conn.is_autocommit() {
        let _ = conn.execute_batch("ROLLBACK");
    }
    out
}

pub fn is_seeded(tx: &Connection, scope: &Scope) -> Result<bool, StoreError> {
    Ok(tx
        .query_row(
            "SELECT 1 FROM scopes WHERE product=?1 AND organization=?2 AND workspace=?3",
            params![scope.product, scope.organization, scope.workspace],
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

pub fn mark_seeded(tx: &Connection, scope: &Scope, seed: u64) -> Result<(), StoreError> {
    tx.execute(
        "INSERT OR REPLACE INTO scopes (product, organization, workspace, seed, seeded_at)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![
            scope.product,
            scope.organization,
            scope.workspace,
            seed as i64,
            clock::datetime_string(clock::now())
        ],
    )?;
    Ok(())
}

/// Every scope seeded so far for a product.
pub fn seeded_scopes(tx: &Connection, product: &str) -> Result<Vec<Scope>, StoreError> {
    let mut stmt =
        tx.prepare("SELECT organization, workspace FROM scopes WHERE product=?1 ORDER BY 1, 2")?;
    let rows = stmt.query_map(params![product], |r| {
        Ok(Scope {
            product: product.to_string(),
            organization: r.get(0)?,
            workspace: r.get(1)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Deletes every record and seeded scope of a product.
pub fn clear_product(tx: &Connection, product: &str) -> Result<usize, StoreError> {
    let n = tx.execute("DELETE FROM records WHERE product=?1", params![product])?;
    tx.execute("DELETE FROM scopes WHERE product=?1", params![product])?;
    Ok(n)
}

/// Deletes the records of one scope (and forgets it was seeded).
pub fn clear_scope(tx: &Connection, scope: &Scope) -> Result<(), StoreError> {
    tx.execute(
        "DELETE FROM records WHERE product=?1 AND organization=?2 AND workspace=?3",
        params![scope.product, scope.organization, scope.workspace],
    )?;
    tx.execute(
        "DELETE FROM scopes WHERE product=?1 AND organization=?2 AND workspace=?3",
        params![scope.product, scope.organization, scope.workspace],
    )?;
    Ok(())
}

fn parse_row(id: String, seq: i64, json: &str) -> rusqlite::Result<Row> {
    Ok(Row {
        id,
        seq,
        json: object_of(json),
    })
}

/// A record's stored text parsed (text that is not an object reads as `{}`).
fn object_of(json: &str) -> Map<String, Value> {
    // From a `str`: serde_json then skips the UTF-8 checks of every string it reads.
    match serde_json::from_str::<Value>(json) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

/// A row of `SELECT id, seq, json`: the JSON is parsed where SQLite holds it, not copied first.
fn row_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
    parse_row(r.get(0)?, r.get(1)?, text_at(r, 2)?)
}

/// Every record of a type in a scope, newest first.
pub fn list(tx: &Connection, scope: &Scope, ty: &str) -> Result<Vec<Row>, StoreError> {
    let mut stmt = tx.prepare_cached(
        "SELECT id, seq, json FROM records
         WHERE product=?1 AND organization=?2 AND workspace=?3 AND type=?4
         ORDER BY created_at DESC, seq DESC",
    )?;
    let rows = stmt.query_map(
        params![scope.product, scope.organization, scope.workspace, ty],
        row_of,
    )?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// One page of the records of a type in a scope, newest first (the order of [`list`]): at most
/// `limit` records after the first `offset`, only the rows of the page read, so a list call costs
/// its page, not the whole type. Calls `each` with the stored JSON text of each record, in order,
/// without parsing it: the text of an object as `serde_json` wrote it (the triggers of the
/// schema's version 2 refuse any text that is not an object), and that text escaped for a JSON
/// string (version 3's `json_in_string`). Returns how many records it read.
pub fn list_page_json(
    tx: &Connection,
    scope: &Scope,
    ty: &str,
    offset: u64,
    limit: u64,
    mut each: impl FnMut(&str, &str),
) -> Result<usize, StoreError> {
    let mut stmt = tx.prepare_cached(
        "SELECT json, json_in_string FROM records
         WHERE product=?1 AND organization=?2 AND workspace=?3 AND type=?4
         ORDER BY created_at DESC, seq DESC LIMIT ?5 OFFSET ?6",
    )?;
    let clamp = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    let mut rows = stmt.query(params![
        scope.product,
        scope.organization,
        scope.workspace,
        ty,
        clamp(limit),
        clamp(offset)
    ])?;
    let mut n = 0;
    while let Some(row) = rows.next()? {
        each(text_at(row, 0)?, text_at(row, 1)?);
        n += 1;
    }
    Ok(n)
}

/// A stored record as [`scan_texts`] reads it: where SQLite holds it, nothing parsed.
pub struct StoredText<'r> {
    pub id: &'r str,
    pub seq: i64,
    /// The record's JSON text (an object, as `serde_json` wrote it).
    pub json: &'r str,
    row: &'r rusqlite::Row<'r>,
}

impl<'r> StoredText<'r> {
    /// `json` escaped for a JSON string (schema version 3), read only when asked for: a record
    /// a filter leaves out never has it read.
    pub fn in_string(&self) -> Result<&'r str, StoreError> {
        Ok(text_at(self.row, 3)?)
    }

    /// The record parsed, as [`list`] reads it; with `only`, only those of its top-level fields
    /// (the others are skipped, not built): the same values `list` reads for those names.
    pub fn parsed(&self, only: Option<&[&str]>) -> Row {
        Row {
            id: self.id.to_string(),
            seq: self.seq,
            json: match only {
                None => object_of(self.json),
                Some(names) => fields_of(self.json, names),
            },
        }
    }
}

/// The top-level fields named `names` of a record's stored text: what [`object_of`] holds under
/// those names (the last of a repeated name; nothing for text that is not one JSON object),
/// without building the other fields' values. The skipped values are still read as JSON, so the
/// two agree on every text `serde_json` wrote (the only texts stored, see [`SCHEMA_V2`]).
fn fields_of(json: &str, names: &[&str]) -> Map<String, Value> {
    use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};

    /// The object's wanted fields.
    struct Fields<'n>(&'n [&'n str]);
    /// A key: whether it is wanted, read without allocating.
    struct Key<'n>(&'n [&'n str]);

    impl<'de> Visitor<'de> for Key<'_> {
        type Value = Option<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a field name")
        }
        fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<Self::Value, E> {
            Ok(self.0.contains(&key).then(|| key.to_string()))
        }
    }
    impl<'de> DeserializeSeed<'de> for Key<'_> {
        type Value = Option<String>;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_str(self)
        }
    }
    impl<'de> Visitor<'de> for Fields<'_> {
        type Value = Map<String, Value>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = Map::new();
            while let Some(key) = map.next_key_seed(Key(self.0))? {
                match key {
                    Some(name) => {
                        let value: Value = map.next_value()?;
                        out.insert(name, value);
                    }
                    None => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok(out)
        }
    }

    let mut de = serde_json::Deserializer::from_str(json);
    match de
        .deserialize_map(Fields(names))
        .and_then(|m| de.end().map(|()| m))
    {
        Ok(m) => m,
        Err(_) => Map::new(),
    }
}

/// Every record of a type in a scope, newest first (the order of [`list`]), as stored text.
/// Calls `each` on them in order while it returns `Ok(true)`: only the rows it reads are read.
pub fn scan_texts(
    tx: &Connection,
    scope: &Scope,
    ty: &str,
    mut each: impl FnMut(StoredText<'_>) -> Result<bool, StoreError>,
) -> Result<(), StoreError> {
    let mut stmt = tx.prepare_cached(
        "SELECT id, seq, json, json_in_string FROM records
         WHERE product=?1 AND organization=?2 AND workspace=?3 AND type=?4
         ORDER BY created_at DESC, seq DESC",
    )?;
    let mut rows = stmt.query(params![
        scope.product,
        scope.organization,
        scope.workspace,
        ty
    ])?;
    while let Some(row) = rows.next()? {
        let record = StoredText {
            id: text_at(row, 0)?,
            seq: row.get(1)?,
            json: text_at(row, 2)?,
            row,
        };
        if !each(record)? {
            break;
        }
    }
    Ok(())
}

/// Column `i` of `row`, a text, where SQLite holds it (not copied).
fn text_at<'r>(row: &'r rusqlite::Row<'_>, i: usize) -> rusqlite::Result<&'r str> {
    let value = row.get_ref(i)?;
    // `ValueRef::as_str`'s check (std's), done first with SIMD: a list page's texts are about
    // 45 KB. Anything that fails it goes through `as_str` itself, for the very same error.
    if let rusqlite::types::ValueRef::Text(bytes) = value {
        if let Ok(text) = simdutf8::basic::from_utf8(bytes) {
            return Ok(text);
        }
    }
    value.as_str().map_err(rusqlite::Error::from)
}

/// One record by its string id, or by its numeric id when `key` is a number.
pub fn get(tx: &Connection, scope: &Scope, ty: &str, key: &str) -> Result<Option<Row>, StoreError> {
    let numeric = key.parse::<i64>().ok();
    let mut stmt = tx.prepare_cached(
        "SELECT id, seq, json FROM records
         WHERE product=?1 AND organization=?2 AND workspace=?3 AND type=?4
           AND (id=?5 OR (?6 IS NOT NULL AND seq=?6))
         ORDER BY (id=?5) DESC LIMIT 1",
    )?;
    Ok(stmt
        .query_row(
            params![
                scope.product,
                scope.organization,
                scope.workspace,
                ty,
                key,
                numeric
            ],
            row_of,
        )
        .optional()?)
}

pub fn next_seq(tx: &Connection, scope: &Scope, ty: &str) -> Result<i64, StoreError> {
    Ok(tx.query_row(
        "SELECT COALESCE(MAX(seq), 0) + 1 FROM records
         WHERE product=?1 AND organization=?2 AND workspace=?3 AND type=?4",
        params![scope.product, scope.organization, scope.workspace, ty],
        |r| r.get(0),
    )?)
}

/// Inserts or replaces a record.
pub fn put(
    tx: &Connection,
    scope: &Scope,
    ty: &str,
    row: &Row,
    created_at: &str,
) -> Result<(), StoreError> {
    let json = Value::Object(row.json.clone()).to_string();
    tx.execute(
        "INSERT OR REPLACE INTO records
         (product, organization, workspace, type, id, seq, created_at, json)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            scope.product,
            scope.organization,
            scope.workspace,
            ty,
            row.id,
            row.seq,
            created_at,
            json
        ],
    )?;
    Ok(())
}

pub fn delete(tx: &Connection, scope: &Scope, ty: &str, id: &str) -> Result<bool, StoreError> {
    Ok(tx.execute(
        "DELETE FROM records WHERE product=?1 AND organization=?2 AND workspace=?3 AND type=?4 AND id=?5",
        params![scope.product, scope.organization, scope.workspace, ty, id],
    )? > 0)
}

pub fn count(tx: &Connection, scope: &Scope, ty: &str) -> Result<i64, StoreError> {
    Ok(tx.query_row(
        "SELECT COUNT(*) FROM records WHERE product=?1 AND organization=?2 AND workspace=?3 AND type=?4",
        params![scope.product, scope.organization, scope.workspace, ty],
        |r| r.get(0),
    )?)
}

#[cfg(test)]
mod migration_tests {
    use super::*;

    #[test]
    fn the_migrations_are_valid() {
        assert!(migrations().validate().is_ok());
    }

    #[test]
    fn a_database_from_before_versioning_is_adopted_and_a_newer_one_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("sandbox.sqlite3");
        {
            // What versions before the migrations wrote: the same tables, user_version 0.
            let conn = Connection::open(&path).expect("open");
            conn.execute_batch(SCHEMA_V1).expect("old schema");
            conn.execute(
                "INSERT INTO scopes VALUES ('billing', 'org', '', 42, '2026-01-01')",
                [],
            )
            .expect("a seeded scope");
            // Records whose text is not an object, which the reader showed as `{}`.
            for (id, json) in [("a", "not json"), ("b", "[1,2]"), ("c", "{\"k\":\"v\"}")] {
                conn.execute(
                    "INSERT INTO records VALUES ('billing', 'org', '', 'invoice', ?1, 1, '2026-01-01', ?2)",
                    params![id, json],
                )
                .expect("an old record");
            }
        }
        let store = Store::open(dir.path()).expect("an unversioned database is adopted");
        let kept = store
            .transaction(|tx| {
                is_seeded(
                    tx,
                    &Scope {
                        product: "billing".into(),
                        organization: "org".into(),
                        workspace: String::new(),
                    },
                )
            })
            .expect("read");
        assert!(kept, "its data stays");
        let texts: Vec<String> = store
            .read(|tx| -> Result<_, StoreError> {
                let mut stmt = tx.prepare("SELECT json FROM records ORDER BY id")?;
                let rows = stmt.query_map([], |r| r.get(0))?;
                Ok(rows.collect::<Result<_, _>>()?)
            })
            .expect("read");
        assert_eq!(
            texts,
            ["{}", "{}", "{\"k\":\"v\"}"],
            "what was read as {{}} is {{}}"
        );
        drop(store);
        let version: i64 = Connection::open(&path)
            .expect("open")
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .expect("user_version");
        assert_eq!(version, migrations_count(), "the latest version");
        Connection::open(&path)
            .expect("open")
            .pragma_update(None, "user_version", 99)
            .expect("a future version");
        let err = Store::open(dir.path())
            .err()
            .expect("a newer schema is refused");
        assert!(
            err.to_string()
                .contains("cannot bring its schema up to date"),
            "{err}"
        );
    }
}

#[cfg(test)]
mod migration_v3_tests {
    use super::*;

    /// A data directory of the previous version (2) gains the escaped texts of its records,
    /// keeps its rows, index and triggers, and is refused by that previous version afterwards.
    #[test]
    fn a_version_2_database_gains_escaped_texts_and_an_older_binary_refuses_it() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("sandbox.sqlite3");
        // The schema an older binary knows: versions 1 and 2 only.
        let older = || Migrations::new(vec![M::up(SCHEMA_V1), M::up(SCHEMA_V2)]);
        // Version 3 itself (later versions have their own tests).
        let v3 = || Migrations::new(vec![M::up(SCHEMA_V1), M::up(SCHEMA_V2), M::up(SCHEMA_V3)]);
        let texts = [
            (
                "a",
                "{\"name\":\"Conceição \\\"Ção\\\"\\n\\u0001\",\"n\":1.5}",
            ),
            ("b", "{}"),
            ("c", "{\"k\":[null,true,{\"é\":\"\\\\\"}]}"),
        ];
        {
            let mut conn = Connection::open(&path).expect("open");
            older().to_latest(&mut conn).expect("version 2");
            for (i, (id, json)) in texts.iter().enumerate() {
                conn.execute(
                    "INSERT INTO records VALUES ('billing', 'org', '', 'invoice', ?1, ?2, '2026-01-01', ?3)",
                    params![id, i as i64, json],
                )
                .expect("a version 2 record");
            }
        }
        let mut conn = Connection::open(&path).expect("open");
        v3().to_latest(&mut conn).expect("version 2 is migrated");
        let stored: Vec<(String, String, String)> = {
            let mut stmt = conn
                .prepare("SELECT id, json, json_in_string FROM records ORDER BY id")
                .expect("query");
            let rows = stmt
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                .expect("read");
            rows.collect::<Result<_, _>>().expect("rows")
        };
        assert_eq!(stored.len(), texts.len(), "every record stays");
        for ((id, json, in_string), (want_id, want_json)) in stored.iter().zip(texts) {
            assert_eq!((id.as_str(), json.as_str()), (want_id, want_json));
            let quoted = serde_json::to_string(want_json).expect("a string");
            assert_eq!(in_string, &quoted[1..quoted.len() - 1], "{id}");
        }
        // The page query still reads through the index, newest first.
        let plan: String = conn
            .query_row(
                "EXPLAIN QUERY PLAN SELECT json FROM records
                 WHERE product='billing' AND organization='org' AND workspace='' AND type='invoice'
                 ORDER BY created_at DESC, seq DESC",
                [],
                |r| r.get(3),
            )
            .expect("plan");
        assert!(plan.contains("records_recent"), "{plan}");
        // The version 2 triggers are still there.
        for sql in [
            "INSERT INTO records VALUES ('billing', 'org', '', 'invoice', 'd', 9, '2026', '[1]')",
            "UPDATE records SET json = 'x' WHERE id = 'a'",
        ] {
            let err = conn.execute(sql, []).expect_err(sql);
            assert!(
                err.to_string()
                    .contains("must be the text of a JSON object"),
                "{sql}: {err}"
            );
        }
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .expect("user_version");
        assert_eq!(version, 3);
        let refused = older().to_latest(&mut conn);
        assert!(
            refused.is_err(),
            "a binary that knows only version 2 refuses version 3"
        );
    }
}

#[cfg(test)]
mod migration_v4_tests {
    use super::*;

    fn scope(organization: &str) -> Scope {
        Scope {
            product: "billing".into(),
            organization: organization.into(),
            workspace: String::new(),
        }
    }

    /// A list's records as (id, seq, json text), in order.
    type Listed = Vec<(String, i64, String)>;

    /// Every scope's and type's records, each in list order.
    fn every_list(tx: &Connection) -> Vec<(String, Listed)> {
        let mut out = Vec::new();
        for org in ["org", "other"] {
            for ty in ["invoice", "customer"] {
                let rows = list(tx, &scope(org), ty).expect("list");
                out.push((
                    format!("{org}/{ty}"),
                    rows.into_iter()
                        .map(|r| (r.id, r.seq, Value::Object(r.json).to_string()))
                        .collect(),
                ));
            }
        }
        out
    }

    /// A version 3 data directory is rebuilt in list order: the same records, read in the same
    /// order, the page read straight from the table's key (no index, no sort), a record still
    /// replaced by its id, the version 2 triggers kept, and an older binary refusing it.
    #[test]
    fn a_version_3_database_is_stored_in_list_order_and_an_older_binary_refuses_it() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("sandbox.sqlite3");
        let older = || Migrations::new(vec![M::up(SCHEMA_V1), M::up(SCHEMA_V2), M::up(SCHEMA_V3)]);
        let before = {
            let mut conn = Connection::open(&path).expect("open");
            older().to_latest(&mut conn).expect("version 3");
            let tx = conn.transaction().expect("tx");
            // Inserted out of order, with dates and seqs that tie, in two scopes and two types.
            let mut n = 0;
            for org in ["other", "org"] {
                for ty in ["customer", "invoice"] {
                    for (i, day) in [3, 1, 2, 2, 5, 1, 4].into_iter().enumerate() {
                        n += 1;
                        let seq = (i % 3) as i64;
                        tx.execute(
                            "INSERT INTO records VALUES ('billing', ?1, '', ?2, ?3, ?4, ?5, ?6)",
                            params![
                                org,
                                ty,
                                format!("{ty}_{i}"),
                                seq,
                                format!("2026-01-0{day}T00:00:00Z"),
                                format!("{{\"n\":{n},\"note\":\"\\\"é\\\"\"}}")
                            ],
                        )
                        .expect("a version 3 record");
                    }
                }
            }
            let lists = every_list(&tx);
            tx.commit().expect("commit");
            lists
        };
        let pages = |conn: &Connection| -> (i64, String) {
            let size = conn
                .query_row("PRAGMA page_size", [], |r| r.get(0))
                .expect("size");
            let mode = conn
                .query_row("PRAGMA journal_mode", [], |r| r.get(0))
                .expect("mode");
            (size, mode)
        };
        let (old_size, _) = pages(&Connection::open(&path).expect("open"));
        assert!(
            old_size < PAGE_SIZE,
            "SQLite's default pages, {old_size} bytes"
        );
        let store = Store::open(dir.path()).expect("version 3 is migrated");
        assert_eq!(
            pages(&Connection::open(&path).expect("open")),
            (PAGE_SIZE, "wal".to_string()),
            "rewritten with larger pages, in WAL mode again"
        );
        let after = store
            .read(|tx| Ok::<_, StoreError>(every_list(tx)))
            .expect("read");
        assert_eq!(after, before, "the same records in the same order");
        assert!(after.iter().all(|(_, rows)| rows.len() == 7));
        // A page is one pass over the table's key: no index, no temporary sort.
        let plan: Vec<String> = store
            .read(|tx| -> Result<_, StoreError> {
                let mut stmt = tx.prepare(
                    "EXPLAIN QUERY PLAN SELECT json, json_in_string FROM records
                     WHERE product='billing' AND organization='org' AND workspace='' AND type='invoice'
                     ORDER BY created_at DESC, seq DESC LIMIT 3 OFFSET 2",
                )?;
                let rows = stmt.query_map([], |r| r.get(3))?;
                Ok(rows.collect::<Result<_, _>>()?)
            })
            .expect("plan");
        assert_eq!(plan.len(), 1, "{plan:?}");
        assert!(plan[0].contains("USING PRIMARY KEY"), "{plan:?}");
        // A record is still replaced by its id, whatever its date: one record with that id.
        let org = scope("org");
        store
            .transaction(|tx| {
                let row = get(tx, &org, "invoice", "invoice_0")?.expect("the record");
                put(tx, &org, "invoice", &row, "2027-01-01T00:00:00Z")
            })
            .expect("replace");
        let (count, first) = store
            .read(|tx| -> Result<_, StoreError> {
                Ok((
                    count(tx, &org, "invoice")?,
                    list(tx, &org, "invoice")?.remove(0).id,
                ))
            })
            .expect("read");
        assert_eq!(
            (count, first.as_str()),
            (7, "invoice_0"),
            "replaced, now newest"
        );
        // The version 2 triggers are still there.
        for sql in [
            "INSERT INTO records VALUES ('billing', 'org', '', 'invoice', 'd', 9, '2026', '[1]')",
            "UPDATE records SET json = 'x' WHERE id = 'invoice_1'",
        ] {
            let err = store
                .transaction(|tx| -> Result<usize, StoreError> { Ok(tx.execute(sql, [])?) })
                .expect_err(sql);
            assert!(
                err.to_string()
                    .contains("must be the text of a JSON object"),
                "{sql}: {err}"
            );
        }
        drop(store);
        let mut conn = Connection::open(&path).expect("open");
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .expect("user_version");
        assert_eq!(version, migrations_count());
        assert!(
            older().to_latest(&mut conn).is_err(),
            "a binary that knows only version 3 refuses a newer version"
        );
        drop(conn);
        // A new database has those pages from the start.
        let fresh = tempfile::tempdir().expect("temp dir");
        drop(Store::open(fresh.path()).expect("a new database"));
        let conn = Connection::open(fresh.path().join("sandbox.sqlite3")).expect("open");
        assert_eq!(pages(&conn), (PAGE_SIZE, "wal".to_string()));
    }

    /// A database another connection holds open cannot be rewritten with larger pages: it is
    /// opened as it is, its pages unchanged, and read the same.
    #[test]
    fn a_database_in_use_keeps_its_pages_and_opens() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("sandbox.sqlite3");
        let mut conn = Connection::open(&path).expect("open");
        conn.pragma_update(None, "journal_mode", "WAL")
            .expect("wal");
        Migrations::new(vec![M::up(SCHEMA_V1), M::up(SCHEMA_V2), M::up(SCHEMA_V3)])
            .to_latest(&mut conn)
            .expect("version 3");
        conn.execute(
            "INSERT INTO records VALUES ('billing', 'org', '', 'invoice', 'a', 1, '2026', '{}')",
            [],
        )
        .expect("a record");
        // Another process reading: a read transaction left open.
        let reader = Connection::open(&path).expect("open");
        reader.execute_batch("BEGIN").expect("begin");
        let n: i64 = reader
            .query_row("SELECT COUNT(*) FROM records", [], |r| r.get(0))
            .expect("count");
        assert_eq!(n, 1);
        let store = Store::open(dir.path()).expect("opened anyway");
        let size: i64 = conn
            .query_row("PRAGMA page_size", [], |r| r.get(0))
            .expect("size");
        assert!(size < PAGE_SIZE, "its pages are unchanged: {size}");
        let ids = store
            .read(|tx| list(tx, &scope("org"), "invoice"))
            .expect("read");
        assert_eq!(ids.len(), 1);
    }
}

#[cfg(test)]
mod reader_tests {
    use super::*;

    /// The page [`list_page_json`] reads, as parsed rows: what its texts must be.
    fn list_page(
        tx: &Connection,
        scope: &Scope,
        ty: &str,
        offset: u64,
        limit: u64,
    ) -> Result<Vec<Row>, StoreError> {
        let mut stmt = tx.prepare_cached(
            "SELECT id, seq, json FROM records
             WHERE product=?1 AND organization=?2 AND workspace=?3 AND type=?4
             ORDER BY created_at DESC, seq DESC LIMIT ?5 OFFSET ?6",
        )?;
        // SQLite's integers are i64: a page beyond that is past every record anyway.
        let clamp = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        let rows = stmt.query_map(
            params![
                scope.product,
                scope.organization,
                scope.workspace,
                ty,
                clamp(limit),
                clamp(offset)
            ],
            row_of,
        )?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    use std::sync::mpsc;
    use std::time::Duration;

    /// `text` as `serde_json` writes it inside a JSON string, without the quotes.
    fn in_a_string(text: &str) -> String {
        let quoted = serde_json::to_string(text).unwrap();
        quoted[1..quoted.len() - 1].to_string()
    }

    /// Every stored record's escaped text is `serde_json`'s escaping of its text, whoever wrote
    /// it and however: this code's `put`, a raw insert, an update, and text holding every ASCII
    /// byte (control bytes, quotes, backslashes) and characters beyond ASCII.
    #[test]
    fn the_escaped_text_is_always_serde_jsons_escaping_of_the_text() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let every_ascii: String = (0u8..0x80).map(char::from).collect();
        let mut odd = row("odd");
        odd.json
            .insert("all".into(), Value::from(every_ascii.clone()));
        odd.json.insert(
            "beyond".into(),
            Value::from("ação 💸 \u{2028}\u{2029}\u{feff} \\\"\\"),
        );
        store
            .transaction(|tx| -> Result<(), StoreError> {
                put(tx, &scope(), "invoice", &odd, "2026-01-01")?;
                put(tx, &scope(), "invoice", &row("plain"), "2026-01-02")?;
                tx.execute(
                    "INSERT INTO records VALUES ('billing', 'org', '', 'invoice', 'raw', 3, '2026-01-03', ?1)",
                    params![serde_json::json!({"k": every_ascii}).to_string()],
                )?;
                tx.execute(
                    "UPDATE records SET json = ?1 WHERE id = 'plain'",
                    params![serde_json::json!({"changed": "\"é\"\n"}).to_string()],
                )?;
                Ok(())
            })
            .unwrap();
        let stored: Vec<(String, String)> = store
            .read(|tx| -> Result<_, StoreError> {
                let mut stmt =
                    tx.prepare("SELECT json, json_in_string FROM records ORDER BY id")?;
                let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
                Ok(rows.collect::<Result<_, _>>()?)
            })
            .unwrap();
        assert_eq!(stored.len(), 3);
        for (text, in_string) in &stored {
            assert_eq!(in_string, &in_a_string(text), "{text}");
        }
        assert!(stored[1].0.contains("changed"), "the update was stored");
        assert!(
            stored
                .iter()
                .any(|(_, e)| e.contains("\\u001f") && e.contains("\\\\\\\"")),
            "control bytes, backslashes and quotes were escaped: {stored:?}"
        );
    }

    /// [`text_at`] reads what `ValueRef::as_str` reads: the same text for valid UTF-8 (long,
    /// short, every width of character), the same error (with std's position) for text that is
    /// not UTF-8 (a stray byte, a cut character, an overlong form, a surrogate), and the same
    /// type error for a column that is not text.
    #[test]
    fn stored_text_is_checked_as_std_checks_it() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let long = "ação 💸 €".repeat(4000);
        let mut cut = long.as_bytes().to_vec();
        cut.truncate(cut.len() - 2);
        let text = |bytes: &[u8]| -> rusqlite::types::Value {
            rusqlite::types::Value::Blob(bytes.to_vec())
        };
        let cases: Vec<(&str, rusqlite::types::Value)> = vec![
            ("SELECT CAST(?1 AS TEXT)", text(b"{}")),
            ("SELECT CAST(?1 AS TEXT)", text(b"")),
            ("SELECT CAST(?1 AS TEXT)", text(long.as_bytes())),
            (
                "SELECT CAST(?1 AS TEXT)",
                text(&[long.as_bytes(), b"\xff", long.as_bytes()].concat()),
            ),
            ("SELECT CAST(?1 AS TEXT)", text(&cut)),
            ("SELECT CAST(?1 AS TEXT)", text(b"\xc0\x80")),
            ("SELECT CAST(?1 AS TEXT)", text(b"\xed\xa0\x80")),
            (
                "SELECT CAST(?1 AS TEXT)",
                text(&[&b"{\"k\":\""[..], &[0xf0, 0x9f, 0x92], &b"\"}"[..]].concat()),
            ),
            ("SELECT ?1", text(b"{}")),
            ("SELECT ?1", rusqlite::types::Value::Integer(7)),
            ("SELECT ?1", rusqlite::types::Value::Null),
        ];
        let mut invalid = 0;
        for (sql, value) in &cases {
            let (ours, old) = conn
                .query_row(sql, [value], |r| {
                    let old = r.get_ref(0)?.as_str().map_err(rusqlite::Error::from);
                    Ok((format!("{:?}", text_at(r, 0)), format!("{old:?}")))
                })
                .unwrap();
            assert_eq!(ours, old, "{sql} {value:?}");
            invalid += usize::from(ours.contains("Utf8Error"));
        }
        assert_eq!(invalid, 5, "each text that is not UTF-8 was refused");
    }

    fn scope() -> Scope {
        Scope {
            product: "billing".into(),
            organization: "org".into(),
            workspace: String::new(),
        }
    }

    fn row(id: &str) -> Row {
        let mut json = Map::new();
        json.insert("id".into(), Value::from(id));
        Row {
            id: id.into(),
            seq: 1,
            json,
        }
    }

    /// A write transaction held open (the writer's lock taken, a row written but not committed)
    /// does not stop a read, which sees the last committed state; after the commit, it sees the row.
    #[test]
    fn reads_never_wait_for_a_write_and_see_only_committed_rows() {
        let dir = tempfile::tempdir().unwrap();
        let store = std::sync::Arc::new(Store::open(dir.path()).unwrap());
        let (written, wait_written) = mpsc::channel();
        let (release, wait_release) = mpsc::channel::<()>();
        let writer = {
            let store = store.clone();
            std::thread::spawn(move || {
                store
                    .transaction(|tx| -> Result<(), StoreError> {
                        put(tx, &scope(), "invoice", &row("a"), "2026-01-01")?;
                        written.send(()).unwrap();
                        wait_release.recv().unwrap();
                        Ok(())
                    })
                    .unwrap();
            })
        };
        wait_written.recv().unwrap();
        let (read, got) = mpsc::channel();
        {
            let store = store.clone();
            std::thread::spawn(move || {
                let n = store.read(|tx| count(tx, &scope(), "invoice")).unwrap();
                read.send(n).unwrap();
            });
        }
        // A deadlock detector, not a speed limit: with reads behind the writer's lock this waits
        // forever.
        let seen = got
            .recv_timeout(Duration::from_secs(30))
            .expect("the read finished while the write was open");
        assert_eq!(seen, 0, "the uncommitted row is not visible");
        release.send(()).unwrap();
        writer.join().unwrap();
        assert_eq!(store.read(|tx| count(tx, &scope(), "invoice")).unwrap(), 1);
    }

    /// What [`list_page_json`] joins is what [`list_page`] parses: the same records, in the same
    /// order, each text the compact JSON of its parsed record (accents and escapes included).
    #[test]
    fn page_texts_are_the_stored_records_as_serde_json_writes_them() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        store
            .transaction(|tx| -> Result<(), StoreError> {
                for i in 0..7 {
                    let mut r = row(&format!("r{i}"));
                    r.seq = i;
                    r.json
                        .insert("name".into(), Value::from("Conceição \"Ção\"\n\u{1}"));
                    r.json
                        .insert("amount".into(), Value::from(1234.56 + f64::from(i as i32)));
                    r.json
                        .insert("tags".into(), serde_json::json!([null, true, {"é": 0.1}]));
                    put(
                        tx,
                        &scope(),
                        "invoice",
                        &r,
                        &format!("2026-01-0{}", 1 + i % 3),
                    )?;
                }
                Ok(())
            })
            .unwrap();
        for (offset, limit) in [(0, 50), (2, 3), (6, 5), (7, 5), (u64::MAX, 1)] {
            let (texts, parsed) = store
                .read(|tx| -> Result<_, StoreError> {
                    let mut texts = Vec::new();
                    let n = list_page_json(tx, &scope(), "invoice", offset, limit, |t, e| {
                        texts.push((t.to_string(), e.to_string()))
                    })?;
                    assert_eq!(n, texts.len());
                    Ok((texts, list_page(tx, &scope(), "invoice", offset, limit)?))
                })
                .unwrap();
            let expected: Vec<(String, String)> = parsed
                .into_iter()
                .map(|r| {
                    let text = Value::Object(r.json).to_string();
                    let in_string = in_a_string(&text);
                    (text, in_string)
                })
                .collect();
            assert_eq!(texts, expected, "offset {offset}, limit {limit}");
        }
    }

    /// A record's text is always a JSON object: anything else is refused, whoever writes it.
    #[test]
    fn a_record_text_that_is_not_an_object_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        store
            .transaction(|tx| put(tx, &scope(), "invoice", &row("a"), "2026-01-01"))
            .unwrap();
        for bad in ["", "{", "[1]", "\"text\"", "{\"a\":1} x"] {
            let insert = store.transaction(|tx| -> Result<usize, StoreError> {
                Ok(tx.execute(
                    "INSERT INTO records VALUES ('billing', 'org', '', 'invoice', 'b', 2, '2026', ?1)",
                    params![bad],
                )?)
            });
            let err = insert.expect_err(bad).to_string();
            assert!(
                err.contains("must be the text of a JSON object"),
                "{bad}: {err}"
            );
            let update = store.transaction(|tx| -> Result<usize, StoreError> {
                Ok(tx.execute("UPDATE records SET json=?1 WHERE id='a'", params![bad])?)
            });
            assert!(update.is_err(), "{bad}");
        }
        assert_eq!(store.read(|tx| count(tx, &scope(), "invoice")).unwrap(), 1);
    }

    #[test]
    fn read_connections_cannot_write() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let err = store
            .read(|tx| put(tx, &scope(), "invoice", &row("a"), "2026-01-01"))
            .unwrap_err();
        assert!(err.to_string().contains("readonly"), "{err}");
        assert_eq!(store.read(|tx| count(tx, &scope(), "invoice")).unwrap(), 0);
    }

    /// A read ends its transaction whatever `f` returns: every connection back in the pool is
    /// out of any transaction, so the next read on it sees what was committed since (a
    /// connection left inside one would keep answering from its old snapshot).
    #[test]
    fn a_read_ends_its_transaction_even_when_it_fails() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        for _ in 0..reader_count() {
            let failed = store.read(|tx| -> Result<(), StoreError> {
                assert!(!tx.is_autocommit(), "f runs inside a transaction");
                count(tx, &scope(), "invoice")?;
                Err(StoreError::Sql(rusqlite::Error::InvalidQuery))
            });
            assert!(failed.is_err());
            let readonly = store.read(|tx| put(tx, &scope(), "invoice", &row("x"), "2026-01-01"));
            assert!(readonly.is_err());
        }
        let idle = store.readers.idle.lock().unwrap();
        assert_eq!(idle.len(), reader_count());
        assert!(idle.iter().all(Connection::is_autocommit));
        drop(idle);
        store
            .transaction(|tx| put(tx, &scope(), "invoice", &row("a"), "2026-01-01"))
            .unwrap();
        for _ in 0..2 * reader_count() {
            assert_eq!(store.read(|tx| count(tx, &scope(), "invoice")).unwrap(), 1);
        }
    }

    /// More readers at once than the pool holds: each waits for a connection, none fails.
    #[test]
    fn more_concurrent_reads_than_connections_all_complete() {
        let dir = tempfile::tempdir().unwrap();
        let store = std::sync::Arc::new(Store::open(dir.path()).unwrap());
        store
            .transaction(|tx| put(tx, &scope(), "invoice", &row("a"), "2026-01-01"))
            .unwrap();
        let threads: Vec<_> = (0..4 * reader_count())
            .map(|_| {
                let store = store.clone();
                std::thread::spawn(move || {
                    (0..20)
                        .map(|_| store.read(|tx| count(tx, &scope(), "invoice")).unwrap())
                        .sum::<i64>()
                })
            })
            .collect();
        for t in threads {
            assert_eq!(t.join().unwrap(), 20);
        }
    }
}

#[cfg(test)]
mod opening_tests {
    use super::*;

    /// Instances started together on one directory all open it, whether the directory is new
    /// (each builds a database aside and the first link wins, [`create_database`]) or holds a
    /// database at an older schema (they take turns, [`lock_for_opening`]). Issue 37, item 8: when every instance created and migrated the same file, one
    /// exited with "cannot bring its schema up to date … already exists".
    #[test]
    fn instances_opening_one_directory_together_all_open_it() {
        for older in [false, true] {
            for _ in 0..5 {
                let dir = tempfile::tempdir().expect("temp dir");
                if older {
                    // A database two schema versions behind, as an older release left it.
                    let path = dir.path().join(DB_FILE);
                    let mut conn = Connection::open(&path).expect("db");
                    conn.pragma_update(None, "journal_mode", "WAL")
                        .expect("wal");
                    Migrations::new(vec![M::up(SCHEMA_V1), M::up(SCHEMA_V2)])
                        .to_latest(&mut conn)
                        .expect("v2");
                }
                let barrier = std::sync::Barrier::new(4);
                let opened: Vec<Result<(), String>> = std::thread::scope(|scope| {
                    let handles: Vec<_> = (0..4)
                        .map(|_| {
                            scope.spawn(|| {
                                barrier.wait();
                                Store::open(dir.path()).map(drop).map_err(|e| e.to_string())
                            })
                        })
                        .collect();
                    handles
                        .into_iter()
                        .map(|h| h.join().expect("thread"))
                        .collect()
                });
                for o in &opened {
                    assert!(o.is_ok(), "older schema {older}: {o:?}");
                }
            }
        }
    }
}
