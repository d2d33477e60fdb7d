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
pub(crate) fn write_string(out: &mut Vec<u8>, text: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = text.as_bytes();
    // JSON text escapes mostly its quotes: one in eight bytes is a fair guess.
    out.reserve(bytes.len() + bytes.len() / 8 + 2);
    out.push(b'"');
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape = ESCAPE[b as usize];
        if escape == 0 {
            continue;
        }
        out.extend_from_slice(&bytes[start..i]);
        if escape == b'u' {
            out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 0xf)],
            ]);
        } else {
            out.extend_from_slice(&[b'\\', escape]);
        }
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
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

    #[test]
    fn the_text_of_a_value_is_its_compact_json() {
        let v = json!({"b": [1, 2.5, null, true], "a": {"x": "é\"\n"}, "n": -3});
        assert_eq!(to_text(&v), v.to_string());
    }
}
