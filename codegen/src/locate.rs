//! Where each key and value of a YAML file is: a YAML path → (line, column) index.
//!
//! `serde_yaml` reports positions for syntax and shape errors, but once a catalog is deserialized
//! the positions are gone. Semantic checks (an unknown tool in `read_by`, a duplicate URI, …) still
//! must point at the offending key, so the loader also runs `yaml-rust2`'s event parser over the
//! same text and records the position of every mapping key and every value under its path, written
//! the way `serde_yaml` writes paths in its own errors (`tools[3].annotations.readOnlyHint`).
//!
//! The index is best effort: if the event parser gives up on something `serde_yaml` accepted, the
//! lookup falls back to the nearest ancestor that was indexed, so a diagnostic always has a place.

use std::collections::{HashMap, HashSet};

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::Marker;

/// A 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pos {
    pub line: usize,
    pub column: usize,
}

impl Pos {
    fn from_marker(m: Marker) -> Pos {
        Pos {
            line: m.line(),
            column: m.col() + 1,
        }
    }
}

/// Positions of the keys and values of one YAML document, by path.
#[derive(Debug, Default, Clone)]
pub struct PositionIndex {
    keys: HashMap<String, Pos>,
    values: HashMap<String, Pos>,
    /// Paths whose value is a mapping or a sequence.
    containers: HashSet<String>,
}

impl PositionIndex {
    /// Indexes `text`. Never fails: a text the event parser cannot read gives a partial index.
    pub fn build(text: &str) -> PositionIndex {
        let mut builder = Builder::default();
        let mut parser = Parser::new_from_str(text);
        // A parse error leaves what was indexed so far; serde_yaml reports the error itself.
        let _ = parser.load(&mut builder, false);
        builder.index
    }

    /// Position of the key at `path` (for `tools[2].name`, where `name` is written), falling back
    /// to its value, then to the nearest indexed ancestor, then to the start of the file.
    pub fn key(&self, path: &str) -> Pos {
        self.lookup(path, true)
    }

    /// Position of the value at `path` (where the offending text is), with the same fallbacks.
    /// A block mapping or sequence starts on the line after its key; for those the key's line is
    /// where a reader looks, so the key's position is given instead.
    pub fn value(&self, path: &str) -> Pos {
        if self.containers.contains(path) {
            if let (Some(k), Some(v)) = (self.keys.get(path), self.values.get(path)) {
                if v.line > k.line {
                    return *k;
                }
            }
        }
        self.lookup(path, false)
    }

    /// Whether the path was written in the file (as opposed to filled by a default).
    pub fn contains(&self, path: &str) -> bool {
        self.values.contains_key(path) || self.keys.contains_key(path)
    }

    fn lookup(&self, path: &str, prefer_key: bool) -> Pos {
        let mut current = path;
        loop {
            if current.is_empty() {
                // The whole document: its first character.
                return Pos { line: 1, column: 1 };
            }
            let (first, second) = if prefer_key {
                (&self.keys, &self.values)
            } else {
                (&self.values, &self.keys)
            };
            if let Some(p) = first.get(current).or_else(|| second.get(current)) {
                return *p;
            }
            match parent_path(current) {
                Some(parent) => current = parent,
                None => {
                    return Pos { line: 1, column: 1 };
                }
            }
        }
    }
}

/// `tools[3].name` → `tools[3]` → `tools` → `` → None.
fn parent_path(path: &str) -> Option<&str> {
    if path.is_empty() {
        return None;
    }
    let cut = path.rfind(['.', '[']).unwrap_or(0);
    Some(&path[..cut])
}

