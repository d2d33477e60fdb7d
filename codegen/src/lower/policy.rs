//! The product policy: the catalog's `policies:` lowered once into the runtime's [`Policy`], which
//! the Rust emitter prints as a literal ([`tokens`]), the docs describe row by row ([`rows`]), and
//! the docs' error table is filtered with (`ErrorEntry::applies_to`, as the runtime does).

use proc_macro2::{Literal, TokenStream};
use quote::quote;
use runtime_model::catalog::{
    ConfirmationBinding, Policy, ReplayPolicy, ResourcesListPolicy, UnconfirmableDestructive,
};
use serde_json::{json, Value};

use crate::model::{self, BindField};
use crate::validate::grammar::DECLINE_CODES;

/// The runtime's policy of a validated catalog (validation has checked the decline code is one of
/// [`DECLINE_CODES`]; the runtime's table holds that constant).
pub fn lower(p: &model::Policies) -> Policy {
    Policy {
        unconfirmable_destructive: match p.unconfirmable_destructive {
            model::UnconfirmableDestructive::Run => UnconfirmableDestructive::Run,
            model::UnconfirmableDestructive::Refuse => UnconfirmableDestructive::Refuse,
        },
        decline_code: DECLINE_CODES
            .iter()
            .copied()
            .find(|c| *c == p.decline_code)
            .unwrap_or(DECLINE_CODES[0]),
        replay: match p.replay {
            model::ReplayPolicy::AskAgain => ReplayPolicy::AskAgain,
            model::ReplayPolicy::Refuse => ReplayPolicy::Refuse,
        },
        confirmation_binds: ConfirmationBinding {
            person: p.confirmation_binds.contains(&BindField::Person),
            organization: p.confirmation_binds.contains(&BindField::Organization),
            workspace: p.confirmation_binds.contains(&BindField::Workspace),
        },
        confirmation_ttl_secs: p.confirmation_ttl_seconds,
        resources_list: match p.resources_list {
            model::ResourcesList::Fixed => ResourcesListPolicy::FixedOnly,
            model::ResourcesList::Recent(n) => ResourcesListPolicy::Recent(n),
        },
        workspaced: p.workspaced,
    }
}

