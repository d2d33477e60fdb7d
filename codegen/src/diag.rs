//! Diagnostics: what is wrong in a catalog, where, and what would be valid.
//!
//! Every refusal of the generator is a [`Diagnostic`] that names the file, the line and column, the
//! YAML path of the offending key (`tools[3].annotations.destructiveHint`), says what is wrong and,
//! when there is a useful answer, what would be valid. They print like compiler errors so that
//! editors and terminals can jump to them.

use std::fmt;

/// One problem in one catalog file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file as shown to people, e.g. `catalog/banking.yaml`.
    pub file: String,
    /// 1-based line; 0 when unknown.
    pub line: usize,
    /// 1-based column; 0 when unknown.
    pub column: usize,
    /// YAML path of the offending key or value (`tools[3].name`); empty for the whole file.
    pub path: String,
    /// What is wrong.
    pub message: String,
    /// What would be valid, when we can say.
    pub hint: Option<String>,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: error", self.file, self.line, self.column)?;
        if !self.path.is_empty() {
            write!(f, " at `{}`", self.path)?;
        }
        write!(f, ": {}", self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, "\n  valid: {hint}")?;
        }
        Ok(())
    }
}

/// Every problem found in a run; the generator reports them all at once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter()
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        let n = self.0.len();
        write!(
            f,
            "\n{n} problem{} in the catalogs; nothing was generated",
            if n == 1 { "" } else { "s" }
        )
    }
}

impl std::error::Error for Diagnostics {}
