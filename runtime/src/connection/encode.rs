//! Answers written straight to bytes: a value is serialized once into its envelope; a
//! pre-serialized page is spliced between the envelope's head and tail without a copy (or, in a
//! content coding, its once-compressed answer is closed with the tail).

use axum::body::Bytes;
use serde_json::Value;

use crate::rpc::jsonrpc;
use crate::rpc::page::{Page, ANSWER_HEAD};
use crate::rpc::reply::Reply;

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
                let segments = page.segments();
                let mut parts = Vec::with_capacity(segments.len() + 2);
                parts.push(Bytes::from_static(ANSWER_HEAD));
                parts.extend(segments.iter().cloned());
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

/// The answer to request `id`, without copying a kept page (a listing's). A small one-off page (a
/// tool's result, a few hundred bytes) is copied into one buffer with the envelope instead: the
/// same bytes, in one allocation where splicing took four (the tail, the list of segments, the
/// tail's shared handle, the body's chunk list). A large one (a sandbox list page, tens of KB) is
/// spliced: copying it costs more than the four allocations.
pub fn encode(id: &Value, reply: Reply) -> Encoded {
    match reply {
        Reply::Raw(page) | Reply::ToolError { result: page, .. } => match page.into_answer_buffer()
        {
            // Written in its answer's buffer: the answer is that buffer and its tail.
            Ok(mut out) => {
                write_tail(&mut out, id);
                Encoded::Whole(out)
            }
            Err(page) => encode_page(id, page),
        },
        other => Encoded::Whole(encode_reply(id, &other)),
    }
}

/// The answer carrying a shared page.
fn encode_page(id: &Value, page: Page) -> Encoded {
    match page {
        page if !page.is_kept() && page.len() <= COPY_LIMIT => {
            let tail_len = id_len(id) + TAIL_FIXED;
            // Exactly as long as the answer: a full `Vec` becomes the body's `Bytes` without
            // another allocation.
            let mut out = Vec::with_capacity(ANSWER_HEAD.len() + page.len() + tail_len);
            out.extend_from_slice(ANSWER_HEAD);
            for s in page.parts() {
                out.extend_from_slice(s);
            }
            write_tail(&mut out, id);
            Encoded::Whole(out)
        }
        page => {
            let mut tail = Vec::with_capacity(24);
            write_tail(&mut tail, id);
            Encoded::Spliced { page, tail }
        }
    }
}

/// The largest one-off page copied into the answer's buffer rather than spliced: about where a
/// copy starts to cost more than splicing's allocations.
const COPY_LIMIT: usize = 4096;

/// The bytes of the tail besides the id: `,"id":` and the closing brace.
const TAIL_FIXED: usize = 7;

/// Appends the answer's tail after its result: `,"id":<id>}`.
fn write_tail(out: &mut Vec<u8>, id: &Value) {
    out.extend_from_slice(b",\"id\":");
    // Writing a string or number Value into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, id);
    out.push(b'}');
}

/// The length of `id` as JSON text.
fn id_len(id: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut n = Count(0);
    let _ = serde_json::to_writer(&mut n, id);
    n.0
}

