//! The syntax tree of a generated table module, read straight from its tokens.
//!
//! A product module is a few attributes and items whose values are data: paths, string and number
//! literals, struct literals, calls (`Some(…)`), tuples, arrays and references.
//! `syn`'s general parser read those tokens at about a quarter of codegen's instructions at 10×
//! (issue 17): it buffers every token, then tries and forks its way through the whole expression
//! grammar. [`file()`] builds the same `syn` nodes for those few shapes directly and leaves every
//! item head, attribute and anything else to `syn` itself. A token it does not expect makes it
//! give up (`None`), and the caller parses the file with `syn` as before, so the tree, and the
//! file `prettyplease` prints from it, is always the one `syn` gives.
//! `rust::tests::shapes_read_what_syn_reads` compares both on every catalog of the repository.

use proc_macro2::{Delimiter, Spacing, Span, TokenStream, TokenTree};
use syn::punctuated::Punctuated;
use syn::{token, Expr, Item};

/// The file `tokens` spell, or `None` where they leave the shapes read here.
pub fn file(tokens: TokenStream) -> Option<syn::File> {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    // Inner attributes: `#` `!` `[…]`.
    let mut attr_tokens = TokenStream::new();
    while is_punct(trees.get(i), '#')
        && is_punct(trees.get(i + 1), '!')
        && matches!(trees.get(i + 2), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket)
    {
        attr_tokens.extend(trees[i..i + 3].iter().cloned());
        i += 3;
    }
    let attrs = syn::parse::Parser::parse2(syn::Attribute::parse_inner, attr_tokens).ok()?;
    let mut items = Vec::new();
    while i < trees.len() {
        // An item runs to its `;` (an item ending in a block is not one of the shapes here).
        let end = i + trees[i..].iter().position(|t| is_punct(Some(t), ';'))?;
        items.push(item(&trees[i..=end])?);
        i = end + 1;
    }
    Some(syn::File {
        shebang: None,
        attrs,
        items,
    })
}

/// One item ending in `;`: `syn` reads its head (attributes, visibility, name and type), with a
/// stand-in value; the value is read here.
fn item(trees: &[TokenTree]) -> Option<Item> {
    let eq = trees.iter().position(
        |t| matches!(t, TokenTree::Punct(p) if p.as_char() == '=' && p.spacing() == Spacing::Alone),
    );
    let Some(eq) = eq else {
        return syn::parse2(trees.iter().cloned().collect()).ok();
    };
    let mut head: TokenStream = trees[..=eq].iter().cloned().collect();
    head.extend([
        TokenTree::Literal(proc_macro2::Literal::u8_unsuffixed(0)),
        trees[trees.len() - 1].clone(),
    ]);
    let mut item: Item = syn::parse2(head).ok()?;
    let value = whole_expr(&trees[eq + 1..trees.len() - 1])?;
    match &mut item {
        Item::Static(s) => *s.expr = value,
        Item::Const(c) => *c.expr = value,
        _ => return None,
    }
    Some(item)
}

fn is_punct(t: Option<&TokenTree>, c: char) -> bool {
    matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c)
}

/// `trees` as exactly one expression.
fn whole_expr(trees: &[TokenTree]) -> Option<Expr> {
    let mut at = 0;
    let e = expr(trees, &mut at)?;
    (at == trees.len()).then_some(e)
}

/// Expressions separated by commas (a trailing comma allowed), and whether there was one.
fn list(stream: TokenStream) -> Option<(Punctuated<Expr, token::Comma>, bool)> {
    let trees: Vec<TokenTree> = stream.into_iter().collect();
    let mut out = Punctuated::new();
    let mut at = 0;
    let mut trailing = false;
    while at < trees.len() {
        out.push_value(expr(&trees, &mut at)?);
        trailing = false;
        if at < trees.len() {
            if !is_punct(trees.get(at), ',') {
                return None;
            }
            out.push_punct(token::Comma::default());
            trailing = true;
            at += 1;
        }
    }
    Some((out, trailing))
}

