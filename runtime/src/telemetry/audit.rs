//! The audit trail: one JSON record per write or destructive `tools/call` answered, whatever
//! its outcome (ran, failed, declined, refused, unknown).
//!
//! A record says who (person, organization, workspace), what (product, tool, protocol
//! revision, the canonical SHA-256 of the arguments and the arguments with secrets removed),
//! and what became of it (outcome and error code, confirmation id, upstream status and request
//! id, idempotency key, trace id). A confirmation question alone (`input_required`) writes no
//! record: nothing was decided; its answer does.
//!
//! Secrets never reach the trail: the arguments pass through [`redact`] (the one rule, in
//! `runtime_model::secrets`, which confirmation forms follow too).
//!
//! Sinks: stderr, or a JSON Lines file opened for append, rotated by size
//! (`file` → `file.1` → … → `file.<keep>`, the oldest dropped).
//!
//! A record is written in place, before the answer leaves, and never dropped: a write is refused
//! before it runs when the file could not take its record ([`AuditSink::ready`]: less than
//! [`HEADROOM`] free on its filesystem, or [`RESERVE`] cannot be reserved past the file's end
//! for the records to come), and a record the disk cut short is taken back out whole
//! ([`AuditSink::write`]), so the file never holds a partial line for the next record to join. So unlike the
//! log (`log_queue` in the binary, which drops lines with a notice rather than wait), the stderr
//! sink waits for whoever reads stderr: a pipe nobody reads holds up the writes it audits.
//! That is the price of a trail with no gaps; the file sink is the production setting.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde_json::Value;

pub use runtime_model::secrets::{redact, REDACTED};

/// Where audit records go.
#[derive(Debug, Clone)]
pub enum AuditTarget {
    Stderr,
    File {
        path: PathBuf,
        /// A file reaching this size is rotated before the next record.
        max_bytes: u64,
        /// Rotated files kept (`path.1` … `path.<keep>`).
        keep: usize,
    },
}

/// Default size of an audit file before rotation (100 MiB).
pub const DEFAULT_MAX_BYTES: u64 = 100 * 1024 * 1024;
/// Default number of rotated audit files kept.
pub const DEFAULT_KEEP: usize = 10;

/// The free space the audit file's filesystem must have for a write to run: room for its record
/// many times over (a record is a few KiB; arguments are bounded by the request size).
pub const HEADROOM: u64 = 4 * 1024 * 1024;

/// The room reserved past the audit file's end for the records of writes found ready
/// (`reserve`): hundreds of ordinary records (a few KiB each). The check wants [`HEADROOM`]
/// free beside it.
pub const RESERVE: u64 = 1024 * 1024;

/// An open audit sink. Records are whole lines, written under one lock.
pub struct AuditSink {
    out: Mutex<Out>,
}

enum Out {
    Stderr,
    File {
        path: PathBuf,
        file: File,
        size: u64,
        max_bytes: u64,
        keep: usize,
    },
}

fn open_append(path: &Path) -> std::io::Result<File> {
    OpenOptions::new().create(true).append(true).open(path)
}