/// The `Policy { … }` literal of the generated tables.
pub fn tokens(p: &Policy) -> TokenStream {
    let unconfirmable = match p.unconfirmable_destructive {
        UnconfirmableDestructive::Run => quote!(UnconfirmableDestructive::Run),
        UnconfirmableDestructive::Refuse => quote!(UnconfirmableDestructive::Refuse),
    };
    let replay = match p.replay {
        ReplayPolicy::AskAgain => quote!(ReplayPolicy::AskAgain),
        ReplayPolicy::Refuse => quote!(ReplayPolicy::Refuse),
    };
    let ConfirmationBinding {
        person,
        organization,
        workspace,
    } = p.confirmation_binds;
    let decline = p.decline_code;
    let ttl = Literal::u64_unsuffixed(p.confirmation_ttl_secs);
    let list = match p.resources_list {
        ResourcesListPolicy::FixedOnly => quote!(ResourcesListPolicy::FixedOnly),
        ResourcesListPolicy::Recent(n) => {
            let n = Literal::u64_unsuffixed(n.into());
            quote!(ResourcesListPolicy::Recent(#n))
        }
    };
    let workspaced = p.workspaced;
    quote! {
        Policy {
            unconfirmable_destructive: #unconfirmable,
            decline_code: #decline,
            replay: #replay,
            confirmation_binds: ConfirmationBinding {
                person: #person,
                organization: #organization,
                workspace: #workspace,
            },
            confirmation_ttl_secs: #ttl,
            resources_list: #list,
            workspaced: #workspaced,
        }
    }
}

/// The rows of the docs' policies table: name, value, meaning.
pub fn rows(p: &Policy) -> Vec<Value> {
    let b = p.confirmation_binds;
    let binds = [
        (b.person, "person"),
        (b.organization, "organization"),
        (b.workspace, "workspace"),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .map(|(_, name)| *name)
    .collect::<Vec<_>>()
    .join(", ");
    let (unconf, unconf_meaning) = match p.unconfirmable_destructive {
        UnconfirmableDestructive::Run => ("run", "A destructive tool called by a client that cannot confirm (2025-era, or without form elicitation) runs directly; the client confirms on `destructiveHint`."),
        UnconfirmableDestructive::Refuse => ("refuse", "A destructive tool called by a client that cannot confirm is refused with `confirmation_required`; nothing runs."),
    };
    let (replay, replay_meaning) = match p.replay {
        ReplayPolicy::AskAgain => ("ask_again", "A confirmation used twice is asked again, with a notice that the action may already have run."),
        ReplayPolicy::Refuse => ("refuse", "A confirmation used twice is refused with `confirmation_replayed`; nothing runs."),
    };
    let (list, list_meaning) = match p.resources_list {
        ResourcesListPolicy::FixedOnly => ("fixed".to_string(), "`resources/list` gives the fixed URIs only.".to_string()),
        ResourcesListPolicy::Recent(n) => (
            format!("recent: {n}"),
            format!("`resources/list` gives the fixed URIs plus the {n} most recent records of each listed type the caller can read, every type listed at once. A type whose listing fails or times out is left out alone: the answer holds the other types' records, names the missing ones in `_meta[\"br.com.kobana/incomplete\"]` (with a note; their records stay readable by URI) and is not cached. Only when every listing fails is the answer an error."),
        ),
    };
    vec![
        json!({"name": "Destructive tool, client cannot confirm", "value": unconf, "meaning": unconf_meaning}),
        json!({"name": "Decline code", "value": format!("`{}`", p.decline_code), "meaning": "The error code of a declined confirmation."}),
        json!({"name": "Replayed confirmation", "value": replay, "meaning": replay_meaning}),
        json!({"name": "Confirmation bound to", "value": binds, "meaning": "A confirmation is valid only for the same identity fields."}),
        json!({"name": "Confirmation lifetime", "value": format!("{} s", p.confirmation_ttl_secs), "meaning": "After this, the confirmation must be given again."}),
        json!({"name": "`resources/list`", "value": list, "meaning": list_meaning}),
        json!({"name": "Workspaced", "value": if p.workspaced { "yes" } else { "no" }, "meaning": if p.workspaced { "Records live in a workspace; reads use the connection's default workspace." } else { "Records belong to the organization." }}),
    ]
}

/// The application errors the policy can produce, as the docs list them (code, message, when).
pub fn error_rows(p: &Policy) -> Vec<Value> {
    use runtime_model::errors::{ErrorScope, ALL};
    ALL.iter()
        .filter(|e| e.applies_to(p))
        .map(|e| {
            let code = if e.scope == ErrorScope::Decline {
                p.decline_code
            } else {
                e.code
            };
            json!({"code": code, "message": e.message, "when": e.when})
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policies(yaml: &str) -> model::Policies {
        serde_yaml::with::singleton_map_recursive::deserialize(
            serde_yaml::from_str::<serde_yaml::Value>(yaml).unwrap(),
        )
        .unwrap()
    }

    #[test]
    fn one_lowering_feeds_the_literal_the_rows_and_the_error_table() {
        let p = lower(&policies(
            "{unconfirmable_destructive: refuse, decline_code: USER_DECLINED, replay: refuse,
              confirmation_binds: [workspace, person], resources_list: {recent: 5}, workspaced: true}",
        ));
        assert_eq!(p.decline_code, "USER_DECLINED");
        assert_eq!(p.confirmation_ttl_secs, 300, "the catalog's default");
        assert_eq!(p.resources_list, ResourcesListPolicy::Recent(5));
        let literal = tokens(&p).to_string();
        assert!(
            literal.contains("UnconfirmableDestructive :: Refuse"),
            "{literal}"
        );
        assert!(literal.contains("\"USER_DECLINED\""), "{literal}");
        assert!(
            literal.contains("ResourcesListPolicy :: Recent (5)"),
            "{literal}"
        );
        let rows = rows(&p);
        let value = |name: &str| {
            rows.iter()
                .find(|r| r["name"] == name)
                .map(|r| r["value"].clone())
                .unwrap()
        };
        assert_eq!(value("Confirmation bound to"), "person, workspace");
        assert_eq!(value("`resources/list`"), "recent: 5");
        let codes: Vec<Value> = error_rows(&p).iter().map(|r| r["code"].clone()).collect();
        assert!(codes.contains(&json!("USER_DECLINED")), "{codes:?}");
        assert!(codes.contains(&json!("confirmation_replayed")), "{codes:?}");
    }
}
