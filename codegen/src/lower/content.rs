//! What a resource or template answers: the catalog's `content:` lowered once into the runtime's
//! [`ContentKind`], printed by the Rust emitter ([`tokens`]) and described by the docs ([`text`]).

use proc_macro2::{Literal, TokenStream};
use quote::quote;
use runtime_model::catalog::ContentKind;

use crate::model::Content;

pub fn lower(c: &Content) -> ContentKind {
    match c {
        Content::Json => ContentKind::JsonRecord,
        Content::Text => ContentKind::Text,
        Content::SchemaCatalog => ContentKind::SchemaCatalog,
        Content::SchemaEntry => ContentKind::SchemaEntry,
        Content::Blob(s) => ContentKind::Blob {
            max_bytes: s.max_bytes,
        },
        Content::BlobOrText(s) => ContentKind::BlobOrText {
            max_bytes: s.max_bytes,
        },
        Content::SignedUrl(u) => ContentKind::SignedUrl {
            ttl_secs: u.ttl_seconds,
        },
    }
}

/// The `ContentKind::…` expression of the generated tables.
pub fn tokens(c: ContentKind) -> TokenStream {
    match c {
        ContentKind::JsonRecord => quote!(ContentKind::JsonRecord),
        ContentKind::Text => quote!(ContentKind::Text),
        ContentKind::SchemaCatalog => quote!(ContentKind::SchemaCatalog),
        ContentKind::SchemaEntry => quote!(ContentKind::SchemaEntry),
        ContentKind::Blob { max_bytes } => {
            let n = Literal::u64_unsuffixed(max_bytes);
            quote!(ContentKind::Blob { max_bytes: #n })
        }
        ContentKind::BlobOrText { max_bytes } => {
            let n = Literal::u64_unsuffixed(max_bytes);
            quote!(ContentKind::BlobOrText { max_bytes: #n })
        }
        ContentKind::SignedUrl { ttl_secs } => {
            let n = Literal::u64_unsuffixed(ttl_secs);
            quote!(ContentKind::SignedUrl { ttl_secs: #n })
        }
    }
}

/// What a content kind means, in a docs cell.
pub fn text(c: ContentKind) -> String {
    match c {
        ContentKind::JsonRecord => "JSON record".into(),
        ContentKind::Text => "text".into(),
        ContentKind::SchemaCatalog => "schemas catalog (JSON)".into(),
        ContentKind::SchemaEntry => "schemas catalog entry (JSON)".into(),
        ContentKind::Blob { max_bytes } => format!("base64 blob, up to {}", bytes(max_bytes)),
        ContentKind::BlobOrText { max_bytes } => {
            format!("blob or text, up to {}", bytes(max_bytes))
        }
        ContentKind::SignedUrl { ttl_secs } => {
            format!("signed download URL, valid {ttl_secs} s")
        }
    }
}

fn bytes(n: u64) -> String {
    if n >= 1024 * 1024 && n.is_multiple_of(1024 * 1024) {
        format!("{} MB", n / (1024 * 1024))
    } else if n >= 1_000_000 && n.is_multiple_of(1_000_000) {
        format!("{} MB", n / 1_000_000)
    } else if n >= 1024 && n.is_multiple_of(1024) {
        format!("{} KB", n / 1024)
    } else {
        format!("{n} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_naturally() {
        assert_eq!(bytes(10 * 1024 * 1024), "10 MB");
        assert_eq!(bytes(2048), "2 KB");
        assert_eq!(bytes(1000), "1000 bytes");
    }
}