/// Joins a mapping key onto a path the way serde_yaml prints paths.
pub fn key_path(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

/// Joins a sequence index onto a path.
pub fn index_path(parent: &str, index: usize) -> String {
    format!("{parent}[{index}]")
}

enum Frame {
    Mapping {
        path: String,
        /// The key whose value comes next, once the key was read.
        pending_key: Option<String>,
        /// Where the mapping started, until its first key gives a better place: a block
        /// mapping's start event is marked at the first `:`, not where the mapping is written.
        start: Option<Marker>,
    },
    Sequence {
        path: String,
        next: usize,
    },
}

#[derive(Default)]
struct Builder {
    index: PositionIndex,
    stack: Vec<Frame>,
    /// Anchors are not followed; aliases are recorded at the alias itself.
    in_document: bool,
}

impl Builder {
    /// The path of the node starting now, or `None` when it is a mapping key (recorded here).
    fn place_node(&mut self, event: &Event, mark: Marker) -> Option<String> {
        match self.stack.last_mut() {
            None => Some(String::new()),
            Some(Frame::Sequence { path, next }) => {
                let p = index_path(path, *next);
                *next += 1;
                Some(p)
            }
            Some(Frame::Mapping {
                path,
                pending_key,
                start,
            }) => match pending_key.take() {
                Some(key) => Some(key_path(path, &key)),
                None => {
                    if start.take().is_some() {
                        self.index
                            .values
                            .entry(path.clone())
                            .or_insert(Pos::from_marker(mark));
                    }
                    let key = match event {
                        Event::Scalar(s, ..) => s.clone(),
                        // Complex keys do not occur in catalogs; give them a placeholder.
                        _ => "?".to_string(),
                    };
                    let full = key_path(path, &key);
                    self.index
                        .keys
                        .entry(full)
                        .or_insert(Pos::from_marker(mark));
                    *pending_key = Some(key);
                    None
                }
            },
        }
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        match &ev {
            Event::DocumentStart => self.in_document = true,
            Event::Scalar(..)
            | Event::Alias(..)
            | Event::MappingStart(..)
            | Event::SequenceStart(..)
                if self.in_document =>
            {
                let is_key_container = matches!(
                    self.stack.last(),
                    Some(Frame::Mapping {
                        pending_key: None,
                        ..
                    })
                );
                let Some(path) = self.place_node(&ev, mark) else {
                    if is_key_container
                        && matches!(ev, Event::MappingStart(..) | Event::SequenceStart(..))
                    {
                        // A complex key: index its inside under a throwaway path.
                        let path = "?".to_string();
                        self.push_container(&ev, path, mark);
                    }
                    return;
                };
                if !matches!(ev, Event::MappingStart(..)) {
                    // A mapping's position is taken from its first key (see `Frame::Mapping`).
                    self.index
                        .values
                        .entry(path.clone())
                        .or_insert(Pos::from_marker(mark));
                }
                if matches!(ev, Event::MappingStart(..) | Event::SequenceStart(..)) {
                    self.index.containers.insert(path.clone());
                }
                self.push_container(&ev, path, mark);
            }
            Event::MappingEnd | Event::SequenceEnd => {
                if let Some(Frame::Mapping {
                    path,
                    start: Some(m),
                    ..
                }) = self.stack.pop()
                {
                    // An empty mapping: only its start is known.
                    self.index.values.entry(path).or_insert(Pos::from_marker(m));
                }
            }
            Event::DocumentEnd => self.in_document = false,
            _ => {}
        }
    }
}

impl Builder {
    fn push_container(&mut self, ev: &Event, path: String, mark: Marker) {
        match ev {
            Event::MappingStart(..) => self.stack.push(Frame::Mapping {
                path,
                pending_key: None,
                start: Some(mark),
            }),
            Event::SequenceStart(..) => self.stack.push(Frame::Sequence { path, next: 0 }),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "product:\n  name: banking\ntools:\n  - name: a_get\n    annotations: {readOnlyHint: true}\n  - name: b_list\n    input_schema:\n      type: object\n";

    #[test]
    fn keys_and_values_have_their_written_positions() {
        let idx = PositionIndex::build(DOC);
        assert_eq!(idx.key("product.name"), Pos { line: 2, column: 3 });
        assert_eq!(idx.value("product.name"), Pos { line: 2, column: 9 });
        assert_eq!(idx.key("tools[1].name"), Pos { line: 6, column: 5 });
        assert_eq!(
            idx.key("tools[1].input_schema.type"),
            Pos { line: 8, column: 7 }
        );
        assert_eq!(
            idx.key("tools[0].annotations.readOnlyHint"),
            Pos {
                line: 5,
                column: 19
            }
        );
    }

    #[test]
    fn a_mapping_in_a_sequence_is_where_its_first_key_is() {
        let idx = PositionIndex::build(DOC);
        assert_eq!(idx.value("tools[1]"), Pos { line: 6, column: 5 });
        assert_eq!(
            idx.value("tools[0].annotations"),
            Pos {
                line: 5,
                column: 19
            }
        );
        let empty = PositionIndex::build("a:\n  b: {}\n");
        assert_eq!(empty.value("a.b").line, 2);
    }

    #[test]
    fn unknown_paths_fall_back_to_the_nearest_ancestor() {
        let idx = PositionIndex::build(DOC);
        assert_eq!(idx.value("tools[1].output_schema"), idx.value("tools[1]"));
        assert_eq!(idx.value("nothing.here"), Pos { line: 1, column: 1 });
        assert!(!idx.contains("tools[1].output_schema"));
        assert!(idx.contains("tools[1].name"));
    }
}