/// The answer to request `id` in one buffer (SSE events, batch members).
pub fn encode_reply(id: &Value, reply: &Reply) -> Vec<u8> {
    match reply {
        Reply::Value(v) | Reply::InputRequired(v) => jsonrpc::encode_result(id, v),
        Reply::Raw(page) | Reply::ToolError { result: page, .. } => {
            jsonrpc::encode_page_result(id, page)
        }
        Reply::Error(e) => jsonrpc::encode_error(id, e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A one-off page leaves in one full buffer, byte for byte what splicing sends; a kept page
    /// is still spliced (shared, not copied).
    #[test]
    fn one_off_pages_are_written_whole_and_kept_pages_spliced() {
        for id in [
            json!(1),
            json!(12345678901u64),
            json!("a\"b\u{e9}"),
            json!(-2.5),
        ] {
            let result = br#"{"content":[{"type":"text","text":"x"}]}"#.to_vec();
            let Encoded::Spliced { page, tail } =
                encode(&id, Reply::Raw(Page::kept(result.clone())))
            else {
                panic!("a kept page is spliced");
            };
            let spliced = Encoded::Spliced { page, tail }.into_vec();
            let Encoded::Whole(whole) = encode(&id, Reply::Raw(Page::from(result))) else {
                panic!("a one-off page is written whole");
            };
            assert_eq!(whole, spliced, "{id}");
            assert_eq!(whole.len(), whole.capacity(), "{id}");
            let v: Value = serde_json::from_slice(&whole).unwrap();
            assert_eq!(v["id"], id);
            assert_eq!(v["result"]["content"][0]["text"], "x");

            // A large one-off page is spliced, not copied, and sends the same bytes.
            let text = "y".repeat(COPY_LIMIT);
            let result = format!(r#"{{"content":[{{"type":"text","text":"{text}"}}]}}"#);
            let spliced = encode(&id, Reply::Raw(Page::from(result.clone().into_bytes())));
            assert!(matches!(spliced, Encoded::Spliced { .. }), "{id}");
            let Encoded::Spliced { page, tail } =
                encode(&id, Reply::Raw(Page::kept(result.into_bytes())))
            else {
                panic!("a kept page is spliced");
            };
            assert_eq!(
                spliced.into_vec(),
                Encoded::Spliced { page, tail }.into_vec(),
                "{id}"
            );
        }
    }

    /// A result written in its answer buffer leaves in that very buffer (no copy, no new
    /// allocation for an id that fits the room kept for it), byte for byte what the same page
    /// shared sends; its parts, length and copy are the page alone.
    #[test]
    fn results_in_their_answer_buffer_leave_in_it() {
        let result = br#"{"content":[{"type":"text","text":"x"}],"isError":true}"#;
        for id in [json!(7), json!("req-\"1\""), json!("x".repeat(100))] {
            let mut buffer = Page::answer_buffer(result.len());
            buffer.extend_from_slice(result);
            let at = buffer.as_ptr();
            let page = Page::from_answer_buffer(buffer);
            assert!(!page.is_kept());
            assert_eq!(page.len(), result.len());
            assert_eq!(page.to_vec(), result.to_vec());
            assert_eq!(page.parts().collect::<Vec<_>>(), vec![&result[..]]);
            assert_eq!(page.segments().concat(), result.to_vec());
            let Encoded::Whole(whole) = encode(&id, Reply::Raw(page)) else {
                panic!("a result in its answer buffer is written whole");
            };
            if id.to_string().len() < 32 {
                assert_eq!(
                    whole.as_ptr(),
                    at,
                    "{id}: the answer is the result's buffer"
                );
            }
            let shared = encode(&id, Reply::Raw(Page::from(result.to_vec()))).into_vec();
            assert_eq!(whole, shared, "{id}");
            let v: Value = serde_json::from_slice(&whole).unwrap();
            assert_eq!((&v["id"], &v["result"]["isError"]), (&id, &json!(true)));
        }
        // A buffer that was not made by answer_buffer is taken whole, as a shared page.
        let page = Page::from_answer_buffer(result.to_vec());
        assert_eq!(page.to_vec(), result.to_vec());
        assert_eq!(
            encode(&json!(1), Reply::Raw(page)).into_vec(),
            encode(&json!(1), Reply::Raw(Page::from(result.to_vec()))).into_vec()
        );
    }

    /// An answer's length is the number of bytes it sends, spliced or whole; no answer is empty.
    #[test]
    fn an_answer_s_length_is_what_it_sends() {
        let small = br#"{"content":[]}"#.to_vec();
        let large = format!(
            r#"{{"content":[{{"type":"text","text":"{}"}}]}}"#,
            "z".repeat(COPY_LIMIT)
        );
        for id in [json!(3), json!("a-much-longer-request-id")] {
            for page in [
                Page::kept(small.clone()),
                Page::from(small.clone()),
                Page::from(large.clone().into_bytes()),
            ] {
                let encoded = encode(&id, Reply::Raw(page));
                let len = encoded.len();
                assert!(!encoded.is_empty());
                let bytes = encoded.into_vec();
                assert_eq!(len, bytes.len(), "{id}");
                let v: Value = serde_json::from_slice(&bytes).unwrap();
                assert_eq!(v["id"], id);
            }
        }
        assert!(Encoded::Whole(Vec::new()).is_empty());
    }
}