impl AuditSink {
    /// Opens the sink; a file that cannot be created or opened for append is an error naming it.
    pub fn open(target: AuditTarget) -> Result<Self, String> {
        let out = match target {
            AuditTarget::Stderr => Out::Stderr,
            AuditTarget::File {
                path,
                max_bytes,
                keep,
            } => {
                let err = |e: std::io::Error| format!("audit file {}: {e}", path.display());
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    std::fs::create_dir_all(dir).map_err(err)?;
                }
                let file = open_append(&path).map_err(err)?;
                let size = file.metadata().map(|m| m.len()).unwrap_or(0);
                Out::File {
                    path,
                    file,
                    size,
                    max_bytes: max_bytes.max(1),
                    keep,
                }
            }
        };
        Ok(Self {
            out: Mutex::new(out),
        })
    }

    /// Whether a write may run: the sink can take its record. `Err` says why not (the file's
    /// filesystem is nearly full, or the file is gone from reach). Stderr is always ready.
    pub fn ready(&self) -> Result<String, String> {
        let Ok(out) = self.out.lock() else {
            return Err("the audit sink is unusable (a writer panicked)".into());
        };
        match &*out {
            Out::Stderr => Ok("stderr".into()),
            Out::File {
                path, file, size, ..
            } => {
                let dir = path
                    .parent()
                    .filter(|d| !d.as_os_str().is_empty())
                    .unwrap_or(Path::new("."));
                let free = available_space(dir)
                    .map_err(|e| format!("audit file {}: {e}", path.display()))?;
                if free < HEADROOM {
                    return Err(format!(
                        "audit file {}: {free} bytes free on its filesystem, under the {HEADROOM} a write needs",
                        path.display()
                    ));
                }
                reserve(file, *size).map_err(|e| {
                    format!(
                        "audit file {}: cannot reserve room for the record: {e}",
                        path.display()
                    )
                })?;
                Ok(format!("{} ({free} bytes free)", path.display()))
            }
        }
    }

    /// Writes one record as one line. A failure is logged (the call's answer stands).
    pub fn write(&self, record: &Value) {
        let mut line = record.to_string();
        line.push('\n');
        let Ok(mut out) = self.out.lock() else {
            return;
        };
        let result = match &mut *out {
            Out::Stderr => std::io::stderr().lock().write_all(line.as_bytes()),
            Out::File {
                path,
                file,
                size,
                max_bytes,
                keep,
            } => {
                if *size > 0 && *size + line.len() as u64 > *max_bytes {
                    match rotate(path, *keep) {
                        Ok(f) => {
                            *file = f;
                            *size = 0;
                        }
                        Err(e) => {
                            tracing::error!(path = %path.display(), error = %e, "cannot rotate the audit file; appending")
                        }
                    }
                }
                let r = file.write_all(line.as_bytes());
                match &r {
                    Ok(()) => *size += line.len() as u64,
                    // Part of the line may be in the file: cut it back to the last whole
                    // record, so that the next one does not join a broken line.
                    Err(_) => {
                        if let Err(e) = file.set_len(*size) {
                            tracing::error!(path = %path.display(), error = %e, "cannot cut a partial audit record");
                        }
                    }
                }
                r
            }
        };
        if let Err(e) = result {
            tracing::error!(error = %e, "cannot write an audit record");
        }
    }
}

/// The bytes of the filesystem holding `dir` that this process may still write (what is left to
/// an unprivileged user: the root-only reserve of ext4 and the user's disk quota excluded).
/// Unix but Apple's: `statvfs`, available blocks times the fragment size.
#[cfg(all(unix, not(target_vendor = "apple")))]
fn available_space(dir: &Path) -> std::io::Result<u64> {
    let stat = rustix::fs::statvfs(dir)?;
    Ok(stat.f_bavail.saturating_mul(stat.f_frsize))
}

/// macOS: `statfs`, available blocks times the block size. Its counts are 64-bit, where
/// `statvfs`'s are 32-bit on Apple's systems (`fsblkcnt_t` is an `unsigned int`): they cannot
/// count the blocks of a volume past 2^32 of them (16 TiB of 4 KiB blocks), and a wrong count
/// here refuses writes that have room, or runs writes that have none.
#[cfg(target_vendor = "apple")]
fn available_space(dir: &Path) -> std::io::Result<u64> {
    let stat = rustix::fs::statfs(dir)?;
    Ok(stat.f_bavail.saturating_mul(u64::from(stat.f_bsize)))
}

