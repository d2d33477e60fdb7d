//! Rust output: one module per catalog building a `runtime_model::catalog::Product`, and the
//! crate root listing them.
//!
//! Code is built as tokens with `quote` and printed with `prettyplease`, so it is always valid
//! syntax and its layout does not depend on string formatting here. Everything is `&'static`
//! data: the runtime never parses a catalog.

pub mod held;
pub mod shapes;

use held::Held;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::descriptors::{self, resolve_annotations};
use crate::lower;
use crate::model::{Body, Catalog, FilePart, ListEdit, OperationKind, Tool};

/// The order real products appear in `PRODUCTS`; any other product follows, by name.
pub const PRODUCT_ORDER: &[&str] = &["banking", "billing", "finance", "dashboards", "inbox"];

/// The first line of every generated Rust file.
pub fn preamble(source: &str) -> String {
    format!(
        "// generated from {source}; do not edit by hand — run `cargo build` (or `cargo run -p codegen`)\n"
    )
}

/// A number literal without a type suffix (`300`, not `300u64`): the field's type decides.
fn num(n: impl Into<u64>) -> proc_macro2::Literal {
    proc_macro2::Literal::u64_unsuffixed(n.into())
}

fn list_edit(e: &Option<ListEdit>) -> TokenStream {
    match e {
        Some(ListEdit { field, from_arg }) => {
            quote!(Some(ListEdit { field: #field, from_arg: #from_arg }))
        }
        None => quote!(None),
    }
}

fn opt_str(v: &Option<String>) -> TokenStream {
    match v {
        Some(s) => quote!(Some(#s)),
        None => quote!(None),
    }
}

fn str_slice<'s>(items: impl IntoIterator<Item = &'s String>) -> TokenStream {
    let items: Vec<&String> = items.into_iter().collect();
    quote!(&[#(#items),*])
}

fn pair_slice<'s>(items: impl IntoIterator<Item = (&'s String, &'s String)>) -> TokenStream {
    let pairs = items.into_iter().map(|(a, b)| quote!((#a, #b)));
    quote!(&[#(#pairs),*])
}

fn json_str(v: &serde_json::Value) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "null".into())
}

/// A dotted argument path (`files.crt_file`) as a `&[&str]` literal.
fn arg_path(dotted: &str) -> TokenStream {
    let segments = dotted.split('.');
    quote!(&[#(#segments),*])
}

/// One file part of a multipart body (see [`lower::upload`]).
fn file_field(t: &Tool, f: &FilePart) -> TokenStream {
    let p = lower::upload::resolve(t, f);
    let arg = &p.arg;
    let arg = quote!(&[#(#arg),*]);
    let filename_arg = match p.filename_arg {
        Some(name) => {
            let path = arg_path(name);
            quote!(Some(#path))
        }
        None => quote!(None),
    };
    let (is_field, default_filename, media_type) =
        (p.filename_is_field, &p.default_filename, p.media_type);
    quote! {
        FileField {
            arg: #arg,
            filename_arg: #filename_arg,
            filename_is_field: #is_field,
            default_filename: #default_filename,
            media_type: #media_type,
        }
    }
}

fn binding(t: &Tool) -> TokenStream {
    if let Some(h) = &t.http {
        let method = match h.method.as_str() {
            "POST" => quote!(HttpMethod::Post),
            "PUT" => quote!(HttpMethod::Put),
            "PATCH" => quote!(HttpMethod::Patch),
            "DELETE" => quote!(HttpMethod::Delete),
            _ => quote!(HttpMethod::Get),
        };
        let path = &h.path;
        let vars = crate::validate::template_vars(&h.path).unwrap_or_default();
        let params = vars.iter().map(|v| {
            let arg = h.path_args.get(v).unwrap_or(v);
            quote!((#v, #arg))
        });
        let query = str_slice(&h.query);
        let body = match &h.body {
            None => quote!(BodyMode::None),
            Some(Body::Keyword(_)) => quote!(BodyMode::Rest),
            Some(Body::Fields(f)) => {
                let f = str_slice(f);
                quote!(BodyMode::Fields(#f))
            }
            Some(Body::Wrapped(w)) => {
                let key = &w.wrap;
                let f = str_slice(&w.fields);
                quote!(BodyMode::Wrapped(#key, #f))
            }
            Some(Body::Multipart(m)) => {
                let files = m.multipart.files.iter().map(|f| file_field(t, f));
                quote!(BodyMode::Multipart { files: &[#(#files),*] })
            }
        };
        let op_ref = format!("{} {}", h.method, h.path);
        quote! {
            Binding::Http(HttpBinding {
                method: #method,
                path: #path,
                path_params: &[#(#params),*],
                query_params: #query,
                body: #body,
                operation_ref: Some(#op_ref),
            })
        }
    } else {
        let handler = t.handler.clone().unwrap_or_default();
        quote!(Binding::Extension(#handler))
    }
}

fn operation(t: &Tool) -> TokenStream {
    let Some(op) = &t.operation else {
        return quote!(Operation::Custom);
    };
    let record = op.record.clone().unwrap_or_default();
    let id_arg = op.id_arg.clone().unwrap_or_default();
    match op.kind {
        OperationKind::List => quote!(Operation::List { record: #record }),
        OperationKind::Get => match op.where_.as_ref().and_then(|w| w.iter().next()) {
            Some((field, value)) => quote!(Operation::GetWhere {
                record: #record,
                id_arg: #id_arg,
                field: #field,
                value: #value,
            }),
            None => quote!(Operation::Get { record: #record, id_arg: #id_arg }),
        },
        OperationKind::Singleton => quote!(Operation::Singleton { record: #record }),
        OperationKind::WhoAmI => quote!(Operation::WhoAmI),
        OperationKind::Latest => quote!(Operation::Latest { record: #record }),
        OperationKind::Summary => {
            let days = op.days.unwrap_or(0);
            quote!(Operation::Summary { record: #record, days: #days })
        }
        OperationKind::GroupedTotals => match &op.grouping {
            Some(g) => {
                let (date, amount, by) = (&g.date_field, &g.amount_field, &g.default_by);
                quote!(Operation::GroupedTotals {
                    record: #record,
                    date_field: #date,
                    amount_field: #amount,
                    default_by: #by,
                })
            }
            None => quote!(Operation::Custom),
        },
        OperationKind::Create => quote!(Operation::Create { record: #record }),
        OperationKind::Update => quote!(Operation::Update { record: #record, id_arg: #id_arg }),
        OperationKind::Delete => quote!(Operation::Delete { record: #record, id_arg: #id_arg }),
        OperationKind::Custom => quote!(Operation::Custom),
        OperationKind::Action => match &op.action {
            Some(a) => {
                let name = &a.name;
                let from = str_slice(&a.from);
                let set = pair_slice(&a.set);
                let state = &a.state_field;
                let creates = opt_str(&a.creates);
                let add = list_edit(&a.add);
                let remove = list_edit(&a.remove);
                quote! {
                    Operation::Action {
                        record: #record,
                        id_arg: #id_arg,
                        action: &Action {
                            name: #name,
                            from: #from,
                            set: #set,
                            state_field: #state,
                            creates: #creates,
                            add: #add,
                            remove: #remove,
                        },
                    }
                }
            }
            None => quote!(Operation::Custom),
        },
    }
}

/// `descriptor` is where the tool's descriptor lies in the joined `TOOLS_JSON` text.
fn tool(t: &Tool, descriptor: std::ops::Range<usize>, held: &Held) -> TokenStream {
    let a = resolve_annotations(t);
    let (ro, de, id, ow) = (a.read_only, a.destructive, a.idempotent, a.open_world);
    let name = &t.name;
    let title = &t.title;
    let description = held.lit(&t.description);
    let (start, end) = (descriptor.start, descriptor.end);
    let descriptor = quote!(json_slice(TOOLS_JSON, #start, #end));
    let input = held.lit(&json_str(&descriptors::yaml_to_json(&t.input_schema)));
    let output = match &t.output_schema {
        Some(o) => {
            let s = held.lit(&json_str(&descriptors::yaml_to_json(o)));
            quote!(Some(#s))
        }
        None => quote!(None),
    };
    let clause = opt_str(&t.destructive_clause);
    let scope = &t.scope;
    let permission = &t.permission;
    let binding = binding(t);
    let operation = operation(t);
    let task = match t.task {
        crate::model::TaskSetting::Never => quote!(TaskSupport::Never),
        crate::model::TaskSetting::Optional => quote!(TaskSupport::Optional),
        crate::model::TaskSetting::Required => quote!(TaskSupport::Required),
    };
    quote! {
        Tool {
            name: #name,
            title: #title,
            description: #description,
            descriptor_json: #descriptor,
            input_schema_json: #input,
            output_schema_json: #output,
            annotations: Annotations {
                read_only: #ro,
                destructive: #de,
                idempotent: #id,
                open_world: #ow,
            },
            destructive_clause: #clause,
            scope: #scope,
            permission: #permission,
            binding: #binding,
            operation: #operation,
            task: #task,
        }
    }
}

fn locale_tokens(l: runtime_model::locale::Locale) -> TokenStream {
    use runtime_model::locale::Locale;
    match l {
        Locale::PtBr => quote!(Locale::PtBr),
        Locale::Es => quote!(Locale::Es),
        Locale::En => quote!(Locale::En),
    }
}

/// `(argument, label)` of a tool's top-level arguments, from their descriptions.
fn labels(t: &Tool) -> Vec<(String, String)> {
    let Some(props) = t
        .input_schema
        .get("properties")
        .and_then(|p| p.as_mapping())
    else {
        return Vec::new();
    };
    props
        .iter()
        .filter_map(|(k, v)| {
            let name = k.as_str()?;
            let desc = v.get("description").and_then(|d| d.as_str()).unwrap_or("");
            Some((name.to_string(), crate::texts::label(name, desc)))
        })
        .collect()
}

/// The `LocaleTexts` of one locale and the name of its joined descriptor constant, with that
/// constant's text.
fn locale_texts<'a>(
    lc: &'a crate::texts::Localized,
    listings: &descriptors::Listings<'a>,
    held: &Held,
) -> (TokenStream, TokenStream) {
    let c = &lc.catalog;
    let tag = lc.locale.tag().replace('-', "_").to_uppercase();
    let joined_name = format_ident!("TOOLS_JSON_{}", tag);
    // Each locale's tools in a static of their own: one constant evaluating every locale's
    // descriptor slices at once runs into the compiler's long-evaluation lint.
    let tools_name = format_ident!("TOOL_TEXTS_{}", tag);
    let listing = listings.of(c);
    let (joined, ranges) = (&listing.json, listing.ranges.iter().cloned());
    let tools = descriptors::sorted_tools(c)
        .into_iter()
        .zip(ranges)
        .map(|(t, r)| {
            let (title, description) = (&t.title, held.lit(&t.description));
            let clause = opt_str(&t.destructive_clause);
            let (start, end) = (r.start, r.end);
            let labels = labels(t);
            let labels = labels.iter().map(|(a, b)| quote!((#a, #b)));
            quote! {
                ToolTexts {
                    title: #title,
                    description: #description,
                    destructive_clause: #clause,
                    descriptor_json: json_slice(#joined_name, #start, #end),
                    labels: &[#(#labels),*],
                }
            }
        });
    let resources = c.resources.iter().map(|r| {
        let (title, description) = (&r.title, held.lit(&r.description));
        let d = held.lit(&json_str(&descriptors::resource(r)));
        quote!(ItemTexts { title: #title, description: #description, descriptor_json: #d })
    });
    let templates = c.templates.iter().map(|t| {
        let (title, description) = (&t.title, held.lit(&t.description));
        let d = held.lit(&json_str(&descriptors::template(t)));
        quote!(ItemTexts { title: #title, description: #description, descriptor_json: #d })
    });
    let prompts = c.prompts.iter().map(|p| {
        let (title, description, template) =
            (&p.title, held.lit(&p.description), held.lit(&p.template));
        let d = held.lit(&json_str(&descriptors::prompt(p)));
        quote!(PromptTexts { title: #title, description: #description, template: #template, descriptor_json: #d })
    });
    let records = c.records.iter().map(|(name, r)| {
        let title = &r.title;
        let schema = held.lit(&json_str(&descriptors::record_schema(name, r)));
        quote!(RecordTexts { title: #title, schema_json: #schema })
    });
    let locale = locale_tokens(lc.locale);
    let (title, instructions) = (&c.product.title, held.lit(&c.product.instructions));
    let texts = quote! {
        LocaleTexts {
            locale: #locale,
            title: #title,
            instructions: #instructions,
            tools_json: #joined_name,
            tools: #tools_name,
            resources: &[#(#resources),*],
            templates: &[#(#templates),*],
            prompts: &[#(#prompts),*],
            records: &[#(#records),*],
        }
    };
    let joined = held.lit(joined);
    let constant = quote! {
        const #joined_name: &str = #joined;
        static #tools_name: &[ToolTexts] = &[#(#tools),*];
    };
    (texts, constant)
}

/// The module `generated/src/<product>.rs` for one catalog; `localized` holds the catalog in
/// each locale (texts only differ).
/// `listings` holds (or builds) each catalog's tool descriptors.
pub fn product_module<'a>(
    c: &'a Catalog,
    localized: &'a [crate::texts::Localized],
    source: &str,
    listings: &descriptors::Listings<'a>,
) -> String {
    let (file, held) = product_tokens(c, localized, source, listings);
    print(file, &preamble(source), &held)
}

/// The tokens of [`product_module`], and the literals held out of them.
fn product_tokens<'a>(
    c: &'a Catalog,
    localized: &'a [crate::texts::Localized],
    source: &str,
    listings: &descriptors::Listings<'a>,
) -> (TokenStream, Held) {
    let info = &c.product;
    let (name, title, version) = (&info.name, &info.title, &info.version);
    let (uri_prefix, tool_prefix, naming) = (&info.uri_prefix, &info.tool_prefix, &info.naming);
    // Long literals skip the token pipeline (see `held`); made in the order they are printed.
    let held = Held::default();
    let (api, instructions) = (&info.api_base_url, held.lit(&info.instructions));
    let policy = lower::policy::tokens(&lower::policy::lower(&c.policies));
    // Every descriptor joined by commas, in listing order: a listing of every tool is this text
    // as it is, and each tool's descriptor a slice of it.
    let sorted = descriptors::sorted_tools(c);
    let listing = listings.of(c);
    let ranges = listing.ranges.iter().cloned();
    let default_locale = locale_tokens(
        runtime_model::locale::Locale::from_tag(&info.locale)
            .unwrap_or(runtime_model::locale::Locale::En),
    );
    // Former names `tools/call` still accepts, by alias.
    let mut alias_pairs: Vec<(&str, &str)> = c
        .tools
        .iter()
        .flat_map(|t| t.aliases.iter().map(move |a| (a.as_str(), t.name.as_str())))
        .collect();
    alias_pairs.sort();
    let aliases = alias_pairs.iter().map(|(a, n)| quote!((#a, #n)));
    let tools = sorted
        .into_iter()
        .zip(ranges)
        .map(|(t, r)| tool(t, r, &held));
    let tools_json = held.lit(&listing.json);
    let (locale_texts, locale_consts): (Vec<TokenStream>, Vec<TokenStream>) = localized
        .iter()
        .map(|lc| locale_texts(lc, listings, &held))
        .unzip();
    let resources = c.resources.iter().map(|r| {
        let (uri, rname, rtitle, desc, mime, read_by) = (
            &r.uri,
            &r.name,
            &r.title,
            &r.description,
            &r.mime_type,
            &r.read_by,
        );
        let desc = held.lit(desc);
        let content = lower::content::tokens(lower::content::lower(&r.content));
        let descriptor = held.lit(&json_str(&descriptors::resource(r)));
        quote! {
            Resource {
                uri: #uri,
                name: #rname,
                title: #rtitle,
                description: #desc,
                mime_type: #mime,
                read_by: #read_by,
                content: #content,
                descriptor_json: #descriptor,
            }
        }
    });
    let templates = c.templates.iter().map(|t| {
        let (uri, tname, ttitle, desc, mime, read_by) = (
            &t.uri_template,
            &t.name,
            &t.title,
            &t.description,
            &t.mime_type,
            &t.read_by,
        );
        // Every variable, in order of appearance, with its argument (same name by default).
        let vars = crate::validate::template_vars(&t.uri_template).unwrap_or_default();
        let args = vars.iter().map(|v| {
            let arg = t.args.get(v).unwrap_or(v);
            quote!((#v, #arg))
        });
        let content = lower::content::tokens(lower::content::lower(&t.content));
        let listed = t.listed;
        let list_tool = opt_str(&t.list_tool);
        let completions = pair_slice(&t.complete);
        let limitation = opt_str(&t.limitation);
        let desc = held.lit(desc);
        let descriptor = held.lit(&json_str(&descriptors::template(t)));
        quote! {
            Template {
                uri_template: #uri,
                name: #tname,
                title: #ttitle,
                description: #desc,
                mime_type: #mime,
                read_by: #read_by,
                args: &[#(#args),*],
                content: #content,
                listed: #listed,
                list_tool: #list_tool,
                completions: #completions,
                limitation: #limitation,
                descriptor_json: #descriptor,
            }
        }
    });
    let prompts = c.prompts.iter().map(|p| {
        let (pname, ptitle, desc, template) = (&p.name, &p.title, &p.description, &p.template);
        let args = p.arguments.iter().map(|a| {
            let (aname, adesc, req) = (&a.name, &a.description, a.required);
            let format = lower::prompt::format_tokens(lower::prompt::lower_format(a.format));
            let default = opt_str(&a.default);
            let complete = opt_str(&a.complete);
            quote! {
                PromptArgument {
                    name: #aname,
                    description: #adesc,
                    required: #req,
                    format: #format,
                    default: #default,
                    complete: #complete,
                }
            }
        });
        let uses = str_slice(&p.uses);
        let writes = p.writes;
        let (desc, template) = (held.lit(desc), held.lit(template));
        let descriptor = held.lit(&json_str(&descriptors::prompt(p)));
        quote! {
            Prompt {
                name: #pname,
                title: #ptitle,
                description: #desc,
                arguments: &[#(#args),*],
                uses: #uses,
                writes: #writes,
                template: #template,
                descriptor_json: #descriptor,
            }
        }
    });
    let completions = c.completions.iter().map(|(id, src)| {
        let kind = lower::completion::tokens(src);
        quote!(CompletionSource { id: #id, kind: #kind })
    });
    let records = c.records.iter().map(|(rname, r)| {
        let (rtitle, desc, id_field) = (&r.title, &r.description, &r.id_field);
        let (numeric, seeds) = (r.numeric_id, num(r.seed_count));
        let fields = r.fields.iter().map(|(fname, f)| {
            let (ty, fdesc, sortable, seed) = (&f.ty, &f.description, f.sortable, &f.seed);
            let enums = str_slice(&f.enum_values);
            quote! {
                Field {
                    name: #fname,
                    ty: #ty,
                    description: #fdesc,
                    enum_values: #enums,
                    sortable: #sortable,
                    seed: #seed,
                }
            }
        });
        let desc = held.lit(desc);
        let schema = held.lit(&json_str(&descriptors::record_schema(rname, r)));
        quote! {
            RecordType {
                name: #rname,
                title: #rtitle,
                description: #desc,
                id_field: #id_field,
                numeric_id: #numeric,
                seed_count: #seeds,
                fields: &[#(#fields),*],
                schema_json: #schema,
            }
        }
    });
    let exclusions = c.exclusions.iter().map(|e| {
        let (op, reason) = (&e.operation, &e.reason);
        quote!(Exclusion { operation: #op, reason: #reason })
    });
    let toolsets = c
        .toolsets
        .iter()
        .zip(crate::toolsets::resolve(c))
        .map(|(ts, set)| {
            let (tname, ttitle, tdesc, default) =
                (&ts.name, &ts.title, &ts.description, ts.default);
            let idx = set.into_iter().map(|i| {
                let i = u16::try_from(i).unwrap_or(u16::MAX);
                quote!(#i)
            });
            quote! {
                Toolset {
                    name: #tname,
                    title: #ttitle,
                    description: #tdesc,
                    default: #default,
                    tools: &[#(#idx),*],
                }
            }
        });
    let doc = format!(" The `{name}` product ({title}), compiled from `{source}`.");
    let file: TokenStream = quote! {
        #![cfg_attr(rustfmt, rustfmt::skip)]
        #![doc = #doc]
        #![allow(clippy::all)]

        use runtime_model::catalog::*;

        pub static PRODUCT: Product = Product {
            name: #name,
            title: #title,
            version: #version,
            uri_prefix: #uri_prefix,
            tool_prefix: #tool_prefix,
            naming: #naming,
            api_base_url: #api,
            instructions: #instructions,
            policy: #policy,
            tools: TOOLS,
            tools_json: TOOLS_JSON,
            tool_aliases: &[#(#aliases),*],
            resources: RESOURCES,
            templates: TEMPLATES,
            prompts: PROMPTS,
            completions: COMPLETIONS,
            records: RECORDS,
            exclusions: EXCLUSIONS,
            toolsets: TOOLSETS,
            default_locale: #default_locale,
            locales: LOCALES,
        };

        /// Sorted by name: the order of `tools/list`.
        static TOOLS: &[Tool] = &[#(#tools),*];
        /// Every tool descriptor, in that order, joined by commas.
        const TOOLS_JSON: &str = #tools_json;
        static RESOURCES: &[Resource] = &[#(#resources),*];
        static TEMPLATES: &[Template] = &[#(#templates),*];
        static PROMPTS: &[Prompt] = &[#(#prompts),*];
        static COMPLETIONS: &[CompletionSource] = &[#(#completions),*];
        static RECORDS: &[RecordType] = &[#(#records),*];
        static EXCLUSIONS: &[Exclusion] = &[#(#exclusions),*];
        /// Tool indices refer to `TOOLS` (sorted by name).
        static TOOLSETS: &[Toolset] = &[#(#toolsets),*];
        /// Every text in pt-BR, es and en.
        static LOCALES: &[LocaleTexts] = &[#(#locale_texts),*];
        #(#locale_consts)*
    };
    (file, held)
}

/// A product catalog as the crate root sees it.
pub struct ModuleEntry {
    pub module: String,
    pub fixture: bool,
}

/// `generated/src/lib.rs`: the modules, `PRODUCTS`, `FIXTURES` and `product(name)`.
pub fn lib_module(entries: &[ModuleEntry]) -> String {
    let mut products: Vec<&ModuleEntry> = entries.iter().filter(|e| !e.fixture).collect();
    products.sort_by_key(|e| {
        let rank = PRODUCT_ORDER
            .iter()
            .position(|p| *p == e.module)
            .unwrap_or(PRODUCT_ORDER.len());
        (rank, e.module.clone())
    });
    let mut fixtures: Vec<&ModuleEntry> = entries.iter().filter(|e| e.fixture).collect();
    fixtures.sort_by(|a, b| a.module.cmp(&b.module));
    let mut all: Vec<&ModuleEntry> = entries.iter().collect();
    all.sort_by(|a, b| a.module.cmp(&b.module));
    let mods = all.iter().map(|e| {
        let m = format_ident!("{}", e.module);
        if e.fixture {
            quote! {
                #[cfg(feature = "fixtures")]
                pub mod #m;
            }
        } else {
            quote! {
                pub mod #m;
            }
        }
    });
    let refs = |list: &[&ModuleEntry]| -> Vec<TokenStream> {
        list.iter()
            .map(|e| {
                let m = format_ident!("{}", e.module);
                quote!(&#m::PRODUCT)
            })
            .collect()
    };
    let product_refs = refs(&products);
    let fixture_refs = refs(&fixtures);
    let file = quote! {
        #![cfg_attr(rustfmt, rustfmt::skip)]
        //! The compiled catalogs: one module per `catalog/<product>.yaml` (and per fixture under
        //! `catalog/fixtures/`), each holding a `PRODUCT` static. Regenerated by `build.rs`.

        #(#mods)*

        pub mod views;

        use runtime_model::catalog::Product;

        /// The real products, in the order banking, billing, finance, dashboards, inbox.
        pub static PRODUCTS: &[&Product] = &[#(#product_refs),*];

        /// Test products (the conformance fixture), compiled only with the `fixtures` feature,
        /// which test builds enable and the `kobana-mcp` binary does not.
        #[cfg(feature = "fixtures")]
        pub static FIXTURES: &[&Product] = &[#(#fixture_refs),*];

        /// No fixtures outside test builds.
        #[cfg(not(feature = "fixtures"))]
        pub static FIXTURES: &[&Product] = &[];

        /// A product or fixture by name.
        pub fn product(name: &str) -> Option<&'static Product> {
            PRODUCTS
                .iter()
                .chain(FIXTURES.iter())
                .copied()
                .find(|p| p.name == name)
        }
    };
    print(
        file,
        &preamble("catalog/*.yaml and catalog/fixtures/*.yaml"),
        &Held::default(),
    )
}

/// Lays out `tokens` (made with `held`) with `prettyplease`, then puts the held literals back.
fn print(tokens: TokenStream, preamble: &str, held: &Held) -> String {
    // The table shapes are read directly (see `shapes`); anything else by `syn`.
    let file = match shapes::file(tokens.clone()) {
        Some(file) => Ok(file),
        None => syn::parse2::<syn::File>(tokens.clone()),
    };
    let printed = match file {
        Ok(file) => prettyplease::unparse(&file),
        // Unreachable for tokens built above; keep the raw tokens so the compiler shows the error.
        Err(_) => tokens.to_string(),
    };
    match held.restore(&printed) {
        Some(text) => format!("{preamble}{text}"),
        // A bug in `held`, never a property of a catalog: the file must not compile with
        // placeholders for data.
        None => format!(
            "{preamble}compile_error!(\"codegen: a long string literal was lost while printing this file (codegen/src/rust/held.rs)\");\n{printed}"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_macro2::Literal;

    /// A file shaped like the generated tables (structs in arrays in structs, tuples, `Some`,
    /// calls), its literals made by `lit`.
    fn sample(lit: &dyn Fn(&str) -> Literal) -> TokenStream {
        let texts: Vec<String> = vec![
            String::new(),
            "short".into(),
            "x".repeat(60),
            "y".repeat(89),
            "z\"".repeat(50),
            "w".repeat(127),
            "v".repeat(128),
            "u é\n\t\\".repeat(40),
            "{\"type\":\"object\",\"properties\":{}}".repeat(300),
        ];
        let items = texts.iter().enumerate().map(|(i, a)| {
            let b = &texts[(i + 3) % texts.len()];
            let (la, lb, lc) = (lit(a), lit(b), lit(&format!("{a}{b}")));
            quote! {
                Item {
                    name: #la,
                    pair: (#lb, #la),
                    maybe: Some(#lc),
                    list: &[#la, #lb, #lc],
                    slice: json_slice(TOOLS_JSON, #i, 10),
                    nested: &Inner { a: #lb, b: &[(#la, #lb)] },
                }
            }
        });
        let joined = lit(&texts.concat());
        quote! {
            #![allow(clippy::all)]
            pub static ITEMS: &[Item] = &[#(#items),*];
            const TOOLS_JSON: &str = #joined;
        }
    }

    /// `shapes` must build the tree `syn` parses, for every module the repository's catalogs
    /// make (and must read them all: a module it gave up on would silently cost `syn`'s time).
    #[test]
    fn shapes_read_what_syn_reads() {
        let catalog_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../catalog");
        let loaded = crate::load_all(&catalog_dir).expect("the repository's catalogs are valid");
        assert!(loaded.len() >= 5, "every product and fixture");
        for l in &loaded {
            let listings = descriptors::Listings::default();
            let (tokens, _) = product_tokens(&l.catalog, &l.localized, "x", &listings);
            let fast = shapes::file(tokens.clone()).expect("shapes reads every product module");
            let slow: syn::File = syn::parse2(tokens).expect("syn reads it");
            assert!(
                prettyplease::unparse(&fast) == prettyplease::unparse(&slow),
                "{}: shapes and syn print differently",
                l.source.display
            );
            // The same trees, token for token (not only the same printed text).
            assert!(
                quote!(#fast).to_string() == quote!(#slow).to_string(),
                "{}: shapes and syn read different trees",
                l.source.display
            );
        }
        // Shapes it does not read are left to syn: a method call, a unary minus, a macro.
        for tokens in [
            quote!(
                static A: &[u8] = &[a.b()];
            ),
            quote!(
                static A: i8 = -1;
            ),
            quote!(
                static A: Vec<u8> = vec![];
            ),
            quote!(
                pub fn f() {}
            ),
        ] {
            assert!(shapes::file(tokens).is_none());
        }
        // The sample file of held literals, in both pipelines.
        let sample = sample(&|s| Literal::string(s));
        let fast = shapes::file(sample.clone()).expect("shapes reads the sample");
        let slow: syn::File = syn::parse2(sample).expect("syn reads it");
        assert!(prettyplease::unparse(&fast) == prettyplease::unparse(&slow));
    }

    #[test]
    fn held_literals_print_exactly_as_the_plain_pipeline() {
        let plain = print(sample(&|s| Literal::string(s)), "", &Held::default());
        let held = Held::default();
        let fast = print(sample(&|s| held.lit(s)), "", &held);
        assert!(
            fast == plain,
            "held literals changed the printed file:\n{fast}\n---\n{plain}"
        );
        assert!(!fast.contains("codegen-held-literal"));
    }
}
