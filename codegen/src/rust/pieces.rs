//! Long string literals laid out for a reviewer: cut into pieces at the text's own seams and
//! written as `concat!(…)`, one piece a line, so a change to one property of one schema changes
//! the one line that holds it, and no line is too long for a diff to show.
//!
//! The pieces are slices of the text, in order: `concat!` puts exactly the original bytes back
//! together at compile time (no work at run time, the same `&'static str`). Where they are cut:
//! - JSON (a descriptor, a schema): a container longer than [`PIECE`] gets a piece per member or
//!   element (each cut the same way in turn; a short one shares the next one's piece); a string
//!   longer than that is cut as prose.
//! - Prose: after each line break, then between sentences, then between words; a run without a
//!   space longer than [`PIECE_MAX`] is cut between characters.
//!
//! A piece holding quotes or backslashes, and nothing a raw literal would hide (a control or
//! invisible character), is written as a raw literal (`r#"{"type":"object"}"#`): JSON reads as
//! JSON, and is shorter than with every quote escaped.

/// A text whose literal is at most this long stays one literal on its line; a piece of a longer
/// one aims at this length.
pub const PIECE: usize = 200;

/// A JSON piece shorter than this takes the next member or element along (see [`json_cuts`]).
const SMALL: usize = 48;

/// No piece's literal is longer than this (with its indentation, a line stays well under 300
/// characters).
pub const PIECE_MAX: usize = 260;

/// Writes `text` as a literal at the end of `out`, whose last line is where it goes: one literal
/// if it is short, else `concat!(` with a piece a line, indented one step from that line.
pub fn write(text: &str, out: &mut String) {
    if fits(text, PIECE) {
        push_literal(text, out);
        return;
    }
    let line_start = out.rfind('\n').map_or(0, |i| i + 1);
    let indent: String = out[line_start..]
        .chars()
        .take_while(|c| *c == ' ')
        .collect();
    out.push_str("concat!(\n");
    for piece in pieces(text) {
        out.push_str(&indent);
        out.push_str("    ");
        push_literal(piece, out);
        out.push_str(",\n");
    }
    out.push_str(&indent);
    out.push(')');
}

/// `text` cut into pieces (see the module docs); they join back into `text`.
pub fn pieces(text: &str) -> Vec<&str> {
    let mut cuts = Vec::new();
    match json_node(text.as_bytes(), 0) {
        Some((node, end)) if end == text.len() => json_cuts(text, &node, &mut cuts),
        _ => prose_cuts(text, 0..text.len(), &mut cuts),
    }
    cuts.sort_unstable();
    cuts.dedup();
    // No piece over the maximum, whatever the seams gave.
    let mut bounds = vec![0];
    for end in cuts.into_iter().chain([text.len()]) {
        let start = *bounds.last().unwrap_or(&0);
        if end <= start {
            continue;
        }
        if !fits(&text[start..end], PIECE_MAX) {
            words(text, start..end, PIECE_MAX, &mut bounds);
        }
        bounds.push(end);
    }
    bounds
        .windows(2)
        .filter(|w| w[0] < w[1])
        .map(|w| &text[w[0]..w[1]])
        .collect()
}

/// How long `text`'s literal is, in characters (as `push_literal` writes it).
pub fn literal_len(text: &str) -> usize {
    match raw_hashes(text) {
        Some(n) => text.chars().count() + 3 + 2 * n,
        // As `escape` writes each character, without writing it.
        None => {
            let mut len = 2;
            let mut chars = text.chars().peekable();
            while let Some(c) = chars.next() {
                len += match c {
                    ' '..='~' if c != '"' && c != '\\' => 1,
                    '\0' if chars.peek().is_some_and(|n| ('0'..='7').contains(n)) => 4,
                    '\0' => 2,
                    _ => c.escape_debug().count(),
                };
            }
            len
        }
    }
}

/// Whether `text`'s literal is at most `max` characters long; a text of more than four times as
/// many bytes is not, without looking (a character is at most four bytes and a literal at least
/// as long as its characters).
fn fits(text: &str, max: usize) -> bool {
    text.len() <= 4 * max && literal_len(text) <= max
}