/// Windows: `GetDiskFreeSpaceExW`'s bytes available to the caller (quota-aware, like
/// `f_bavail`), asked of the directory's absolute path with a trailing separator (a UNC share
/// needs one; a drive directory accepts it).
#[cfg(windows)]
fn available_space(dir: &Path) -> std::io::Result<u64> {
    use std::os::windows::ffi::OsStrExt;
    use windows_sys::Win32::Storage::FileSystem::GetDiskFreeSpaceExW;
    let mut wide: Vec<u16> = std::path::absolute(dir)?
        .as_os_str()
        .encode_wide()
        .collect();
    if !matches!(wide.last(), Some(&c) if c == u16::from(b'\\') || c == u16::from(b'/')) {
        wide.push(u16::from(b'\\'));
    }
    wide.push(0);
    let mut free: u64 = 0;
    // SAFETY: FFI call. `wide` is a NUL-terminated UTF-16 path that lives across the call; `free`
    // is a valid, writable u64 for the first out-parameter; the other two out-parameters are
    // null, which the function documents as "not wanted". It keeps no pointer after returning.
    let ok = unsafe {
        GetDiskFreeSpaceExW(
            wide.as_ptr(),
            &mut free,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    };
    if ok == 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(free)
}

/// Allocates [`RESERVE`] bytes of the file past its end (`size`) without growing it, so that the
/// records of the writes found ready land in blocks the file already owns: the disk filling up
/// between a write's check and its record (the fault script saw one) then costs no record. The
/// blocks count as used by the next check's `statvfs`, so a write needs [`HEADROOM`] free beside
/// the reservation. Concurrent writes share it (records are a few KiB; a record larger than what
/// is left of it, arguments near the request size limit, is back to the free-space check alone).
/// Linux only (`FALLOC_FL_KEEP_SIZE`); a filesystem without `fallocate`, and other systems (macOS,
/// Windows), rely on the free-space check alone: a write still runs only when the check finds
/// [`HEADROOM`] free, so a record that cannot be written is refused before its write, and only
/// the disk filling up between the check and the record can still cost one.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn reserve(file: &File, size: u64) -> std::io::Result<()> {
    use rustix::fs::{fallocate, FallocateFlags};
    match fallocate(file, FallocateFlags::KEEP_SIZE, size, RESERVE) {
        Ok(()) => Ok(()),
        Err(e) if e == rustix::io::Errno::OPNOTSUPP || e == rustix::io::Errno::NOSYS => Ok(()),
        Err(e) => Err(e.into()),
    }
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn reserve(_file: &File, _size: u64) -> std::io::Result<()> {
    Ok(())
}

/// `path.<keep-1>` → `path.<keep>` … `path` → `path.1`; returns the new, empty `path`.
fn rotate(path: &Path, keep: usize) -> std::io::Result<File> {
    let numbered = |n: usize| {
        let mut p = path.as_os_str().to_owned();
        p.push(format!(".{n}"));
        PathBuf::from(p)
    };
    if keep == 0 {
        std::fs::remove_file(path)?;
    } else {
        let _ = std::fs::remove_file(numbered(keep));
        for n in (1..keep).rev() {
            let from = numbered(n);
            if from.exists() {
                std::fs::rename(&from, numbered(n + 1))?;
            }
        }
        std::fs::rename(path, numbered(1))?;
    }
    open_append(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn files_rotate_by_size_and_keep_the_newest() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("audit.jsonl");
        let sink = AuditSink::open(AuditTarget::File {
            path: path.clone(),
            max_bytes: 40,
            keep: 2,
        })
        .unwrap();
        for i in 0..5 {
            sink.write(&json!({"n": i, "pad": "xxxxxxxxxxxxxxxx"}));
        }
        let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
        let n = |p: PathBuf| read(&p);
        assert!(read(&path).contains("\"n\":4"));
        assert!(n(dir.path().join("audit.jsonl.1")).contains("\"n\":3"));
        assert!(n(dir.path().join("audit.jsonl.2")).contains("\"n\":2"));
        assert!(!dir.path().join("audit.jsonl.3").exists());
    }
}
