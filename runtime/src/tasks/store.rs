//! Tasks kept in the confirmation ledger: create, read (by owner), change (compare-and-set).

use std::sync::Arc;

use serde_json::Map;

use super::options::TaskOptions;
use super::record::{Status, TaskRecord};
use crate::confirm::{Ledger, LedgerError};

/// The prefix of task records among the ledger's keys.
pub const KEY_PREFIX: &str = "task:";

/// How many times a change is retried when another writer changed the record meanwhile.
const MAX_CAS_ATTEMPTS: usize = 32;

/// Why the store could not answer.
#[derive(Debug, Clone, thiserror::Error)]
pub enum TaskStoreError {
    #[error(transparent)]
    Ledger(#[from] LedgerError),
    /// A stored record does not parse (a bug, or another program writing our keys).
    #[error("task {0} has a damaged record")]
    Damaged(String),
    /// The record kept changing under us.
    #[error("task {0} is changing too often to update")]
    Contended(String),
}

/// Task records in a ledger shared by the server's instances. Cheap to clone.
#[derive(Clone)]
pub struct TaskStore {
    ledger: Arc<dyn Ledger>,
    pub options: TaskOptions,
}

/// The current time, RFC 3339.
pub fn now_rfc3339() -> String {
    time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

fn new_id() -> Result<String, LedgerError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|e| LedgerError::Unavailable(format!("no randomness for a task id: {e}")))?;
    Ok(hex::encode(bytes))
}

fn key(id: &str) -> String {
    format!("{KEY_PREFIX}{id}")
}

impl TaskStore {
    pub fn new(ledger: Arc<dyn Ledger>, options: TaskOptions) -> Self {
        Self { ledger, options }
    }

    /// Creates a `working` task owned by `owner`, charged to `quota_owner`'s ledger quota. When
    /// this returns, any instance reading the store sees the task.
    pub async fn create(
        &self,
        owner: &str,
        quota_owner: &str,
        tool: &str,
    ) -> Result<TaskRecord, TaskStoreError> {
        let now = now_rfc3339();
        for _ in 0..4 {
            let record = TaskRecord {
                id: new_id()?,
                owner: owner.to_string(),
                tool: tool.to_string(),
                status: Status::Working,
                created_at: now.clone(),
                last_updated_at: now.clone(),
                ttl_ms: self.options.ttl.as_millis() as u64,
                poll_interval_ms: (self.options.poll_interval.as_millis() as u64).max(1),
                status_message: None,
                result: None,
                error: None,
                input_requests: Map::new(),
                answers: Map::new(),
                version: 0,
                heartbeat_at: super::record::unix_now(),
                quota_owner: quota_owner.to_string(),
            };
            let text = serde_json::to_string(&record)
                .map_err(|_| TaskStoreError::Damaged(record.id.clone()))?;
            let put = self
                .ledger
                .put_new(&key(&record.id), &text, self.options.ttl, quota_owner)
                .await?;
            if put.is_none() {
                return Ok(record);
            }
            // 128 random bits collided: draw again.
        }
        Err(TaskStoreError::Contended("new".into()))
    }

    async fn load(&self, id: &str) -> Result<Option<(String, TaskRecord)>, TaskStoreError> {
        let Some(text) = self.ledger.get(&key(id)).await? else {
            return Ok(None);
        };
        let record: TaskRecord =
            serde_json::from_str(&text).map_err(|_| TaskStoreError::Damaged(id.to_string()))?;
        Ok(Some((text, record)))
    }

    /// The task `id` when it exists, has not expired, and belongs to `owner`; `None` otherwise
    /// (the three are not told apart).
    pub async fn get(&self, id: &str, owner: &str) -> Result<Option<TaskRecord>, TaskStoreError> {
        Ok(self
            .load(id)
            .await?
            .map(|(_, r)| r)
            .filter(|r| r.owner == owner))
    }

    /// The task `id` whoever owns it (the worker running it).
    pub async fn get_any(&self, id: &str) -> Result<Option<TaskRecord>, TaskStoreError> {
        Ok(self.load(id).await?.map(|(_, r)| r))
    }

