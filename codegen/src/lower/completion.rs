//! A completion source: its `CompletionKind` expression in the generated tables ([`tokens`]) and
//! what it suggests in the docs ([`text`]), side by side so they change together.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use crate::model::CompletionSource;

pub fn tokens(src: &CompletionSource) -> TokenStream {
    let num = |n: u32| Literal::u64_unsuffixed(n.into());
    match src {
        CompletionSource::ListIds(l) => {
            let (tool, field, limit) = (&l.tool, &l.field, num(l.limit));
            let (names, values): (Vec<&String>, Vec<&String>) = l.args.iter().unzip();
            quote!(CompletionKind::ListIds {
                tool: #tool,
                field: #field,
                limit: #limit,
                args: &[#((#names, #values)),*],
            })
        }
        CompletionSource::Fixed(v) => quote!(CompletionKind::Fixed(&[#(#v),*])),
        CompletionSource::SchemaNames => quote!(CompletionKind::SchemaNames),
        CompletionSource::LastMonths(n) => {
            let n = num(*n);
            quote!(CompletionKind::LastMonths(#n))
        }
        CompletionSource::TodayAndMonthStarts(n) => {
            let n = num(*n);
            quote!(CompletionKind::TodayAndMonthStarts(#n))
        }
        CompletionSource::None => quote!(CompletionKind::None),
    }
}

/// What the source suggests, in a docs cell.
pub fn text(src: &CompletionSource) -> String {
    match src {
        CompletionSource::ListIds(l) => format!(
            "`{}` values from `{}`{} matching the typed prefix, most recent first, up to {}",
            l.field,
            l.tool,
            l.args
                .iter()
                .map(|(k, v)| format!(" with `{k}={v}`"))
                .collect::<String>(),
            l.limit
        ),
        CompletionSource::Fixed(v) => v
            .iter()
            .map(|x| format!("`{x}`"))
            .collect::<Vec<_>>()
            .join(", "),
        CompletionSource::SchemaNames => "names of the schemas catalog".into(),
        CompletionSource::LastMonths(n) => {
            format!("the last {n} months as `YYYY-MM`, current first")
        }
        CompletionSource::TodayAndMonthStarts(n) => {
            format!("today, then the first day of each of the last {n} months (`YYYY-MM-DD`)")
        }
        CompletionSource::None => "none".into(),
    }
}
