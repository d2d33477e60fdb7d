//! URI templates (RFC 6570 level 1: `kobana://banking/pix/{uid}`, `/v2/charge/bank_billets/{id}`)
//! and the one percent-encoding rule every variable value follows.
//!
//! The rule: a value is one path segment. Filling writes RFC 3986's unreserved characters
//! (`A-Z a-z 0-9 - . _ ~`) as they are and every other UTF-8 byte as `%XX` (RFC 6570 simple
//! expansion), and writes the dot segments `.` and `..` as `%2E` / `%2E%2E`, so that no value can
//! climb out of its segment. Matching accepts exactly what filling can produce (unreserved
//! characters and `%XX` triplets, either hex case), and gives the decoded value back: a URI that
//! `fill` wrote for a value is matched back to that same value.
//!
//! Used by the generator (validating catalog templates and HTTP paths), by `resources/read`
//! (matching a URI to its template), by `resources/list` and tool answers (filling a template
//! from a record or the arguments) and by the upstream backend (filling an HTTP path).

use std::fmt;

use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

/// The bytes a variable value carries encoded: everything but RFC 3986's unreserved characters.
pub const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// RFC 3986 `unreserved`: the bytes [`COMPONENT`] leaves as they are.
fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~".contains(&b)
}

/// Percent-encodes one variable value (or one query component) by the rule above.
pub fn encode_component(value: &str) -> String {
    match value {
        "." => "%2E".into(),
        ".." => "%2E%2E".into(),
        _ => utf8_percent_encode(value, COMPONENT).to_string(),
    }
}

/// Why a URI's variable part is not a value [`encode_component`] could have written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    Empty,
    /// A character that filling always encodes (`/`, `:`, a space, non-ASCII…), at this byte offset.
    Unencoded(char, usize),
    /// A `%` not followed by two hex digits, at this byte offset.
    BadEscape(usize),
    /// The decoded bytes are not UTF-8.
    NotUtf8,
    /// A bare `.` or `..`, which URI resolution would remove.
    DotSegment,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Empty => write!(f, "the value is empty"),
            DecodeError::Unencoded(c, at) => {
                write!(f, "`{c}` at byte {at} must be percent-encoded")
            }
            DecodeError::BadEscape(at) => {
                write!(f, "the `%` at byte {at} is not followed by two hex digits")
            }
            DecodeError::NotUtf8 => write!(f, "the percent-encoded bytes are not UTF-8"),
            DecodeError::DotSegment => write!(f, "`.` and `..` must be written `%2E`"),
        }
    }
}

impl std::error::Error for DecodeError {}

/// Decodes one variable value, accepting only what [`encode_component`] can write.
pub fn decode_component(encoded: &str) -> Result<String, DecodeError> {
    if encoded.is_empty() {
        return Err(DecodeError::Empty);
    }
    if encoded == "." || encoded == ".." {
        return Err(DecodeError::DotSegment);
    }
    let bytes = encoded.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%' {
            let pair = bytes.get(i + 1..i + 3).ok_or(DecodeError::BadEscape(i))?;
            if !pair.iter().all(u8::is_ascii_hexdigit) {
                return Err(DecodeError::BadEscape(i));
            }
            i += 3;
        } else if !is_unreserved(b) {
            let c = encoded[i..].chars().next().unwrap_or('\u{FFFD}');
            return Err(DecodeError::Unencoded(c, i));
        } else {
            i += 1;
        }
    }
    percent_decode_str(encoded)
        .decode_utf8()
        .map(|s| s.into_owned())
        .map_err(|_| DecodeError::NotUtf8)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part<'t> {
    Literal(&'t str),
    Variable(&'t str),
}

/// A parsed level-1 template: literals and `{name}` variables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate<'t> {
    parts: Vec<Part<'t>>,
}

impl<'t> UriTemplate<'t> {
    /// Parses `template`, or says what is wrong with it (in words a catalog author can act on).
    pub fn parse(template: &'t str) -> Result<Self, String> {
        let mut parts = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find(['{', '}']) {
            if rest[open..].starts_with('}') {
                return Err("a `}` without its `{`".into());
            }
            if open > 0 {
                push_literal(&mut parts, &rest[..open])?;
            }
            let after = &rest[open + 1..];
            let close = after
                .find('}')
                .ok_or_else(|| "a `{` without its `}`".to_string())?;
            let name = &after[..close];
            check_name(name)?;
            if parts.contains(&Part::Variable(name)) {
                return Err(format!("the variable `{{{name}}}` appears twice"));
            }
            if let Some(Part::Variable(prev)) = parts.last() {
                return Err(format!(
                    "`{{{prev}}}{{{name}}}`: two variables side by side cannot be told apart in a URI; put a literal between them"
                ));
            }
            parts.push(Part::Variable(name));
            rest = &after[close + 1..];
        }
        if !rest.is_empty() {
            push_literal(&mut parts, rest)?;
        }
        Ok(Self { parts })
    }

