//! Rust output: one module per catalog building a `runtime_model::catalog::Product`, and the
//! crate root listing them.
//!
//! Code is built as tokens with `quote` and printed with `prettyplease`, so it is always valid
//! syntax and its layout does not depend on string formatting here. Everything is `&'static`
//! data: the runtime never parses a catalog.

pub mod held;
pub mod pieces;
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

/// [`opt_str`] for a text that may be long (see [`Held`]).
fn opt_text(held: &Held, v: &Option<String>) -> TokenStream {
    match v {
        Some(s) => {
            let s = held.lit(s);
            quote!(Some(#s))
        }
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

/// `consts` names the constants holding the tool's `tools/list` object and schemas.
fn tool(t: &Tool, consts: &ToolConsts, held: &Held) -> TokenStream {
    let a = resolve_annotations(t);
    let (ro, de, id, ow) = (a.read_only, a.destructive, a.idempotent, a.open_world);
    let name = &t.name;
    let title = &t.title;
    let description = held.lit(&t.description);
    let (descriptor, input) = (&consts.descriptor, &consts.input);
    let output = match &consts.output {
        Some(o) => quote!(Some(#o)),
        None => quote!(None),
    };
    let clause = opt_text(held, &t.destructive_clause);
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

/// `(argument, label)` of a tool's arguments, from their descriptions: each top-level one, and
/// each property of an object argument (or of a list's objects) as `parent.property` (a Pix
/// transfer's `beneficiary.name`), so a question writes an object's parts by their labels.
fn labels(t: &Tool) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Some(props) = t
        .input_schema
        .get("properties")
        .and_then(|p| p.as_mapping())
    {
        labels_of(props, "", &mut out);
    }
    out
}

fn labels_of(props: &serde_yaml::Mapping, prefix: &str, out: &mut Vec<(String, String)>) {
    for (k, v) in props {
        let Some(name) = k.as_str() else { continue };
        let desc = v.get("description").and_then(|d| d.as_str()).unwrap_or("");
        let path = format!("{prefix}{name}");
        out.push((path.clone(), crate::texts::label(name, desc)));
        let nested = v
            .get("properties")
            .or_else(|| v.get("items").and_then(|i| i.get("properties")))
            .and_then(|n| n.as_mapping());
        if let Some(nested) = nested {
            labels_of(nested, &format!("{path}."), out);
        }
    }
}

/// The tag of `locale` in the names of its constants (`PT_BR`).
fn locale_tag(locale: runtime_model::locale::Locale) -> String {
    locale.tag().replace('-', "_").to_uppercase()
}

/// The `LocaleTexts` of one locale, and its static of tool texts; `descriptors` names the
/// constant holding each tool's `tools/list` object in this locale, in listing order.
fn locale_texts(
    lc: &crate::texts::Localized,
    descriptors: &[proc_macro2::Ident],
    held: &Held,
) -> (TokenStream, TokenStream) {
    let c = &lc.catalog;
    // Each locale's tools in a static of their own, as the product's are.
    let tools_name = format_ident!("TOOL_TEXTS_{}", locale_tag(lc.locale));
    let tools = descriptors::sorted_tools(c)
        .into_iter()
        .zip(descriptors)
        .map(|(t, descriptor)| {
            let (title, description) = (&t.title, held.lit(&t.description));
            let clause = opt_text(held, &t.destructive_clause);
            let labels = labels(t);
            let labels = labels.iter().map(|(a, b)| quote!((#a, #b)));
            quote! {
                ToolTexts {
                    title: #title,
                    description: #description,
                    destructive_clause: #clause,
                    descriptor_json: #descriptor,
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
            tools: #tools_name,
            resources: &[#(#resources),*],
            templates: &[#(#templates),*],
            prompts: &[#(#prompts),*],
            records: &[#(#records),*],
        }
    };
    let constant = quote! {
        static #tools_name: &[ToolTexts] = &[#(#tools),*];
    };
    (texts, constant)
}

/// The constants one tool's `Tool` refers to.
struct ToolConsts {
    descriptor: proc_macro2::Ident,
    input: proc_macro2::Ident,
    output: Option<proc_macro2::Ident>,
}

/// Each tool's texts as constants of their own, grouped by tool in listing order: its
/// `tools/list` object `tool_<name>`, the locales' versions that differ from it,
/// `tool_<name>_PT_BR` and so on, and its schemas, `tool_<name>_INPUT` and `tool_<name>_OUTPUT`
/// (tool names are lower case, so a suffix never meets another tool's name). A change to one tool
/// changes only its constants; a locale that says what the catalog says shares the catalog's
/// constant, and an output schema several tools share (a record's envelope, derived from the API
/// description) is the first one's. Input schemas are the catalog's own per tool and not shared:
/// an edit to one would otherwise move it out of a shared constant into a new one. Returns the constants, what each tool's `Tool` refers to, and by locale (in `localized`
/// order) the name each tool's `ToolTexts` refers to.
fn tool_constants<'a>(
    c: &'a Catalog,
    localized: &'a [crate::texts::Localized],
    listings: &descriptors::Listings<'a>,
    held: &Held,
) -> (
    Vec<TokenStream>,
    Vec<ToolConsts>,
    Vec<Vec<proc_macro2::Ident>>,
) {
    fn text(l: &descriptors::Listing, k: usize) -> &str {
        l.ranges.get(k).map_or("", |r| &l.json[r.clone()])
    }
    let base = listings.of(c);
    let locales: Vec<_> = localized
        .iter()
        .map(|lc| listings.of(&lc.catalog))
        .collect();
    let mut consts = Vec::new();
    let mut tools = Vec::new();
    let mut locale_names: Vec<Vec<proc_macro2::Ident>> = vec![Vec::new(); localized.len()];
    let mut outputs: std::collections::HashMap<String, proc_macro2::Ident> = Default::default();
    for (k, t) in descriptors::sorted_tools(c).into_iter().enumerate() {
        let own = text(&base, k);
        let name = format_ident!("tool_{}", t.name);
        let lit = held.lit(own);
        consts.push(quote!(const #name: &str = #lit;));
        for ((lc, listing), names) in localized.iter().zip(&locales).zip(&mut locale_names) {
            let said = text(listing, k);
            if said == own {
                names.push(name.clone());
                continue;
            }
            let local = format_ident!("tool_{}_{}", t.name, locale_tag(lc.locale));
            let lit = held.lit(said);
            consts.push(quote!(const #local: &str = #lit;));
            names.push(local);
        }
        let input = format_ident!("tool_{}_INPUT", t.name);
        let lit = held.lit(&json_str(&descriptors::yaml_to_json(&t.input_schema)));
        consts.push(quote!(const #input: &str = #lit;));
        let output = t.output_schema.as_ref().map(|o| {
            let json = json_str(&descriptors::yaml_to_json(o));
            if let Some(shared) = outputs.get(&json) {
                return shared.clone();
            }
            let id = format_ident!("tool_{}_OUTPUT", t.name);
            let lit = held.lit(&json);
            consts.push(quote!(const #id: &str = #lit;));
            outputs.insert(json, id.clone());
            id
        });
        tools.push(ToolConsts {
            descriptor: name,
            input,
            output,
        });
    }
    (consts, tools, locale_names)
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
    let (uri_prefix, tool_prefix) = (&info.uri_prefix, &info.tool_prefix);
    // Long literals skip the token pipeline (see `held`); made in the order they are printed.
    let held = Held::default();
    let (api, instructions) = (&info.api_base_url, held.lit(&info.instructions));
    let naming = held.lit(&info.naming);
    let published_api = info.published_api();
    let policy = lower::policy::tokens(&lower::policy::lower(&c.policies));
    let sorted = descriptors::sorted_tools(c);
    let (tool_consts, tool_names, locale_names) = tool_constants(c, localized, listings, &held);
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
        .zip(&tool_names)
        .map(|(t, names)| tool(t, names, &held));
    let (locale_texts, locale_consts): (Vec<TokenStream>, Vec<TokenStream>) = localized
        .iter()
        .zip(&locale_names)
        .map(|(lc, names)| locale_texts(lc, names, &held))
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
        let limitation = opt_text(&held, &t.limitation);
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
            let (aname, adesc, req) = (&a.name, held.lit(&a.description), a.required);
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
            let (ty, fdesc, sortable) = (&f.ty, held.lit(&f.description), f.sortable);
            let seed = held.lit(&f.seed);
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
        // The validator refused a type whose owner cannot be named.
        let keyed = match crate::owner_key::derive(c, r).ok().flatten() {
            Some(k) => {
                let (own, owner, list) = (k.own_uid_field, &k.owner, &k.owner_list_tool);
                quote!(Some(OwnerKey { own_uid_field: #own, owner: #owner, owner_list_tool: #list }))
            }
            None => quote!(None),
        };
        quote! {
            RecordType {
                name: #rname,
                title: #rtitle,
                description: #desc,
                id_field: #id_field,
                numeric_id: #numeric,
                seed_count: #seeds,
                fields: &[#(#fields),*],
                keyed_by_owner: #keyed,
                schema_json: #schema,
            }
        }
    });
    let exclusions = c.exclusions.iter().map(|e| {
        let (op, reason) = (&e.operation, held.lit(&e.reason));
        quote!(Exclusion { operation: #op, reason: #reason })
    });
    let toolsets = c
        .toolsets
        .iter()
        .zip(crate::toolsets::resolve(c))
        .map(|(ts, set)| {
            let (tname, ttitle, tdesc, default) =
                (&ts.name, &ts.title, held.lit(&ts.description), ts.default);
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
    let record_facts = crate::confirmation::tokens(c);
    let sandbox_only = crate::toolsets::sandbox_only(c)
        .into_iter()
        .map(|i| u16::try_from(i).unwrap_or(u16::MAX));
    let doc = format!(" The `{name}` product ({title}), compiled from `{source}`.");
    let file: TokenStream = quote! {
        #![cfg_attr(rustfmt, rustfmt::skip)]
        #![doc = #doc]
        #![allow(clippy::all, non_upper_case_globals)]

        use runtime_model::catalog::*;

        pub static PRODUCT: Product = Product {
            name: #name,
            title: #title,
            version: #version,
            uri_prefix: #uri_prefix,
            tool_prefix: #tool_prefix,
            naming: #naming,
            api_base_url: #api,
            published_api: #published_api,
            instructions: #instructions,
            policy: #policy,
            tools: TOOLS,
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
            record_facts: #record_facts,
            sandbox_only: &[#(#sandbox_only),*],
        };

        /// Sorted by name: the order of `tools/list`.
        static TOOLS: &[Tool] = &[#(#tools),*];
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
        #(#tool_consts)*
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

    /// `text`'s tokens with every `concat!(…)` of literals and every literal (raw or not) as the
    /// one plain literal of its value.
    fn plain_literals(tokens: TokenStream) -> TokenStream {
        use proc_macro2::TokenTree;
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut out = Vec::new();
        let mut i = 0;
        while i < trees.len() {
            match (&trees[i], trees.get(i + 1), trees.get(i + 2)) {
                (TokenTree::Ident(id), Some(TokenTree::Punct(bang)), Some(TokenTree::Group(g)))
                    if id == "concat" && bang.as_char() == '!' =>
                {
                    let parts: syn::punctuated::Punctuated<syn::LitStr, syn::Token![,]> =
                        syn::parse::Parser::parse2(
                            syn::punctuated::Punctuated::parse_terminated,
                            g.stream(),
                        )
                        .expect("concat! of literals");
                    let value: String = parts.iter().map(syn::LitStr::value).collect();
                    out.push(TokenTree::Literal(Literal::string(&value)));
                    i += 3;
                }
                (TokenTree::Literal(l), _, _) => {
                    let value = syn::parse_str::<syn::LitStr>(&l.to_string()).map(|s| s.value());
                    out.push(match value {
                        Ok(v) => TokenTree::Literal(Literal::string(&v)),
                        Err(_) => trees[i].clone(),
                    });
                    i += 1;
                }
                (TokenTree::Group(g), _, _) => {
                    let mut group =
                        proc_macro2::Group::new(g.delimiter(), plain_literals(g.stream()));
                    group.set_span(g.span());
                    out.push(TokenTree::Group(group));
                    i += 1;
                }
                (t, _, _) => {
                    out.push(t.clone());
                    i += 1;
                }
            }
        }
        out.into_iter().collect()
    }

    #[test]
    fn held_literals_print_what_the_plain_pipeline_prints() {
        let plain = print(sample(&|s| Literal::string(s)), "", &Held::default());
        let held = Held::default();
        let fast = print(sample(&|s| held.lit(s)), "", &held);
        assert!(!fast.contains("codegen-held-literal"));
        // The same tokens, each literal with the same value.
        let tokens = |text: &str| -> String {
            plain_literals(text.parse::<TokenStream>().expect("the printed file lexes")).to_string()
        };
        assert!(
            tokens(&fast) == tokens(&plain),
            "held literals changed the printed file:\n{fast}\n---\n{plain}"
        );
        // Laid out over lines short enough for a diff, and only where a literal was long.
        assert!(fast.lines().all(|l| l.chars().count() <= 300), "{fast}");
        assert!(fast.contains("concat!(\n"));
    }
}
