//! Record types addressed by another record's uid while carrying a `uid` of their own: a mailbox
//! channel is read by its mailbox entry's uid (`GET /v2/mailbox/entries/{entry_id}/email`), yet
//! its record shows a `uid` that no address takes. The rule is derived here, once, from the
//! record type alone (its `id_field` is not `uid`, and it has a `uid` field); the validator
//! refuses such a type whose owner cannot be named (the id field is not seeded `ref:<record>`, or
//! no tool lists the owner's records), and the Rust emitter gives the runtime the result
//! (`runtime_model::catalog::OwnerKey`), which words the not-found answers of the type's
//! templates and tools.

use crate::model::{Catalog, OperationKind, RecordType};

/// The field a record's own uid is in.
pub const OWN_UID_FIELD: &str = "uid";

/// Which record's uid addresses a record type, and where the caller finds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnerKey {
    /// The record's own uid field ([`OWN_UID_FIELD`]).
    pub own_uid_field: &'static str,
    /// The record type the id field refers to.
    pub owner: String,
    /// The tool listing the owner's records.
    pub owner_list_tool: String,
}

/// `Ok(None)` for a type addressed by its own uid, or with no uid of its own; `Err` (why) when it
/// is addressed by another field while having a uid, and its owner cannot be named.
pub fn derive(c: &Catalog, r: &RecordType) -> Result<Option<OwnerKey>, String> {
    if r.id_field == OWN_UID_FIELD || !r.fields.contains_key(OWN_UID_FIELD) {
        return Ok(None);
    }
    let seed = r
        .fields
        .get(&r.id_field)
        .map(|f| f.seed.as_str())
        .unwrap_or_default();
    let Some(owner) = seed.strip_prefix("ref:") else {
        return Err(format!(
            "the record is addressed by `{}` but carries a `{OWN_UID_FIELD}` of its own, and `{}` is not seeded `ref:<record>`, so no answer can say whose uid the address takes",
            r.id_field, r.id_field
        ));
    };
    let list = c.tools.iter().find(|t| {
        t.operation
            .as_ref()
            .is_some_and(|o| o.kind == OperationKind::List && o.record.as_deref() == Some(owner))
    });
    match list {
        Some(t) => Ok(Some(OwnerKey {
            own_uid_field: OWN_UID_FIELD,
            owner: owner.to_string(),
            owner_list_tool: t.name.clone(),
        })),
        None => Err(format!(
            "the record is addressed by the uid of a `{owner}` record but carries a `{OWN_UID_FIELD}` of its own, and no tool lists `{owner}` records, so no answer can say where to find the right uid"
        )),
    }
}
