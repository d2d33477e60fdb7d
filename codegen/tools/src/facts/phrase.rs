//! A phrase of a source document, kept as its length and digest instead of its text: the tests
//! compare the catalog's and the generated docs' wording with the documents' without the
//! repository holding the documents' prose.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// `chars` characters whose UTF-8 text has SHA-256 `sha256` (lower-case hex).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Phrase {
    pub chars: usize,
    pub sha256: String,
}

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

impl Phrase {
    pub fn of(text: &str) -> Phrase {
        Phrase {
            chars: text.chars().count(),
            sha256: sha256_hex(text.as_bytes()),
        }
    }

    /// `text` is exactly the phrase.
    pub fn is(&self, text: &str) -> bool {
        *self == Phrase::of(text)
    }

    /// `text` starts with the phrase.
    pub fn starts(&self, text: &str) -> bool {
        match text.char_indices().nth(self.chars) {
            Some((end, _)) => self.is(&text[..end]),
            None => self.is(text),
        }
    }

    /// The phrase occurs somewhere in `text`.
    pub fn found_in(&self, text: &str) -> bool {
        let starts: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
        let bounds = |k: usize| starts.get(k).copied().unwrap_or(text.len());
        if self.chars > starts.len() {
            return false;
        }
        (0..=starts.len() - self.chars).any(|k| {
            let window = &text[bounds(k)..bounds(k + self.chars)];
            sha256_hex(window.as_bytes()) == self.sha256
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phrase_is_matched_exactly_as_a_prefix_and_inside_a_text() {
        let p = Phrase::of("Um cliente");
        assert!(p.is("Um cliente"));
        assert!(!p.is("Um cliente."));
        assert!(p.starts("Um cliente (JSON)"));
        assert!(!p.starts("Uma cliente"));
        assert!(p.found_in("| `x` | Um cliente | `y` |"));
        assert!(!p.found_in("| `x` | Um client |"));
        assert!(Phrase::of("é").found_in("café"));
        assert!(!Phrase::of("longer than the text").found_in("short"));
    }
}
