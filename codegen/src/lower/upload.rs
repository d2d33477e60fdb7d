//! A multipart body's file part, resolved once: its Content-Type (the argument's
//! `contentMediaType`, else `application/octet-stream`), where its filename comes from, and its
//! default filename. The Rust emitter prints it as a `FileField`, the docs describe it.

use crate::model::{FilePart, Tool};

/// One file part with its defaults filled.
pub struct ResolvedFilePart<'a> {
    /// The argument's path: `["files", "crt_file"]` for `files.crt_file`.
    pub arg: Vec<&'a str>,
    pub media_type: &'a str,
    /// The argument or API field naming the file, if any.
    pub filename_arg: Option<&'a str>,
    /// Whether `filename_arg` is an API field (sent as its own part) rather than a tool argument.
    pub filename_is_field: bool,
    pub default_filename: String,
}

pub fn resolve<'a>(t: &'a Tool, f: &'a FilePart) -> ResolvedFilePart<'a> {
    let arg: Vec<&str> = f.arg.split('.').collect();
    let media_type = crate::validate::property_at(&t.input_schema, &arg)
        .and_then(|s| s.get("contentMediaType"))
        .and_then(|m| m.as_str())
        .unwrap_or(runtime_model::upload::OCTET_STREAM);
    let (filename_arg, filename_is_field) = match (&f.filename_field, &f.filename_arg) {
        (Some(name), _) => (Some(name.as_str()), true),
        (None, Some(name)) => (Some(name.as_str()), false),
        (None, None) => (None, false),
    };
    let default_filename = f
        .default_filename
        .clone()
        .unwrap_or_else(|| arg.last().copied().unwrap_or("file").to_string());
    ResolvedFilePart {
        arg,
        media_type,
        filename_arg,
        filename_is_field,
        default_filename,
    }
}