    /// The variable names, in order of appearance.
    pub fn variables(&self) -> impl Iterator<Item = &'t str> + '_ {
        self.parts.iter().filter_map(|p| match p {
            Part::Variable(v) => Some(*v),
            Part::Literal(_) => None,
        })
    }

    /// The URI with every variable replaced by its encoded value; `None` when `value` has none
    /// (or an empty one) for a variable.
    pub fn fill<V: AsRef<str>>(&self, mut value: impl FnMut(&str) -> Option<V>) -> Option<String> {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Literal(l) => out.push_str(l),
                Part::Variable(v) => {
                    let raw = value(v)?;
                    if raw.as_ref().is_empty() {
                        return None;
                    }
                    out.push_str(&encode_component(raw.as_ref()));
                }
            }
        }
        Some(out)
    }

    /// The decoded variable values if `uri` is an expansion of this template, else `None`.
    ///
    /// A variable's text runs to the first occurrence of the literal after it (or to the end);
    /// it must be non-empty and decode by [`decode_component`], so it never spans a `/`.
    pub fn matches(&self, uri: &str) -> Option<Vec<(&'t str, String)>> {
        let mut vars = Vec::new();
        let mut rest = uri;
        for (i, part) in self.parts.iter().enumerate() {
            match part {
                Part::Literal(l) => rest = rest.strip_prefix(l)?,
                Part::Variable(v) => {
                    let end = match self.parts.get(i + 1) {
                        Some(Part::Literal(next)) => rest.find(next)?,
                        _ => rest.len(),
                    };
                    vars.push((*v, decode_component(&rest[..end]).ok()?));
                    rest = &rest[end..];
                }
            }
        }
        rest.is_empty().then_some(vars)
    }
}

/// The `{var}` names of a level-1 template, or what is wrong with it.
pub fn variables(template: &str) -> Result<Vec<String>, String> {
    Ok(UriTemplate::parse(template)?
        .variables()
        .map(str::to_string)
        .collect())
}

/// The decoded variable values if `uri` expands `template`; `None` for another URI or a
/// template that does not parse.
pub fn match_uri(template: &str, uri: &str) -> Option<Vec<(String, String)>> {
    // The text before the first expression is a literal the URI must start with: most templates
    // are told apart by it without parsing them (a server scans every template per URI).
    let head = template.split('{').next().unwrap_or_default();
    if !uri.starts_with(head) {
        return None;
    }
    let values = UriTemplate::parse(template).ok()?.matches(uri)?;
    Some(
        values
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )
}

/// Appends a literal. After a variable, the literal must hold a character no filled value has
/// (anything but the unreserved characters and `%`): [`UriTemplate::matches`] ends the variable
/// at the literal's first occurrence, which is then where the value ended, so a filled URI always
/// matches back to its values. `{kind}.{fmt}` is refused: `a.b.json` could be `a` + `b.json`.
fn push_literal<'t>(parts: &mut Vec<Part<'t>>, literal: &'t str) -> Result<(), String> {
    if let Some(Part::Variable(prev)) = parts.last() {
        if literal.bytes().all(|b| is_unreserved(b) || b == b'%') {
            return Err(format!(
                "`{{{prev}}}{literal}`: where the value of `{{{prev}}}` ends cannot be told, since a value can contain `{literal}`; put a character such as `/` or `:` in the text after a variable"
            ));
        }
    }
    parts.push(Part::Literal(literal));
    Ok(())
}

fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("an empty `{}` expression".into());
    }
    if let Some(op) = name.chars().next().filter(|c| "+#./;?&=,!@|".contains(*c)) {
        return Err(format!(
            "`{{{name}}}` uses the operator `{op}`, which is RFC 6570 level 2 or 3; only simple `{{name}}` variables (level 1) are allowed"
        ));
    }
    if name.contains(':') || name.contains('*') {
        return Err(format!(
            "`{{{name}}}` uses a modifier (`:N` or `*`), which is RFC 6570 level 4; only simple `{{name}}` variables (level 1) are allowed"
        ));
    }
    if name.contains(',') {
        return Err(format!(
            "`{{{name}}}` lists several variables in one expression; write one `{{name}}` per variable"
        ));
    }
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(format!(
            "`{{{name}}}` is not a variable name; use letters, digits and `_`"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    /// The literal head refuses other URIs before any parsing; the URIs it lets through are
    /// matched as before, and a template that does not parse still matches nothing.
    #[test]
    fn match_uri_tells_templates_apart_by_their_head() {
        let t = "kobana://banking/charge/bank_billets/{uid}";
        assert_eq!(
            match_uri(t, "kobana://banking/charge/bank_billets/a%2Fb"),
            Some(pairs(&[("uid", "a/b")]))
        );
        assert_eq!(match_uri(t, "kobana://banking/charge/pix/1"), None);
        assert_eq!(match_uri(t, "kobana://banking/charge/bank_billets"), None);
        assert_eq!(
            match_uri("kobana://x/fixed", "kobana://x/fixed"),
            Some(vec![])
        );
        assert_eq!(match_uri("kobana://x/fixed", "kobana://x/fixed/2"), None);
        assert_eq!(match_uri("kobana://x/}{id}", "kobana://x/}1"), None);
    }

    #[test]
    fn unreserved_characters_stay_and_everything_else_is_encoded() {
        assert_eq!(encode_component("AZaz09-._~"), "AZaz09-._~");
        assert_eq!(encode_component("a/b"), "a%2Fb");
        assert_eq!(encode_component("50%"), "50%25");
        assert_eq!(encode_component("a b+c"), "a%20b%2Bc");
        assert_eq!(
            encode_component(":?#[]@!$&'()*,;="),
            "%3A%3F%23%5B%5D%40%21%24%26%27%28%29%2A%2C%3B%3D"
        );
        assert_eq!(encode_component("{x}"), "%7Bx%7D");
        assert_eq!(encode_component("ação"), "a%C3%A7%C3%A3o");
        assert_eq!(encode_component("."), "%2E");
        assert_eq!(encode_component(".."), "%2E%2E");
        assert_eq!(encode_component("..."), "...");
    }

    #[test]
    fn the_encode_set_and_the_decoder_agree_on_every_ascii_byte() {
        for b in 0u8..128 {
            // After an `x`, so that `.` is not a dot segment.
            let c = format!("x{}", b as char);
            let kept = encode_component(&c) == c;
            assert_eq!(kept, is_unreserved(b), "byte {b:#04x}");
        }
    }

    #[test]
    fn decoding_accepts_only_what_encoding_writes() {
        assert_eq!(decode_component("a%2Fb").as_deref(), Ok("a/b"));
        assert_eq!(decode_component("a%2fb").as_deref(), Ok("a/b"));
        assert_eq!(decode_component("a%C3%A7").as_deref(), Ok("aç"));
        assert_eq!(decode_component("%2E").as_deref(), Ok("."));
        assert_eq!(decode_component(""), Err(DecodeError::Empty));
        assert_eq!(decode_component("a/b"), Err(DecodeError::Unencoded('/', 1)));
        assert_eq!(decode_component("a b"), Err(DecodeError::Unencoded(' ', 1)));
        assert_eq!(decode_component("aç"), Err(DecodeError::Unencoded('ç', 1)));
        assert_eq!(decode_component("a:b"), Err(DecodeError::Unencoded(':', 1)));
        assert_eq!(decode_component("50%"), Err(DecodeError::BadEscape(2)));
        assert_eq!(decode_component("%zz"), Err(DecodeError::BadEscape(0)));
        assert_eq!(decode_component("%C3"), Err(DecodeError::NotUtf8));
        assert_eq!(decode_component(".."), Err(DecodeError::DotSegment));
        assert_eq!(decode_component("."), Err(DecodeError::DotSegment));
    }

    #[test]
    fn fill_then_match_gives_the_values_back() {
        let t = UriTemplate::parse("kobana://b/billets/{uid}/pdf/{page}").unwrap();
        for value in [
            "abc", "a/b", "a b", "100%", "ação", ".", "..", "{uid}", "x?y#z", "%2F", "😀",
        ] {
            let uri = t
                .fill(|v| Some(if v == "uid" { value } else { "7" }))
                .unwrap();
            assert_eq!(
                t.matches(&uri),
                Some(vec![("uid", value.to_string()), ("page", "7".to_string())]),
                "{value:?} → {uri}"
            );
        }
    }

    #[test]
    fn fill_needs_every_variable() {
        let t = UriTemplate::parse("kobana://b/{a}/{b}").unwrap();
        assert_eq!(t.fill(|v| (v == "a").then_some("1")), None);
        assert_eq!(t.fill(|_| Some("")), None);
        assert_eq!(
            t.fill(|v| Some(v.to_uppercase())).as_deref(),
            Some("kobana://b/A/B")
        );
    }

    #[test]
    fn the_matcher_rejects_what_fill_never_writes() {
        let m = |uri| match_uri("test://template/{id}/data", uri);
        assert_eq!(m("test://template/123/data"), Some(pairs(&[("id", "123")])));
        assert_eq!(
            m("test://template/a%20b/data"),
            Some(pairs(&[("id", "a b")]))
        );
        assert_eq!(m("test://template//data"), None);
        assert_eq!(m("test://template/1/2/data"), None);
        assert_eq!(m("test://template/a b/data"), None);
        assert_eq!(m("test://template/ação/data"), None);
        assert_eq!(m("test://template/a:b/data"), None);
        assert_eq!(m("test://template/50%/data"), None);
        assert_eq!(m("test://template/%FF/data"), None);
        assert_eq!(m("test://template/../data"), None);
        assert_eq!(m("test://template/123/data/"), None);
        assert_eq!(m("test://other/123/data"), None);
        // A trailing variable never spans a segment either.
        assert_eq!(
            match_uri("kobana://b/billets/{uid}", "kobana://b/billets/a/b"),
            None
        );
        assert_eq!(
            match_uri("kobana://b/billets/{uid}", "kobana://b/billets/abc"),
            Some(pairs(&[("uid", "abc")]))
        );
    }

    #[test]
    fn a_variable_stops_at_the_literal_after_it() {
        assert_eq!(
            match_uri("kobana://b/{kind}/x.{fmt}", "kobana://b/a.b/x.json"),
            Some(pairs(&[("kind", "a.b"), ("fmt", "json")]))
        );
    }

    /// Found by the `uri_template` fuzz target: in `{kind}.{fmt}`, `kind` = `a.b` filled as
    /// `a.b.json` matched back as `kind` = `a`, `fmt` = `b.json`, another record. A literal after
    /// a variable must hold a character no filled value has, or the template is refused.
    #[test]
    fn a_literal_a_value_could_contain_cannot_end_a_variable() {
        for template in [
            "kobana://b/{kind}.{fmt}",
            "kobana://b/{id}x",
            "kobana://b/{a}-{b}/c",
            "kobana://b/{a}%2F{b}",
        ] {
            let err = UriTemplate::parse(template).unwrap_err();
            assert!(err.contains("cannot be told"), "{template}: {err}");
        }
        for template in [
            "kobana://b/{a}/{b}",
            "kobana://b/{a}x/{b}",
            "kobana://b/{a}:x.{b}",
        ] {
            let t = UriTemplate::parse(template).unwrap();
            for (a, b) in [("a.b", "c"), ("x", "x/y"), ("x:y", "1"), ("%", ".")] {
                let uri = t.fill(|v| Some(if v == "a" { a } else { b })).unwrap();
                assert_eq!(
                    t.matches(&uri),
                    Some(vec![("a", a.to_string()), ("b", b.to_string())]),
                    "{template}: {uri}"
                );
            }
        }
    }

    #[test]
    fn level_one_templates_only() {
        assert_eq!(
            variables("kobana://b/x/{uid}/y/{n}").unwrap(),
            vec!["uid".to_string(), "n".to_string()]
        );
        assert!(variables("kobana://b/{+path}")
            .unwrap_err()
            .contains("level 2 or 3"));
        assert!(variables("kobana://b/{?q}").is_err());
        assert!(variables("kobana://b/{a,b}").is_err());
        assert!(variables("kobana://b/{a:3}")
            .unwrap_err()
            .contains("level 4"));
        assert!(variables("kobana://b/{a").is_err());
        assert!(variables("kobana://b/a}").is_err());
        assert!(variables("kobana://b/{}").is_err());
        assert!(variables("kobana://b/{a-b}").is_err());
        assert!(variables("kobana://b/{a}/{a}")
            .unwrap_err()
            .contains("twice"));
        assert!(variables("kobana://b/{a}{b}")
            .unwrap_err()
            .contains("side by side"));
        assert_eq!(variables("kobana://b/fixed").unwrap(), Vec::<String>::new());
    }
}
