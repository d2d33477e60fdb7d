//! A JSON answer's text, fast: a tool result carries the same JSON twice (the text block a
//! model reads, and `structuredContent` a program reads), so a large answer (a sandbox list page
//! of 40 KB) pays its serialization and the escaping of that text as a JSON string on every call.
//! `serde_json`'s `Display` goes through `fmt::Formatter` one token at a time and its string
//! escaping through `io::Write` one run at a time; these write into a `Vec` directly.

use serde_json::Value;

/// `value` as compact JSON text (the same text as `value.to_string()`).
pub(crate) fn to_text(value: &Value) -> String {
    // Serializing a `Value` cannot fail (its keys are strings); should it, `Display` says the same.
    serde_json::to_string(value).unwrap_or_else(|_| value.to_string())
}

/// What a byte becomes inside a JSON string: 0 itself; `u` a `\u00XX` escape; another its
/// two-character escape (`\n`, `\"`…). The escapes `serde_json` writes, so the output is
/// byte-identical to `serde_json::to_writer(out, text)`.
const ESCAPE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = b'u';
        i += 1;
    }
    t[0x08] = b'b';
    t[0x09] = b't';
    t[0x0a] = b'n';
    t[0x0c] = b'f';
    t[0x0d] = b'r';
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t
};

/// Appends `text` as a JSON string (quoted and escaped).
///
/// JSON text is dense with quotes (a sandbox list page: one byte in nine), so the cost is per
/// escape more than per byte: eight bytes are looked at and copied at a time, whole, and the copy
/// is then cut back to the first byte that needs escaping ([`first_escape`]); no copy of a short
/// run calls `memcpy`. About half the instructions of a byte-by-byte loop.
pub(crate) fn write_string(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    // JSON text escapes mostly its quotes: one byte in five is a generous guess.
    out.reserve(bytes.len() + bytes.len() / 5 + 2);
    out.push(b'"');
    let mut rest = bytes;
    while let Some((word, after)) = rest.split_first_chunk::<8>() {
        let len = out.len();
        out.extend_from_slice(word);
        match first_escape(u64::from_le_bytes(*word)) {
            None => rest = after,
            Some(k) => {
                out.truncate(len + k);
                write_escape(out, word[k]);
                rest = &rest[k + 1..];
            }
        }
    }
    let mut start = 0;
    for (i, &b) in rest.iter().enumerate() {
        if ESCAPE[usize::from(b)] != 0 {
            out.extend_from_slice(&rest[start..i]);
            write_escape(out, b);
            start = i + 1;
        }
    }
    out.extend_from_slice(&rest[start..]);
    out.push(b'"');
}

/// The index of the first byte of `word` (little-endian) that a JSON string escapes: a quote, a
/// backslash or a control byte. The classic zero-byte test: `x - 0x01…` borrows through a byte of
/// `x` only where it is 0 (or below a byte that is), so the lowest flag is exact; higher ones may
/// be false and are never used.
fn first_escape(word: u64) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let quote = word ^ (ONES * u64::from(b'"'));
    let backslash = word ^ (ONES * u64::from(b'\\'));
    let flags = (quote.wrapping_sub(ONES) & !quote)
        | (backslash.wrapping_sub(ONES) & !backslash)
        | (word.wrapping_sub(ONES * 0x20) & !word);
    let flags = flags & HIGH;
    (flags != 0).then(|| flags.trailing_zeros() as usize / 8)
}

/// Appends the escape of `b`, a byte [`ESCAPE`] marks.
fn write_escape(out: &mut Vec<u8>, b: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match ESCAPE[usize::from(b)] {
        b'u' => out.extend_from_slice(&[
            b'\\',
            b'u',
            b'0',
            b'0',
            HEX[usize::from(b >> 4)],
            HEX[usize::from(b & 0xf)],
        ]),
        escape => out.extend_from_slice(&[b'\\', escape]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Byte-identical to serde_json for every kind of character a text can hold.
    #[test]
    fn strings_are_escaped_exactly_as_serde_json_escapes_them() {
        let mut all = String::new();
        for c in (0u32..0x250).chain([0x2028, 0x2029, 0xfeff, 0x1f600]) {
            all.push(char::from_u32(c).unwrap_or('?'));
        }
        for text in [
            "",
            "plain",
            "\"quoted\" \\ back\\slash",
            "{\"a\":\"b\\\"c\",\"d\":[1,2]}",
            "tab\there\nnew line\r\u{7f}\u{1f}\u{0}",
            "ação 💸",
            all.as_str(),
        ] {
            let mut ours = Vec::new();
            write_string(&mut ours, text);
            assert_eq!(
                String::from_utf8(ours).unwrap(),
                serde_json::to_string(text).unwrap(),
                "{text:?}"
            );
        }
    }

    /// Every escaped byte at every position of an eight-byte word, and runs longer and shorter
    /// than a word, as serde_json escapes them.
    #[test]
    fn escapes_at_every_offset_of_a_word_match_serde_json() {
        let special = [
            '"', '\\', '\n', '\u{0}', '\u{1f}', '\u{7f}', 'é', ' ', '!', '#', '[',
        ];
        for len in 0..20 {
            for at in 0..len {
                for c in special {
                    for fill in ['a', '"', 'ç'] {
                        let text: String =
                            (0..len).map(|i| if i == at { c } else { fill }).collect();
                        let mut ours = Vec::new();
                        write_string(&mut ours, &text);
                        assert_eq!(
                            String::from_utf8(ours).unwrap(),
                            serde_json::to_string(&text).unwrap(),
                            "{text:?}"
                        );
                    }
                }
            }
        }
        // Every byte value next to every other, in and across word boundaries.
        let all: String = (0u8..0x80).map(char::from).collect();
        for shift in 0..8 {
            let text = format!("{}{all}{all}", "x".repeat(shift));
            let mut ours = Vec::new();
            write_string(&mut ours, &text);
            assert_eq!(ours, serde_json::to_vec(&text).unwrap(), "shift {shift}");
        }
    }

    #[test]
    fn the_text_of_a_value_is_its_compact_json() {
        let v = json!({"b": [1, 2.5, null, true], "a": {"x": "é\"\n"}, "n": -3});
        assert_eq!(to_text(&v), v.to_string());
    }
}
