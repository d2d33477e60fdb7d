//! The not-found answer of a record type addressed by its owner's uid while carrying a `uid` of
//! its own (`runtime_model::catalog::OwnerKey`, derived by the generator): a mailbox channel is
//! read by its mailbox entry's uid, and a caller who tries the channel's own `uid` (the one its
//! record shows) is told which uid the address takes and where to find it, in the request's
//! locale. When the backend holds the records (the sandbox), it finds the record whose own uid
//! was given and the answer names the right address; against the Kobana API nothing is scanned,
//! and the answer says how to find it. Used by *resources/read* and by the type's tools (their
//! failed call and the confirmation gate's refusal), so every way of reaching the record says
//! the same.

use runtime_model::catalog::{Operation, Tool};
use runtime_model::texts::Text;
use serde_json::{Map, Value};

use super::engine::Engine;
use crate::contract::Call;

/// Where the not-found answer goes: what the hint tells the caller to do instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Asked {
    /// A *resources/read* of the template `tool` reads: the hint names the URI to read.
    Resource,
    /// A *tools/call*: the hint names the argument value to call the tool with.
    Tool,
}

/// The record type and id argument a tool addresses one record by.
fn addressed(tool: &Tool) -> Option<(&'static str, &'static str)> {
    match tool.operation {
        Operation::Get { record, id_arg }
        | Operation::Update { record, id_arg }
        | Operation::Delete { record, id_arg } => Some((record, id_arg)),
        Operation::Action { record, id_arg, .. } if !id_arg.is_empty() => Some((record, id_arg)),
        _ => None,
    }
}

impl Engine {
    /// The hint of a not-found answer to `tool` called with `args`, in the request's locale, when
    /// the tool addresses a record type keyed by its owner's uid; `None` for any other tool.
    pub(crate) async fn owner_key_hint(
        &self,
        call: &Call,
        tool: &'static Tool,
        args: &Map<String, Value>,
        asked: Asked,
    ) -> Option<String> {
        let (record, id_arg) = addressed(tool)?;
        let key = self.product.record(record)?.keyed_by_owner?;
        let given = args.get(id_arg).and_then(Value::as_str)?;
        let locale = self.locale(call);
        let title = |r: &str| crate::confirm::form::record_title(self.product, r, locale);
        let (record_title, owner_title) = (title(record), title(key.owner));
        let ctx = self.call_context(call, args);
        let found = self
            .backend
            .address_of_own_uid(&ctx, tool, args, given)
            .await;
        let general = || {
            Text::HintOwnerKey.fill(
                locale,
                &[
                    ("record", &record_title as &dyn std::fmt::Display),
                    ("owner", &owner_title),
                    ("id_arg", &id_arg),
                    ("list_tool", &key.owner_list_tool),
                ],
            )
        };
        let Some(address) = found else {
            return Some(general());
        };
        let named: [(&str, &dyn std::fmt::Display); 4] = [
            ("given", &given),
            ("record", &record_title),
            ("owner", &owner_title),
            ("key", &address),
        ];
        Some(match asked {
            Asked::Resource => {
                let mut at = args.clone();
                at.insert(id_arg.into(), Value::String(address.clone()));
                match self.product.resource_uri_of(tool, &at) {
                    Some(uri) => {
                        let mut all = named.to_vec();
                        all.push(("uri", &uri));
                        Text::HintOwnerKeyFoundUri.fill(locale, &all)
                    }
                    None => general(),
                }
            }
            Asked::Tool => {
                let mut all = named.to_vec();
                all.push(("tool", &tool.name));
                all.push(("id_arg", &id_arg));
                Text::HintOwnerKeyFoundTool.fill(locale, &all)
            }
        })
    }
}
