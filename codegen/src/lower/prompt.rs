//! A prompt argument's `format:` lowered once into the runtime's [`ArgFormat`], printed by the
//! Rust emitter ([`format_tokens`]) and described by the docs ([`format_text`]).

use proc_macro2::TokenStream;
use quote::quote;
use runtime_model::catalog::ArgFormat;

use crate::model;

pub fn lower_format(f: Option<model::ArgFormat>) -> ArgFormat {
    match f {
        None => ArgFormat::Any,
        Some(model::ArgFormat::Date) => ArgFormat::Date,
        Some(model::ArgFormat::Month) => ArgFormat::Month,
    }
}

pub fn format_tokens(f: ArgFormat) -> TokenStream {
    match f {
        ArgFormat::Any => quote!(ArgFormat::Any),
        ArgFormat::Date => quote!(ArgFormat::Date),
        ArgFormat::Month => quote!(ArgFormat::Month),
    }
}

/// The format in a docs cell (`None` for any value).
pub fn format_text(f: ArgFormat) -> Option<&'static str> {
    match f {
        ArgFormat::Any => None,
        ArgFormat::Date => Some("`YYYY-MM-DD`"),
        ArgFormat::Month => Some("`YYYY-MM`"),
    }
}
