//! `Accept-Encoding` (RFC 9110 §12.5.3) on JSON answers: which coding a request accepts, and the
//! answer in it.
//!
//! A listing's answer is closed from its page's once-compressed bytes (kept in the page: [`Page::memo`]),
//! so it costs no compression per request (br, zstd or gzip); any other answer of at least
//! [`COMPRESS_MIN_BYTES`] (a tool's result included) is compressed as it leaves, in whichever of
//! the three the request prefers, at a fast level ([`ON_THE_FLY`]). Smaller answers, and
//! streamed (SSE) ones, go uncompressed: the former would gain less than the work costs, the
//! latter would need a flush per event. Every answer that could have been compressed says
//! `Vary: Accept-Encoding`, so a cache keeps the codings apart.
//!
//! [`Page::memo`]: crate::rpc::page::Page::memo

use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;

use super::body::Chunks;
use super::compress::{self, Coding, OpenStream};
use super::response::json_response;
use crate::connection::Encoded;
use crate::rpc::page::Page;

/// Answers shorter than this go uncompressed: below about a kilobyte or two the saved bytes do
/// not pay for the compressor (the on-the-fly cost is measured by `scripts/bench_http.sh`).
pub const COMPRESS_MIN_BYTES: usize = 2048;

/// What a request's `Accept-Encoding` accepts: a weight (thousandths, 0 = refused) per coding.
#[derive(Debug, Clone, Copy, Default)]
pub struct Accepted {
    weights: [u16; 3],
    /// `identity`'s stated weight, if stated.
    identity: Option<u16>,
}

/// Codings used on the fly, each at a fast level (`compress::compress`), ties going to the
/// cheapest per answer: zstd (level 1: the fastest of the three and smaller than gzip), brotli
/// (quality 3), gzip (level 1). Every one of the three is offered: a client that accepts only br
/// or zstd (many do not list gzip first, some not at all) gets its large answers compressed too,
/// and the cost of each is measured by `scripts/bench_more.py` (section `fly`).
pub const ON_THE_FLY: &[Coding] = &[Coding::Zstd, Coding::Brotli, Coding::Gzip];

impl Accepted {
    /// The coding to answer in among `offered`: the acceptable one (q > 0) the request weighs
    /// highest, ties going to the earlier in `offered`; `None` for identity — nothing acceptable,
    /// or `identity` weighed above it.
    pub fn best_among(&self, offered: &[Coding]) -> Option<Coding> {
        let mut best: Option<(Coding, u16)> = None;
        for &c in offered {
            let w = self.weights[c.index()];
            if w > 0 && best.is_none_or(|(_, bw)| w > bw) {
                best = Some((c, w));
            }
        }
        match (best, self.identity) {
            (Some((_, w)), Some(iw)) if iw > w => None,
            (b, _) => b.map(|(c, _)| c),
        }
    }
}

/// Reads `Accept-Encoding` (every field line): weights per coding, `*` standing for the codings
/// not named, `x-gzip` for gzip; an item with an unreadable q-value is ignored.
pub fn negotiate(headers: &HeaderMap) -> Accepted {
    let mut q = [None::<u16>; 3];
    let mut star = None::<u16>;
    let mut identity = None::<u16>;
    for value in headers.get_all(header::ACCEPT_ENCODING) {
        let Ok(text) = value.to_str() else { continue };
        for item in text.split(',') {
            let mut params = item.split(';');
            let token = params.next().unwrap_or("").trim();
            if token.is_empty() {
                continue;
            }
            let mut weight = Some(1000);
            for p in params {
                let (k, v) = p.split_once('=').unwrap_or((p, ""));
                if k.trim().eq_ignore_ascii_case("q") {
                    weight = qvalue(v.trim());
                }
            }
            // An unreadable q-value: the item is ignored, not taken as q=1.
            let Some(weight) = weight else { continue };
            let slot = if token == "*" {
                &mut star
            } else if token.eq_ignore_ascii_case("identity") {
                &mut identity
            } else if let Some(c) = Coding::ALL.into_iter().find(|c| {
                token.eq_ignore_ascii_case(c.token())
                    || (*c == Coding::Gzip && token.eq_ignore_ascii_case("x-gzip"))
            }) {
                &mut q[c.index()]
            } else {
                continue;
            };
            *slot = Some(weight);
        }
    }
    let mut weights = [0u16; 3];
    for c in Coding::ALL {
        weights[c.index()] = q[c.index()].or(star).unwrap_or(0);
    }
    Accepted { weights, identity }
}

/// A qvalue (`0`, `0.5`, `1.000`) in thousandths; `None` if it is not one.
fn qvalue(v: &str) -> Option<u16> {
    let (int, frac) = v.split_once('.').unwrap_or((v, ""));
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut thousandths: u16 = 0;
    for (i, b) in frac.bytes().enumerate() {
        thousandths += u16::from(b - b'0') * [100, 10, 1][i];
    }
    match int {
        "0" => Some(thousandths),
        "1" if thousandths == 0 => Some(1000),
        _ => None,
    }
}

