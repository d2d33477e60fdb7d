//! Content codings of answers (gzip, br, zstd): listings compressed once and closed per request,
//! other large answers compressed as they leave.
//!
//! A listing's answer differs between requests only by its `id`, so the answer is laid out with
//! the `id` last (`{"jsonrpc":"2.0","result":<page>,"id":<id>}`) and the constant part — envelope
//! head and page — is compressed once into an *open* stream: flushed to a byte boundary but not
//! finished. Each request then closes it with its tail, sent uncompressed in the format's own
//! stored block (deflate stored block, brotli uncompressed meta-block, zstd raw block) and, for
//! gzip, a CRC-32 continued from the one kept with the stream. The shared bytes are sent as they
//! are, so a compressed listing costs a request what an uncompressed one does.

use std::io::Write;

use axum::body::Bytes;

/// A content coding we produce (RFC 9110 §8.4.1 names; `br` RFC 7932; `zstd` RFC 8878).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Coding {
    Gzip,
    Brotli,
    Zstd,
}

impl Coding {
    /// In order of preference when the client weighs them equally: smallest output first.
    pub const ALL: [Coding; 3] = [Coding::Brotli, Coding::Zstd, Coding::Gzip];

    /// The `Content-Encoding` / `Accept-Encoding` token.
    pub fn token(self) -> &'static str {
        match self {
            Coding::Gzip => "gzip",
            Coding::Brotli => "br",
            Coding::Zstd => "zstd",
        }
    }

    /// A dense index (0..3), for per-coding slots.
    pub fn index(self) -> usize {
        match self {
            Coding::Brotli => 0,
            Coding::Zstd => 1,
            Coding::Gzip => 2,
        }
    }
}

/// Levels of the once-per-listing compression: near each format's best ratio while a banking
/// listing (~0.9 MB) still compresses in a fraction of a second on first use (brotli 11 takes
/// seconds for a few percent less).
const ONCE_GZIP: u32 = 9;
const ONCE_BROTLI: u32 = 9;
const ONCE_ZSTD: i32 = 15;

/// Levels of on-the-fly compression: fast ones, as this runs on every such answer.
const FLY_GZIP: u32 = 1;
const FLY_BROTLI: u32 = 3;
const FLY_ZSTD: i32 = 1;

/// Brotli window (log2): larger than any listing, so back-references may span a whole page.
const BROTLI_LGWIN: u32 = 22;

/// Brotli window (log2) on the fly: just wide enough for `len` bytes (a window is 2^lgwin − 16
/// bytes), within brotli's 10..=20 here. The encoder clears its ring buffer and hash tables per
/// answer, sized by the window: a fixed 1 MiB window made a 33 KB answer cost 4.1 M instructions,
/// more than half of them `memset`; fitted, 2.2 M, the same output.
fn fly_brotli_window(len: usize) -> u32 {
    let needed = usize::BITS - (len + 16).saturating_sub(1).leading_zeros();
    needed.clamp(10, 20)
}

/// Stored-block payloads are cut to this size (deflate and brotli allow 65,535 / 65,536; a zstd
/// raw block may not exceed the frame's window, at least 1 KiB).
const GZIP_STORED_MAX: usize = 65_535;
const BROTLI_STORED_MAX: usize = 65_536;
const ZSTD_RAW_MAX: usize = 1024;

/// The gzip member header: deflate, no name or time, OS unknown.
const GZIP_HEADER: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];

/// Compressed leading bytes of an answer, flushed but not finished; [`OpenStream::close`] ends
/// them with a per-request tail.
#[derive(Debug)]
pub struct OpenStream {
    coding: Coding,
    bytes: Bytes,
    /// gzip: CRC-32 and length of the uncompressed bytes so far (the trailer needs both).
    crc: u32,
    len: u64,
}

