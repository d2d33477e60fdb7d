//! A pre-serialized `result` object ([`Page`]): what a listing page or a tool's large answer is
//! before the connection layer puts it in its JSON-RPC envelope, shared without copies.

use std::any::Any;
use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use axum::body::Bytes;

/// How every answer carrying a page starts: the JSON-RPC envelope up to the page, with the `id`
/// after it (`…,"id":<id>}`), so that the answer's bytes up to its tail are the same for every
/// request and can be compressed once (kept in the page: [`Page::memo`]).
pub const ANSWER_HEAD: &[u8] = b"{\"jsonrpc\":\"2.0\",\"result\":";

/// One page: a complete JSON `result` object, as byte segments to send one after the other
/// (static catalog text is one of them, not copied), with other forms of its answer made on first
/// use and kept with it ([`Page::memo`]: the transport's compressed answers). Cloning shares them. A tool's small result is written straight into the
/// buffer of its answer instead ([`Page::answer_buffer`]).
#[derive(Debug, Clone)]
pub struct Page(Repr);

#[derive(Debug, Clone)]
enum Repr {
    Shared(Arc<PageInner>),
    /// A one-off result written after [`ANSWER_HEAD`] in the buffer its answer leaves in
    /// ([`Page::answer_buffer`]): the answer is that buffer and its tail, with no copy and no
    /// other allocation (a shared page costs three, and its answer a copy).
    Answer(Vec<u8>),
}

#[derive(Debug)]
struct PageInner {
    segments: Box<[Bytes]>,
    /// Built once and served many times (a listing page, [`Page::kept`]): worth compressing once
    /// at a strong level. A one-off result (a tool's answer) is compressed like any other answer.
    kept: bool,
    /// By slot: a form of [`ANSWER_HEAD`] + the page made once ([`Page::memo`]; `None` when it
    /// could not be made). The page does not know what the forms are: the transport keeps its
    /// compressed answers here (one slot per content coding), so framing imports no coding.
    memo: [OnceLock<Option<Box<dyn Any + Send + Sync>>>; MEMO_SLOTS],
}

/// Room an answer buffer keeps after its result for the answer's tail (`,"id":<id>}`): an id of
/// up to 32 bytes fits without growing the buffer.
const TAIL_ROOM: usize = 40;

/// How many forms a kept page can keep ([`Page::memo`]).
pub const MEMO_SLOTS: usize = 3;