/// Writes `text` as a raw literal when that is safe and helps, else as `proc_macro2` escapes it.
fn push_literal(text: &str, out: &mut String) {
    match raw_hashes(text) {
        Some(n) => {
            let hashes = "#".repeat(n);
            out.push('r');
            out.push_str(&hashes);
            out.push('"');
            out.push_str(text);
            out.push('"');
            out.push_str(&hashes);
        }
        None => {
            out.push('"');
            escape(text, out);
            out.push('"');
        }
    }
}

/// How many `#` a raw literal of `text` needs; `None` when it should be an escaped one: nothing
/// to escape (no quote nor backslash), or a character a reader would not see as itself (an
/// escaped literal spells it out).
fn raw_hashes(text: &str) -> Option<usize> {
    if !text.bytes().any(|b| b == b'"' || b == b'\\') {
        return None;
    }
    // Printable ASCII is itself; any other character is if `escape_debug` leaves it alone.
    let plain = |c: char| {
        (' '..='~').contains(&c)
            || (!c.is_ascii() && {
                let mut e = c.escape_debug();
                e.next() == Some(c) && e.next().is_none()
            })
    };
    if !text.chars().all(plain) {
        return None;
    }
    if !text.contains("\"#") {
        return Some(1);
    }
    let mut n = 2;
    while text.contains(&format!("\"{}", "#".repeat(n))) {
        n += 1;
    }
    Some(n)
}

/// A JSON value as written by `serde_json::to_string` (no whitespace): where it ends, and the
/// spans of its members or elements.
struct Node {
    start: usize,
    end: usize,
    kind: Kind,
}

enum Kind {
    /// Members (where each starts, its key included) or elements, with their values.
    Container(Vec<(usize, Node)>),
    String,
    Scalar,
}

/// The value starting at `at`, and where it ends; `None` if the text is not compact JSON there.
fn json_node(b: &[u8], at: usize) -> Option<(Node, usize)> {
    match *b.get(at)? {
        open @ (b'{' | b'[') => {
            let close = if open == b'{' { b'}' } else { b']' };
            let mut items = Vec::new();
            let mut i = at + 1;
            if b.get(i) == Some(&close) {
                let node = Node {
                    start: at,
                    end: i + 1,
                    kind: Kind::Container(items),
                };
                return Some((node, i + 1));
            }
            loop {
                let item_start = i;
                if open == b'{' {
                    i = string_end(b, i)?;
                    if b.get(i) != Some(&b':') {
                        return None;
                    }
                    i += 1;
                }
                let (value, end) = json_node(b, i)?;
                items.push((item_start, value));
                i = end;
                match b.get(i)? {
                    b',' => i += 1,
                    c if *c == close => break,
                    _ => return None,
                }
            }
            let node = Node {
                start: at,
                end: i + 1,
                kind: Kind::Container(items),
            };
            Some((node, i + 1))
        }
        b'"' => {
            let end = string_end(b, at)?;
            let node = Node {
                start: at,
                end,
                kind: Kind::String,
            };
            Some((node, end))
        }
        _ => {
            let len = b[at..]
                .iter()
                .position(|c| matches!(c, b',' | b']' | b'}'))
                .unwrap_or(b.len() - at);
            let scalar = &b[at..at + len];
            let valid = matches!(scalar, b"true" | b"false" | b"null")
                || (!scalar.is_empty()
                    && scalar.iter().all(|c| {
                        c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.' | b'e' | b'E')
                    }));
            valid.then_some((
                Node {
                    start: at,
                    end: at + len,
                    kind: Kind::Scalar,
                },
                at + len,
            ))
        }
    }
}

/// Where the JSON string starting at `at` (its opening quote) ends, past its closing quote.
fn string_end(b: &[u8], at: usize) -> Option<usize> {
    if b.get(at) != Some(&b'"') {
        return None;
    }
    let mut i = at + 1;
    loop {
        match *b.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' => i += 2,
            c if c < 0x20 => return None,
            _ => i += 1,
        }
    }
}