impl OpenStream {
    /// Compresses `parts` (in order) once, at the once-per-listing level.
    pub fn open(coding: Coding, parts: &[&[u8]]) -> std::io::Result<Self> {
        let len: u64 = parts.iter().map(|p| p.len() as u64).sum();
        let (bytes, crc) = match coding {
            Coding::Gzip => {
                let mut crc = crc32fast::Hasher::new();
                let mut enc = flate2::write::DeflateEncoder::new(
                    GZIP_HEADER.to_vec(),
                    flate2::Compression::new(ONCE_GZIP),
                );
                for p in parts {
                    crc.update(p);
                    enc.write_all(p)?;
                }
                // A sync flush ends with an empty stored block: byte-aligned, not final.
                enc.flush()?;
                (std::mem::take(enc.get_mut()), crc.finalize())
            }
            Coding::Brotli => {
                let mut enc =
                    brotli::CompressorWriter::new(Vec::new(), 64 * 1024, ONCE_BROTLI, BROTLI_LGWIN);
                for p in parts {
                    enc.write_all(p)?;
                }
                // BROTLI_OPERATION_FLUSH: everything out, padded to a byte boundary, stream open.
                enc.flush()?;
                (std::mem::take(enc.get_mut()), 0)
            }
            Coding::Zstd => {
                let mut enc = zstd::stream::write::Encoder::new(Vec::new(), ONCE_ZSTD)?;
                // No content checksum: the tail is added after the compressor is gone.
                enc.include_checksum(false)?;
                for p in parts {
                    enc.write_all(p)?;
                }
                // ZSTD_e_flush: the current block is closed (not as the last one).
                enc.flush()?;
                (std::mem::take(enc.get_mut()), 0)
            }
        };
        Ok(Self {
            coding,
            bytes: Bytes::from(bytes),
            crc,
            len,
        })
    }

    pub fn coding(&self) -> Coding {
        self.coding
    }

    /// Size of the shared compressed bytes.
    pub fn compressed_len(&self) -> usize {
        self.bytes.len()
    }

    /// The whole compressed answer: the shared bytes (not copied), then `tail` and the end of the
    /// stream.
    pub fn close(&self, tail: &[u8]) -> [Bytes; 2] {
        let mut end = Vec::with_capacity(tail.len() + 16);
        match self.coding {
            Coding::Gzip => {
                stored_deflate(&mut end, tail);
                let mut crc = crc32fast::Hasher::new_with_initial_len(self.crc, self.len);
                crc.update(tail);
                end.extend_from_slice(&crc.finalize().to_le_bytes());
                // ISIZE: the length modulo 2^32.
                let total = self.len.wrapping_add(tail.len() as u64);
                end.extend_from_slice(&(total as u32).to_le_bytes());
            }
            Coding::Brotli => {
                for chunk in tail.chunks(BROTLI_STORED_MAX) {
                    // ISLAST=0, MNIBBLES=4 (00), MLEN-1 (16 bits), ISUNCOMPRESSED=1, then
                    // padding to the byte boundary: 20 bits in 3 bytes, little-endian.
                    let v: u32 = (((chunk.len() - 1) as u32) << 3) | (1 << 19);
                    end.extend_from_slice(&v.to_le_bytes()[..3]);
                    end.extend_from_slice(chunk);
                }
                // ISLAST=1, ISLASTEMPTY=1.
                end.push(0x03);
            }
            Coding::Zstd => {
                let mut chunks = tail.chunks(ZSTD_RAW_MAX).peekable();
                if chunks.peek().is_none() {
                    end.extend_from_slice(&raw_block_header(0, true));
                }
                while let Some(chunk) = chunks.next() {
                    let last = chunks.peek().is_none();
                    end.extend_from_slice(&raw_block_header(chunk.len(), last));
                    end.extend_from_slice(chunk);
                }
            }
        }
        [self.bytes.clone(), Bytes::from(end)]
    }
}

/// Deflate stored blocks carrying `data`, the last one final (one empty final block if none).
fn stored_deflate(out: &mut Vec<u8>, data: &[u8]) {
    let mut chunks = data.chunks(GZIP_STORED_MAX).peekable();
    if chunks.peek().is_none() {
        out.extend_from_slice(&[0x01, 0, 0, 0xff, 0xff]);
    }
    while let Some(chunk) = chunks.next() {
        // BFINAL, BTYPE=00 (stored); the rest of the byte is padding.
        out.push(u8::from(chunks.peek().is_none()));
        let n = chunk.len() as u16;
        out.extend_from_slice(&n.to_le_bytes());
        out.extend_from_slice(&(!n).to_le_bytes());
        out.extend_from_slice(chunk);
    }
}

/// A zstd raw block header: Last_Block, Block_Type 0 (raw), Block_Size, 3 bytes little-endian.
fn raw_block_header(size: usize, last: bool) -> [u8; 3] {
    let v = ((size as u32) << 3) | u32::from(last);
    let b = v.to_le_bytes();
    [b[0], b[1], b[2]]
}