impl Page {
    /// A page of `segments`, [`Page::kept`] or not.
    pub fn of(segments: Box<[Bytes]>, kept: bool) -> Self {
        Page(Repr::Shared(Arc::new(PageInner {
            segments,
            kept,
            memo: Default::default(),
        })))
    }
    /// A page kept and served many times (listings): its compressed forms are made once and
    /// kept with it ([`Page::memo`]). `Page::from` makes one-off pages.
    pub fn kept(bytes: Vec<u8>) -> Self {
        Page::of(Box::new([Bytes::from(bytes)]), true)
    }
    /// An empty buffer to write a one-off result of about `result_len` bytes into, for
    /// [`Page::from_answer_buffer`]: it starts with [`ANSWER_HEAD`] and has room for the
    /// answer's tail.
    pub fn answer_buffer(result_len: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(ANSWER_HEAD.len() + result_len + TAIL_ROOM);
        out.extend_from_slice(ANSWER_HEAD);
        out
    }
    /// The one-off page written into `buffer` after its [`Page::answer_buffer`] head. A buffer
    /// that does not start with the head is taken whole as the page.
    pub fn from_answer_buffer(buffer: Vec<u8>) -> Self {
        match buffer.starts_with(ANSWER_HEAD) {
            true => Page(Repr::Answer(buffer)),
            false => Page::from(buffer),
        }
    }
    /// The answer buffer of a [`Page::from_answer_buffer`] page (its head, then the page); any
    /// other page is given back.
    pub fn into_answer_buffer(self) -> Result<Vec<u8>, Page> {
        match self.0 {
            Repr::Answer(buffer) => Ok(buffer),
            shared => Err(Page(shared)),
        }
    }
    /// Whether this page is [`Page::kept`].
    pub fn is_kept(&self) -> bool {
        match &self.0 {
            Repr::Shared(inner) => inner.kept,
            Repr::Answer(_) => false,
        }
    }
    /// The page's bytes, in the pieces it holds them in.
    pub fn parts(&self) -> impl Iterator<Item = &[u8]> {
        let (own, shared): (Option<&[u8]>, &[Bytes]) = match &self.0 {
            Repr::Shared(inner) => (None, &inner.segments),
            Repr::Answer(buffer) => (Some(&buffer[ANSWER_HEAD.len()..]), &[]),
        };
        own.into_iter().chain(shared.iter().map(|b| &b[..]))
    }
    /// The page as segments to send: a shared page's are borrowed (cloning one shares it); a
    /// result in its answer buffer is copied into one.
    pub fn segments(&self) -> Cow<'_, [Bytes]> {
        match &self.0 {
            Repr::Shared(inner) => Cow::Borrowed(&inner.segments),
            Repr::Answer(buffer) => {
                Cow::Owned(vec![Bytes::copy_from_slice(&buffer[ANSWER_HEAD.len()..])])
            }
        }
    }
    pub fn len(&self) -> usize {
        self.parts().map(<[u8]>::len).sum()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The page in one buffer.
    /// The identity of a shared page, the same for all its clones and no other page's while one
    /// of them lives: a key for forms derived from it and kept beside it (the views
    /// extension's listings). `None` for a one-off answer.
    pub fn shared_id(&self) -> Option<usize> {
        match &self.0 {
            Repr::Shared(inner) => Some(Arc::as_ptr(inner) as usize),
            Repr::Answer(_) => None,
        }
    }
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len());
        for s in self.parts() {
            out.extend_from_slice(s);
        }
        out
    }
    /// Whether [`Page::memo`] has already run for `slot` (always, for a one-off result in its
    /// answer buffer: nothing is made ahead for it).
    pub fn is_memoized(&self, slot: usize) -> bool {
        match &self.0 {
            Repr::Shared(inner) => inner.memo.get(slot).is_none_or(|m| m.get().is_some()),
            Repr::Answer(_) => true,
        }
    }
    /// The form of this page's answer kept in `slot`: made by `make` from the answer's leading
    /// parts ([`ANSWER_HEAD`], then the page) on the first call (per page and slot; later callers
    /// wait for it), shared after. `None` when `make` gave none, when the slot holds another type,
    /// for a slot past [`MEMO_SLOTS`], and for a one-off result in its answer buffer.
    pub fn memo<T: Any + Send + Sync>(
        &self,
        slot: usize,
        make: impl FnOnce(&[&[u8]]) -> Option<T>,
    ) -> Option<&T> {
        let Repr::Shared(inner) = &self.0 else {
            return None;
        };
        inner
            .memo
            .get(slot)?
            .get_or_init(|| {
                let mut parts: Vec<&[u8]> = Vec::with_capacity(inner.segments.len() + 1);
                parts.push(ANSWER_HEAD);
                parts.extend(inner.segments.iter().map(|b| &b[..]));
                make(&parts).map(|v| Box::new(v) as Box<dyn Any + Send + Sync>)
            })
            .as_ref()?
            .downcast_ref()
    }
}

/// A one-off page (not [`Page::kept`]).
impl From<Vec<u8>> for Page {
    fn from(bytes: Vec<u8>) -> Self {
        Page::of(Box::new([Bytes::from(bytes)]), false)
    }
}

/// A one-off page (not [`Page::kept`]) of several segments, sent one after the other.
impl From<Vec<Bytes>> for Page {
    fn from(segments: Vec<Bytes>) -> Self {
        Page::of(segments.into_boxed_slice(), false)
    }
}

/// A one-off page (not [`Page::kept`]).
impl From<Bytes> for Page {
    fn from(bytes: Bytes) -> Self {
        Page::of(Box::new([bytes]), false)
    }
}
