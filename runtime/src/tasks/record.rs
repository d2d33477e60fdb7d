//! One task's record, as stored (JSON) and as answered on the wire.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// Where a task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Working => "working",
            Status::InputRequired => "input_required",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
        }
    }
    /// Completed, failed or cancelled: the status never changes again.
    pub fn is_terminal(self) -> bool {
        matches!(self, Status::Completed | Status::Failed | Status::Cancelled)
    }
}

/// One task, as kept in the store.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TaskRecord {
    pub id: String,
    /// Who created it (person, organization, workspace): only they may see it.
    pub owner: String,
    /// The tool it runs (logs, messages).
    pub tool: String,
    pub status: Status,
    /// RFC 3339.
    pub created_at: String,
    pub last_updated_at: String,
    pub ttl_ms: u64,
    pub poll_interval_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// The tool result, once `completed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// The JSON-RPC error, once `failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
    /// Input requests still unanswered, while `input_required` (key → `{method, params}`).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub input_requests: Map<String, Value>,
    /// Answers delivered by `tasks/update` and not yet taken by the worker.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub answers: Map<String, Value>,
    /// Bumped on every change, so two different states never serialize alike (the store's
    /// compare-and-set compares the text).
    pub version: u64,
    /// When the instance running the task last said it is alive (unix seconds). A task not
    /// terminal whose heartbeat is stale lost its instance (see [`super::extension`]).
    #[serde(default)]
    pub heartbeat_at: u64,
    /// Whose ledger quota the task counts against while it is not finished (a finished task is
    /// released: it is kept for reading, not work the caller holds).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub quota_owner: String,
}

/// Now, in unix seconds.
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

impl TaskRecord {
    /// The task fields every answer carries (`Task`): id, status, times, TTL, poll interval.
    fn task_fields(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("taskId".into(), json!(self.id));
        m.insert("status".into(), json!(self.status.as_str()));
        if let Some(msg) = &self.status_message {
            m.insert("statusMessage".into(), json!(msg));
        }
        m.insert("createdAt".into(), json!(self.created_at));
        m.insert("lastUpdatedAt".into(), json!(self.last_updated_at));
        m.insert("ttlMs".into(), json!(self.ttl_ms));
        m.insert("pollIntervalMs".into(), json!(self.poll_interval_ms));
        m
    }

    /// `CreateTaskResult`: the task, flat, with `resultType: "task"` (no result, error or
    /// input requests: those are read with `tasks/get`).
    pub fn create_result(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("resultType".into(), json!("task"));
        m.extend(self.task_fields());
        m
    }

    /// `tasks/get`'s `DetailedTask`: the task, plus the result (completed), the error (failed)
    /// or the pending input requests (input_required).
    pub fn detailed(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("resultType".into(), json!("complete"));
        m.extend(self.task_fields());
        match self.status {
            Status::Completed => {
                if let Some(r) = &self.result {
                    m.insert("result".into(), r.clone());
                }
            }
            Status::Failed => {
                if let Some(e) = &self.error {
                    m.insert("error".into(), e.clone());
                }
            }
            // A write cancelled after it was sent keeps the API's answer (see
            // [`super::extension`]).
            Status::Cancelled => {
                if let Some(r) = &self.result {
                    m.insert("result".into(), r.clone());
                }
            }
            Status::InputRequired => {
                m.insert(
                    "inputRequests".into(),
                    Value::Object(self.input_requests.clone()),
                );
            }
            Status::Working => {}
        }
        m
    }
}