    /// Applies `change` to the task and stores the result, atomically: `change` answers whether
    /// it changed anything, and is run again on a fresh copy when another writer got there
    /// first. Answers the record as it stands afterwards; `None` when the task is gone (expired)
    /// or `owner` (when given) does not own it.
    pub async fn update(
        &self,
        id: &str,
        owner: Option<&str>,
        mut change: impl FnMut(&mut TaskRecord) -> bool,
    ) -> Result<Option<TaskRecord>, TaskStoreError> {
        for _ in 0..MAX_CAS_ATTEMPTS {
            let Some((old_text, mut record)) = self.load(id).await? else {
                return Ok(None);
            };
            if owner.is_some_and(|o| o != record.owner) {
                return Ok(None);
            }
            let was_terminal = record.status.is_terminal();
            if !change(&mut record) {
                return Ok(Some(record));
            }
            record.version += 1;
            record.last_updated_at = now_rfc3339();
            let new_text =
                serde_json::to_string(&record).map_err(|_| TaskStoreError::Damaged(id.into()))?;
            if self
                .ledger
                .compare_and_set(&key(id), &old_text, &new_text)
                .await?
            {
                // A finished task no longer counts against its caller's quota (issue 37: 1,000
                // finished tasks locked a person's writes until they expired). A release that
                // fails leaves it charged until it expires, as before.
                if record.status.is_terminal() && !was_terminal {
                    if let Err(e) = self.ledger.release(&key(id), &record.quota_owner).await {
                        tracing::warn!(task = id, error = %e, "a finished task is still charged to its caller's quota");
                    }
                }
                return Ok(Some(record));
            }
        }
        Err(TaskStoreError::Contended(id.to_string()))
    }

    /// Moves a task that is not terminal to a terminal status (the worker's last word); a task
    /// already terminal (cancelled meanwhile) is left as it is. Answers the record afterwards.
    pub async fn finish(
        &self,
        id: &str,
        set: impl Fn(&mut TaskRecord),
    ) -> Result<Option<TaskRecord>, TaskStoreError> {
        self.update(id, None, |r| {
            if r.status.is_terminal() {
                return false;
            }
            set(r);
            r.input_requests.clear();
            r.answers.clear();
            true
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::confirm::MemoryLedger;
    use std::time::Duration;

    fn store(ttl: Duration) -> TaskStore {
        TaskStore::new(
            Arc::new(MemoryLedger::new()),
            TaskOptions {
                ttl,
                ..TaskOptions::default()
            },
        )
    }

    #[tokio::test]
    async fn only_the_owner_sees_a_task() {
        let s = store(Duration::from_secs(60));
        let t = s.create("alice", "alice", "tool").await.unwrap();
        assert_eq!(t.id.len(), 32);
        assert!(s.get(&t.id, "alice").await.unwrap().is_some());
        assert!(s.get(&t.id, "bob").await.unwrap().is_none());
        let bob = s
            .update(&t.id, Some("bob"), |r| {
                r.status = Status::Cancelled;
                true
            })
            .await
            .unwrap();
        assert!(bob.is_none(), "bob cannot change alice's task");
        assert_eq!(
            s.get(&t.id, "alice").await.unwrap().unwrap().status,
            Status::Working
        );
    }

    #[tokio::test]
    async fn a_terminal_status_never_changes() {
        let s = store(Duration::from_secs(60));
        let t = s.create("a", "a", "tool").await.unwrap();
        s.update(&t.id, Some("a"), |r| {
            r.status = Status::Cancelled;
            true
        })
        .await
        .unwrap();
        let after = s
            .finish(&t.id, |r| r.status = Status::Completed)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(after.status, Status::Cancelled);
    }

    #[tokio::test]
    async fn tasks_expire_with_their_ttl() {
        let s = store(Duration::from_millis(50));
        let t = s.create("a", "a", "tool").await.unwrap();
        assert_eq!(t.ttl_ms, 50);
        tokio::time::sleep(Duration::from_millis(80)).await;
        assert!(s.get(&t.id, "a").await.unwrap().is_none());
    }

    /// Finished tasks stop counting against their caller's quota: with a quota of 3, three
    /// working tasks fill it, and finishing one makes room for the next (issue 37, item 6).
    #[tokio::test]
    async fn a_finished_task_frees_its_place_in_the_quota() {
        let s = TaskStore::new(
            Arc::new(MemoryLedger::with_limits(100, 3)),
            TaskOptions {
                ttl: Duration::from_secs(600),
                ..TaskOptions::default()
            },
        );
        let mut ids = Vec::new();
        for _ in 0..3 {
            ids.push(s.create("alice", "q", "tool").await.unwrap().id);
        }
        assert!(matches!(
            s.create("alice", "q", "tool").await,
            Err(TaskStoreError::Ledger(LedgerError::QuotaExceeded(3)))
        ));
        // Another caller is not affected.
        s.create("bob", "other", "tool").await.unwrap();
        let done = s
            .finish(&ids[0], |r| r.status = Status::Completed)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(done.status, Status::Completed);
        s.create("alice", "q", "tool").await.unwrap();
        // The finished task is still there to be read.
        assert!(s.get(&ids[0], "alice").await.unwrap().is_some());
    }
}
