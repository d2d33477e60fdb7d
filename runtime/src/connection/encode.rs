//! Answers written straight to bytes: a value is serialized once into its envelope; a
//! pre-serialized page is spliced between the envelope's head and tail without a copy.

use axum::body::Bytes;
use serde_json::Value;

use crate::protocol::jsonrpc;
use crate::protocol::listing::Page;
use crate::protocol::reply::Reply;

/// One encoded answer.
pub enum Encoded {
    /// The whole message in one buffer.
    Whole(Vec<u8>),
    /// `head` (`{"jsonrpc":"2.0","id":…,"result":`), the page's shared segments, then `}`.
    Spliced { head: Vec<u8>, page: Page },
}

impl Encoded {
    /// The message as byte segments to send one after the other (the page's are shared).
    pub fn into_segments(self) -> Vec<Bytes> {
        match self {
            Encoded::Whole(v) => vec![Bytes::from(v)],
            Encoded::Spliced { head, page } => {
                let mut parts = Vec::with_capacity(page.segments().len() + 2);
                parts.push(Bytes::from(head));
                parts.extend(page.segments().iter().cloned());
                parts.push(Bytes::from_static(b"}"));
                parts
            }
        }
    }
}

/// The answer to request `id`, without copying a page.
pub fn encode(id: &Value, reply: Reply) -> Encoded {
    match reply {
        Reply::Raw(page) => {
            let mut head = Vec::with_capacity(48);
            jsonrpc::open_result(&mut head, id);
            Encoded::Spliced { head, page }
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
