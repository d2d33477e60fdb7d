//! Answers written straight to bytes: a value is serialized once into its envelope; a
//! pre-serialized page is spliced between the envelope's head and tail without a copy (or, in a
//! content coding, its once-compressed answer is closed with the tail).

use axum::body::Bytes;
use serde_json::Value;

use crate::protocol::jsonrpc;
use crate::protocol::listing::{Page, ANSWER_HEAD};
use crate::protocol::reply::Reply;

/// One encoded answer.
pub enum Encoded {
    /// The whole message in one buffer.
    Whole(Vec<u8>),
    /// [`ANSWER_HEAD`] (`{"jsonrpc":"2.0","result":`), the page's shared segments, then `tail`
    /// (`,"id":…}`).
    Spliced { page: Page, tail: Vec<u8> },
}

impl Encoded {
    /// The message as byte segments to send one after the other (the page's are shared).
    pub fn into_segments(self) -> Vec<Bytes> {
        match self {
            Encoded::Whole(v) => vec![Bytes::from(v)],
            Encoded::Spliced { page, tail } => {
                let mut parts = Vec::with_capacity(page.segments().len() + 2);
                parts.push(Bytes::from_static(ANSWER_HEAD));
                parts.extend(page.segments().iter().cloned());
                parts.push(Bytes::from(tail));
                parts
            }
        }
    }

    /// The message in one buffer (a spliced page is copied).
    pub fn into_vec(self) -> Vec<u8> {
        match self {
            Encoded::Whole(v) => v,
            spliced => {
                let mut out = Vec::with_capacity(spliced.len());
                for s in spliced.into_segments() {
                    out.extend_from_slice(&s);
                }
                out
            }
        }
    }

    /// Total length in bytes.
    pub fn len(&self) -> usize {
        match self {
            Encoded::Whole(v) => v.len(),
            Encoded::Spliced { page, tail } => ANSWER_HEAD.len() + page.len() + tail.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The answer to request `id`, without copying a page.
pub fn encode(id: &Value, reply: Reply) -> Encoded {
    match reply {
        Reply::Raw(page) => {
            let mut tail = Vec::with_capacity(24);
            tail.extend_from_slice(b",\"id\":");
            // Writing a string or number Value into a Vec cannot fail.
            let _ = serde_json::to_writer(&mut tail, id);
            tail.push(b'}');
            Encoded::Spliced { page, tail }
        }
        other => Encoded::Whole(encode_reply(id, &other)),
    }
}

/// The answer to request `id` in one buffer (SSE events, batch members).
pub fn encode_reply(id: &Value, reply: &Reply) -> Vec<u8> {
    match reply {
        Reply::Value(v) => jsonrpc::encode_result(id, v),
        Reply::Raw(page) => jsonrpc::encode_page_result(id, page),
        Reply::Error(e) => jsonrpc::encode_error(id, e),
    }
}