fn json_cuts(text: &str, node: &Node, cuts: &mut Vec<usize>) {
    if fits(&text[node.start..node.end], PIECE) {
        return;
    }
    match &node.kind {
        Kind::Container(items) => {
            for (k, (item_start, value)) in items.iter().enumerate() {
                // A piece shorter than `SMALL` so far (`"type":"object",`) takes the next member
                // too: a line each for those would cost more bytes than they hold.
                let piece_start = cuts.last().copied().unwrap_or(0);
                if k > 0 && !fits(&text[piece_start..*item_start], SMALL - 1) {
                    cuts.push(*item_start);
                }
                json_cuts(text, value, cuts);
            }
        }
        Kind::String => prose_cuts(text, node.start..node.end, cuts),
        Kind::Scalar => {}
    }
}

/// Cuts `text[range]` after line breaks (a real one, or `\n` as JSON writes it), then packs whole
/// sentences into pieces, then words.
fn prose_cuts(text: &str, range: std::ops::Range<usize>, cuts: &mut Vec<usize>) {
    let part = text[range.clone()].as_bytes();
    let mut lines = Vec::new();
    let mut from = 0;
    let mut i = 0;
    while i < part.len() {
        // A line break, or one as JSON writes it (the two characters `\` `n`); any other escape
        // is stepped over whole.
        let after = match (part[i], part.get(i + 1)) {
            (b'\n', _) => Some(i + 1),
            (b'\\', Some(b'n')) => Some(i + 2),
            (b'\\', Some(_)) => {
                i += 2;
                continue;
            }
            _ => None,
        };
        match after {
            Some(end) => {
                lines.push(from..end);
                from = end;
                i = end;
            }
            None => i += 1,
        }
    }
    lines.push(from..part.len());
    for line in lines {
        let (start, end) = (range.start + line.start, range.start + line.end);
        if line.start > 0 {
            cuts.push(start);
        }
        if fits(&text[start..end], PIECE) {
            continue;
        }
        sentences(text, start..end, cuts);
    }
}

/// Packs the sentences of `text[range]` into pieces of at most [`PIECE`]; a longer sentence is
/// cut between words.
fn sentences(text: &str, range: std::ops::Range<usize>, cuts: &mut Vec<usize>) {
    let part = &text[range.clone()];
    let mut ends: Vec<usize> = part
        .match_indices(". ")
        .map(|(i, _)| range.start + i + 2)
        .collect();
    ends.push(range.end);
    let mut piece_start = range.start;
    let mut last_end = range.start;
    for end in ends {
        if !fits(&text[piece_start..end], PIECE) && last_end > piece_start {
            cuts.push(last_end);
            piece_start = last_end;
        }
        if !fits(&text[piece_start..end], PIECE) {
            let mut bounds = Vec::new();
            words(text, piece_start..end, PIECE, &mut bounds);
            cuts.extend(bounds.iter().copied());
            if let Some(last) = bounds.last() {
                piece_start = *last;
            }
        }
        last_end = end;
    }
}

/// Cuts `text[range]` after spaces so each piece's literal is at most `max`, between characters
/// where a word alone is longer; pushes the cuts (not `range`'s ends).
fn words(text: &str, range: std::ops::Range<usize>, max: usize, cuts: &mut Vec<usize>) {
    let mut start = range.start;
    while !fits(&text[start..range.end], max) {
        // The longest run of whole words that fits, else the longest run of characters.
        let mut best = None;
        let mut fits_chars = start;
        for (i, c) in text[start..range.end].char_indices() {
            let end = start + i + c.len_utf8();
            if !fits(&text[start..end], max) {
                break;
            }
            fits_chars = end;
            if c == ' ' {
                best = Some(end);
            }
        }
        let cut = best.unwrap_or(fits_chars);
        if cut <= start {
            // A single character longer than `max` as a literal: cannot happen for max ≥ 12.
            break;
        }
        cuts.push(cut);
        start = cut;
    }
}