/// `data` compressed whole, at the fast level (answers that are not listings).
pub fn compress(coding: Coding, data: &[u8]) -> std::io::Result<Vec<u8>> {
    match coding {
        Coding::Gzip => {
            let mut enc = flate2::write::GzEncoder::new(
                Vec::with_capacity(data.len() / 4 + 64),
                flate2::Compression::new(FLY_GZIP),
            );
            enc.write_all(data)?;
            enc.finish()
        }
        Coding::Brotli => {
            let mut out = Vec::with_capacity(data.len() / 4 + 64);
            {
                let mut enc = brotli::CompressorWriter::new(
                    &mut out,
                    16 * 1024,
                    FLY_BROTLI,
                    fly_brotli_window(data.len()),
                );
                enc.write_all(data)?;
            }
            Ok(out)
        }
        Coding::Zstd => zstd::bulk::compress(data, FLY_ZSTD),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    pub(crate) fn decode(coding: Coding, data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        match coding {
            Coding::Gzip => {
                flate2::read::GzDecoder::new(data)
                    .read_to_end(&mut out)
                    .unwrap();
            }
            Coding::Brotli => {
                brotli::Decompressor::new(data, 4096)
                    .read_to_end(&mut out)
                    .unwrap();
            }
            Coding::Zstd => {
                // One frame: a single-frame decoder must read it all.
                let mut d = zstd::stream::read::Decoder::new(data)
                    .unwrap()
                    .single_frame();
                d.read_to_end(&mut out).unwrap();
            }
        }
        out
    }

    fn sample() -> Vec<u8> {
        let mut s = String::from("{\"tools\":[");
        for i in 0..2000 {
            if i > 0 {
                s.push(',');
            }
            s.push_str(&format!(
                "{{\"name\":\"tool_{i}\",\"description\":\"Lists the things number {i}\",\"inputSchema\":{{\"type\":\"object\"}}}}"
            ));
        }
        s.push_str("]}");
        s.into_bytes()
    }

    #[test]
    fn an_open_stream_closed_with_any_tail_decodes_to_head_body_tail() {
        let body = sample();
        let big_tail = vec![b'x'; 200_000];
        for coding in Coding::ALL {
            let open = OpenStream::open(coding, &[b"{\"a\":", &body]).unwrap();
            assert!(
                open.compressed_len() * 10 < body.len(),
                "{coding:?} compresses"
            );
            for tail in [&b""[..], b",\"id\":1}", b",\"id\":\"\xc3\xa9\"}", &big_tail] {
                let [shared, end] = open.close(tail);
                let mut wire = shared.to_vec();
                wire.extend_from_slice(&end);
                let mut want = b"{\"a\":".to_vec();
                want.extend_from_slice(&body);
                want.extend_from_slice(tail);
                assert_eq!(
                    decode(coding, &wire),
                    want,
                    "{coding:?}, tail {}",
                    tail.len()
                );
            }
        }
    }

    #[test]
    fn the_fly_brotli_window_holds_the_whole_answer() {
        for len in [
            0, 1, 1000, 1008, 1009, 33_014, 65_520, 65_521, 900_000, 5_000_000,
        ] {
            let w = fly_brotli_window(len);
            assert!((10..=20).contains(&w), "{len}: {w}");
            // Either the answer fits the window, or the window is brotli's widest we allow.
            assert!(len <= (1usize << w) - 16 || w == 20, "{len}: {w}");
            // And no wider than needed.
            assert!(w == 10 || len > (1usize << (w - 1)) - 16, "{len}: {w}");
        }
    }

    #[test]
    fn whole_compression_round_trips() {
        let body = sample();
        // Sizes around the fitted brotli windows, and the sample itself.
        let sizes = [0, 1, 1_008, 1_009, 33_014, 65_521, body.len(), 1_100_000];
        for coding in Coding::ALL {
            let c = compress(coding, &body).unwrap();
            assert!(c.len() < body.len() / 4);
            assert_eq!(decode(coding, &c), body);
            for n in sizes {
                let data: Vec<u8> = body.iter().copied().cycle().take(n).collect();
                assert_eq!(
                    decode(coding, &compress(coding, &data).unwrap()),
                    data,
                    "{coding:?} {n}"
                );
            }
        }
    }
}