/// The expression starting at `trees[*at]`; `*at` moves past it.
fn expr(trees: &[TokenTree], at: &mut usize) -> Option<Expr> {
    let span = Span::call_site();
    match trees.get(*at)? {
        TokenTree::Punct(p) if p.as_char() == '&' && p.spacing() == Spacing::Alone => {
            *at += 1;
            let inner = expr(trees, at)?;
            Some(Expr::Reference(syn::ExprReference {
                attrs: Vec::new(),
                and_token: token::And::default(),
                mutability: None,
                expr: Box::new(inner),
            }))
        }
        TokenTree::Literal(l) => {
            *at += 1;
            Some(Expr::Lit(syn::ExprLit {
                attrs: Vec::new(),
                lit: syn::Lit::new(l.clone()),
            }))
        }
        TokenTree::Group(g) => {
            *at += 1;
            match g.delimiter() {
                Delimiter::Bracket => {
                    let (elems, _) = list(g.stream())?;
                    Some(Expr::Array(syn::ExprArray {
                        attrs: Vec::new(),
                        bracket_token: token::Bracket::default(),
                        elems,
                    }))
                }
                Delimiter::Parenthesis => {
                    let (elems, trailing) = list(g.stream())?;
                    // `(x)` is a parenthesized expression, `(x,)` and `(x, y)` are tuples.
                    if elems.len() == 1 && !trailing {
                        let inner = elems.into_iter().next()?;
                        Some(Expr::Paren(syn::ExprParen {
                            attrs: Vec::new(),
                            paren_token: token::Paren::default(),
                            expr: Box::new(inner),
                        }))
                    } else {
                        Some(Expr::Tuple(syn::ExprTuple {
                            attrs: Vec::new(),
                            paren_token: token::Paren::default(),
                            elems,
                        }))
                    }
                }
                _ => None,
            }
        }
        TokenTree::Ident(first) => {
            *at += 1;
            let first_text = first.to_string();
            if first_text == "true" || first_text == "false" {
                return Some(Expr::Lit(syn::ExprLit {
                    attrs: Vec::new(),
                    lit: syn::Lit::Bool(syn::LitBool::new(first_text == "true", span)),
                }));
            }
            let mut segments: Punctuated<syn::PathSegment, token::PathSep> = Punctuated::new();
            segments.push_value(syn::PathSegment::from(first.clone()));
            // `::` is a joint `:` and a lone `:`.
            while matches!(trees.get(*at), Some(TokenTree::Punct(p)) if p.as_char() == ':' && p.spacing() == Spacing::Joint)
                && matches!(trees.get(*at + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':' && p.spacing() == Spacing::Alone)
            {
                let Some(TokenTree::Ident(next)) = trees.get(*at + 2) else {
                    return None;
                };
                segments.push_punct(token::PathSep::default());
                segments.push_value(syn::PathSegment::from(next.clone()));
                *at += 3;
            }
            let path = syn::Path {
                leading_colon: None,
                segments,
            };
            match trees.get(*at) {
                Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis => {
                    *at += 1;
                    let (args, _) = list(g.stream())?;
                    Some(Expr::Call(syn::ExprCall {
                        attrs: Vec::new(),
                        func: Box::new(path_expr(path)),
                        paren_token: token::Paren::default(),
                        args,
                    }))
                }
                Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => {
                    *at += 1;
                    Some(Expr::Struct(syn::ExprStruct {
                        attrs: Vec::new(),
                        qself: None,
                        path,
                        brace_token: token::Brace::default(),
                        fields: fields(g.stream())?,
                        dot2_token: None,
                        rest: None,
                    }))
                }
                _ => Some(path_expr(path)),
            }
        }
        TokenTree::Punct(_) => None,
    }
}

fn path_expr(path: syn::Path) -> Expr {
    Expr::Path(syn::ExprPath {
        attrs: Vec::new(),
        qself: None,
        path,
    })
}

/// The `name: value` fields of a struct literal.
fn fields(stream: TokenStream) -> Option<Punctuated<syn::FieldValue, token::Comma>> {
    let trees: Vec<TokenTree> = stream.into_iter().collect();
    let mut out = Punctuated::new();
    let mut at = 0;
    while at < trees.len() {
        let Some(TokenTree::Ident(name)) = trees.get(at) else {
            return None;
        };
        if !matches!(trees.get(at + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':' && p.spacing() == Spacing::Alone)
        {
            return None;
        }
        at += 2;
        let value = expr(&trees, &mut at)?;
        out.push_value(syn::FieldValue {
            attrs: Vec::new(),
            member: syn::Member::Named(name.clone()),
            colon_token: Some(token::Colon::default()),
            expr: value,
        });
        if at < trees.len() {
            if !is_punct(trees.get(at), ',') {
                return None;
            }
            out.push_punct(token::Comma::default());
            at += 1;
        }
    }
    Some(out)
}