/// A JSON answer in the coding `accepted` prefers when it is large enough, else as it is: a
/// listing in any of [`Coding::ALL`], another answer in [`ON_THE_FLY`].
pub async fn json_answer(status: StatusCode, encoded: Encoded, accepted: Accepted) -> Response {
    if encoded.len() < COMPRESS_MIN_BYTES {
        return plain(status, encoded);
    }
    let kept = matches!(&encoded, Encoded::Spliced { page, .. } if page.is_kept());
    let coding = match kept {
        true => accepted.best_among(&Coding::ALL),
        false => accepted.best_among(ON_THE_FLY),
    };
    let mut r = match (coding, encoded) {
        (None, encoded) => plain(status, encoded),
        (Some(coding), Encoded::Spliced { page, tail }) if kept => {
            if !page.is_memoized(coding.index()) {
                // The first request in this coding compresses the page, off the async workers
                // (a large listing takes a noticeable fraction of a second).
                let p = page.clone();
                let _ = tokio::task::spawn_blocking(move || {
                    compressed(&p, coding);
                })
                .await;
            }
            match compressed(&page, coding) {
                Some(open) => encoded_response(
                    status,
                    Body::new(Chunks::new(open.close(&tail).to_vec())),
                    coding,
                ),
                None => plain(status, Encoded::Spliced { page, tail }),
            }
        }
        // Any other answer (a tool's one-off result page included) is compressed as it leaves.
        (Some(coding), encoded) => {
            let bytes = encoded.into_vec();
            match compress::compress(coding, &bytes) {
                Ok(c) if c.len() < bytes.len() => encoded_response(status, Body::from(c), coding),
                _ => plain(status, Encoded::Whole(bytes)),
            }
        }
    };
    r.headers_mut()
        .append(header::VARY, HeaderValue::from_static("accept-encoding"));
    r
}

/// A kept page's answer head and page compressed in `coding`, left open for the answer's tail:
/// compressed once per page and coding, and kept in the page ([`Page::memo`], one slot per
/// coding). `None` when the compressor failed: the answer then goes uncompressed.
fn compressed(page: &Page, coding: Coding) -> Option<&OpenStream> {
    page.memo(coding.index(), |parts| {
        match OpenStream::open(coding, parts) {
            Ok(s) => Some(s),
            Err(e) => {
                tracing::warn!(coding = coding.token(), error = %e, "listing not compressed");
                None
            }
        }
    })
}

fn plain(status: StatusCode, encoded: Encoded) -> Response {
    match encoded {
        Encoded::Whole(bytes) => json_response(status, bytes),
        // The shared page bytes go out between the envelope's head and tail: no copy.
        spliced => json_response(status, Body::new(Chunks::new(spliced.into_segments()))),
    }
}

fn encoded_response(status: StatusCode, body: Body, coding: Coding) -> Response {
    let mut r = json_response(status, body);
    r.headers_mut().insert(
        header::CONTENT_ENCODING,
        HeaderValue::from_static(coding.token()),
    );
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pick(values: &[&str]) -> Option<&'static str> {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(header::ACCEPT_ENCODING, HeaderValue::from_str(v).unwrap());
        }
        negotiate(&h).best_among(&Coding::ALL).map(Coding::token)
    }

    #[test]
    fn the_highest_weighted_acceptable_coding_wins() {
        assert_eq!(pick(&[]), None);
        assert_eq!(pick(&[""]), None);
        assert_eq!(pick(&["gzip"]), Some("gzip"));
        assert_eq!(pick(&["gzip, deflate, br, zstd"]), Some("br"));
        assert_eq!(pick(&["gzip;q=1.0, br;q=0.5"]), Some("gzip"));
        assert_eq!(pick(&["ZSTD", "GZip;q=0.9"]), Some("zstd"));
        assert_eq!(pick(&["x-gzip"]), Some("gzip"));
        assert_eq!(pick(&["*"]), Some("br"));
        assert_eq!(pick(&["deflate, compress"]), None);
    }

    #[test]
    fn q_zero_and_identity_are_respected() {
        assert_eq!(pick(&["br;q=0, gzip"]), Some("gzip"));
        assert_eq!(pick(&["br;q=0, zstd;q=0, gzip;q=0"]), None);
        assert_eq!(pick(&["*;q=0"]), None);
        assert_eq!(pick(&["*, br;q=0"]), Some("zstd"));
        assert_eq!(pick(&["gzip;q=0.5, identity"]), None);
        assert_eq!(pick(&["identity"]), None);
        assert_eq!(pick(&["identity;q=0.1, gzip;q=0.2"]), Some("gzip"));
        // Unreadable weights: the item is ignored.
        assert_eq!(pick(&["br;q=2, gzip;q=0.x"]), None);
        assert_eq!(pick(&["br;q=1.5, gzip"]), Some("gzip"));
    }
}

#[cfg(test)]
#[path = "encoding_tests.rs"]
mod http_tests;