/// Appends `text` escaped for a string literal exactly as `proc_macro2::Literal::string` escapes
/// it (each character's `escape_debug`, except `'` kept as is and NUL as `\0`, or `\x00` before
/// an octal digit), copying the printable ASCII that needs no escape in runs.
pub fn escape(text: &str, out: &mut String) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        while i < bytes.len()
            && matches!(bytes[i], 0x20..=0x7e)
            && !matches!(bytes[i], b'"' | b'\\')
        {
            i += 1;
        }
        out.push_str(&text[start..i]);
        let Some(ch) = text[i..].chars().next() else {
            break;
        };
        i += ch.len_utf8();
        if ch == '\0' {
            let octal_next = text[i..].starts_with(|next| ('0'..='7').contains(&next));
            out.push_str(if octal_next { r"\x00" } else { r"\0" });
        } else if ch == '\'' {
            out.push(ch);
        } else {
            out.extend(ch.escape_debug());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str) -> Vec<&str> {
        let p = pieces(text);
        assert_eq!(p.concat(), text, "the pieces join back into the text");
        for piece in &p {
            assert!(
                literal_len(piece) <= PIECE_MAX,
                "a piece of {} characters: {piece:?}",
                literal_len(piece)
            );
        }
        p
    }

    #[test]
    fn json_is_cut_at_its_members_and_short_values_stay_whole() {
        let mut props = serde_json::Map::new();
        for i in 0..12 {
            props.insert(
                format!("field_{i}"),
                serde_json::json!({"type": "integer", "minimum": 1, "maximum": 50,
                    "description": format!("Field number {i}, with \"quotes\" and a \\ backslash.")}),
            );
        }
        let schema = serde_json::json!({"type": "object", "properties": props,
            "required": ["field_1"]});
        let text = serde_json::to_string(&schema).unwrap();
        let p = check(&text);
        // Each property is a piece of its own.
        for i in 0..12 {
            assert_eq!(
                p.iter()
                    .filter(|piece| piece.contains(&format!("\"field_{i}\":")))
                    .count(),
                1
            );
        }
        assert!(p.iter().any(|piece| piece.starts_with("\"field_3\":{")));
        // A one-number change changes one piece.
        let changed = text.replacen("\"maximum\":50", "\"maximum\":40", 1);
        let q = check(&changed);
        assert_eq!(p.len(), q.len());
        assert_eq!(p.iter().zip(&q).filter(|(a, b)| a != b).count(), 1);
    }

    #[test]
    fn prose_is_cut_at_lines_then_sentences_then_words_then_characters() {
        let sentence = "This sentence is about fifty characters long, ok. ";
        let text = format!("{}\nSecond line.\n{}", sentence.repeat(9), "x".repeat(700));
        let p = check(&text);
        assert!(p.contains(&"Second line.\n"));
        assert!(p[0].ends_with(". "), "{:?}", p[0]);
        let words = "word ".repeat(200);
        for piece in check(&words).iter().rev().skip(1) {
            assert!(piece.ends_with(' '));
        }
        check(&"é\"\n\t\u{200b}".repeat(300));
        check("");
        // Invalid JSON is prose.
        check(&format!("{{\"a\":{}", "1,".repeat(300)));
    }

    #[test]
    fn literals_are_raw_only_where_that_reads_as_the_text() {
        let mut out = String::new();
        push_literal(r##"{"a":"#b"}"##, &mut out);
        assert_eq!(out, r###"r##"{"a":"#b"}"##"###);
        for (text, raw) in [
            ("plain", false),
            ("a \"quote\"", true),
            ("a \"quote\" and a line\n", false),
            ("zero \"width\" \u{200b}", false),
            ("ação \"é\"", true),
            ("nul \0 then \x007, tab\t, bell \u{7}, \u{1b}[0m", false),
        ] {
            let mut out = String::new();
            push_literal(text, &mut out);
            assert_eq!(out.starts_with('r'), raw, "{out}");
            assert_eq!(out.chars().count(), literal_len(text));
            let parsed: syn::LitStr = syn::parse_str(&out).expect("a literal");
            assert_eq!(parsed.value(), text);
        }
    }
}
