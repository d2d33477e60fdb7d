//! Tool names, actions and scope guesses from an operation's method and path, by the rule of
//! `../shared/research/kobana-api.md` §3: `banking_<family>_<singular resource>_<action>`.
//!
//! The Kobana specs have no `operationId`, so names come from paths. The rule is mechanical and
//! names new operations the way the catalog already does; the importer marks every guess for review.

/// What an operation does to its resource, as the name's last part says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    List,
    Get,
    Create,
    Update,
    Delete,
    /// A verb segment after the record key, e.g. `cancel`, `send_email`.
    Verb(String),
}

impl Action {
    pub fn as_str(&self) -> &str {
        match self {
            Action::List => "list",
            Action::Get => "get",
            Action::Create => "create",
            Action::Update => "update",
            Action::Delete => "delete",
            Action::Verb(v) => v,
        }
    }
}

/// The parts a tool name is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Naming {
    pub family: String,
    /// Singular, `_`-joined, e.g. `automatic_pix_recurrence`.
    pub resource: String,
    pub action: Action,
    /// Guessed OAuth resource scope, e.g. `charge.bank_billets`.
    pub scope: String,
}

impl Naming {
    pub fn tool_name(&self, prefix: &str) -> String {
        format!(
            "{prefix}{}_{}_{}",
            self.family,
            self.resource,
            self.action.as_str()
        )
    }
}

/// The family of a v1 top-level collection (v1 paths carry no family segment).
const V1_FAMILIES: &[(&str, &str, &str)] = &[
    (
        "bank_billet_accounts",
        "charge",
        "charge.bank_billet_accounts",
    ),
    ("bank_billets", "charge", "charge.bank_billets"),
    ("bank_billet_batches", "charge", "charge.bank_billets"),
    ("bank_billet_batch_exports", "charge", "charge.bank_billets"),
    ("bank_billet_reports", "charge", "system.reports"),
    (
        "bank_billet_payments",
        "charge",
        "charge.bank_billet_payments",
    ),
    (
        "bank_billet_registrations",
        "charge",
        "charge.bank_billet_registrations",
    ),
    (
        "bank_billet_remittances",
        "charge",
        "integration.remittances",
    ),
    ("bank_billet_discharges", "charge", "integration.discharges"),
    ("discharges", "charge", "integration.discharges"),
    ("remittances", "charge", "integration.remittances"),
    (
        "customer_subscriptions",
        "charge",
        "charge.customer_subscriptions",
    ),
    ("installments", "charge", "charge.installments"),
    ("customers", "data", "crm.customers"),
    ("events", "data", "system.events"),
    ("imports", "data", "system.imports"),
    ("email_deliveries", "data", "automation.email_deliveries"),
    ("sms_deliveries", "data", "automation.sms_deliveries"),
    (
        "webhook_deliveries",
        "data",
        "automation.webhook_deliveries",
    ),
    ("webhooks", "data", "automation.webhooks"),
    ("userinfo", "admin", "login"),
];

/// v2 first segments that are families, and top-level collections that belong to one.
const V2_FAMILIES: &[&str] = &[
    "charge",
    "payment",
    "transfer",
    "financial",
    "data",
    "admin",
    "edi",
    "mailbox",
];
const V2_TOP: &[(&str, &str)] = &[
    ("payments", "payment"),
    ("transfers", "transfer"),
    ("security", "admin"),
    ("me", "admin"),
];

/// Mailbox channel segments: addressed by the entry, named `channels_<kind>`.
const CHANNELS: &[&str] = &["email", "s3", "sftp", "syncthing", "whatsapp"];

/// Singular of an English plural as the API spells it (`utilities` → `utility`,
/// `batches` → `batch`, `pix` stays `pix`).
pub fn singular(word: &str) -> String {
    if let Some(stem) = word.strip_suffix("ies") {
        return format!("{stem}y");
    }
    for suffix in ["ches", "shes", "xes", "sses"] {
        if word.ends_with(suffix) {
            return word[..word.len() - 2].to_string();
        }
    }
    if word.ends_with('s') && !word.ends_with("ss") && word.len() > 1 {
        return word[..word.len() - 1].to_string();
    }
    word.to_string()
}

/// A segment reads as a collection (plural noun, or a known uncountable one).
fn is_collection(word: &str) -> bool {
    (word.ends_with('s') && !word.ends_with("ss")) || matches!(word, "pix" | "ted" | "internal")
}

fn is_param(seg: &str) -> bool {
    seg.starts_with('{') && seg.ends_with('}')
}

/// Names an operation. `None` for paths outside `/v1` and `/v2`.
pub fn name_operation(method: &str, path: &str) -> Option<Naming> {
    let method = method.to_ascii_uppercase();
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let (version, rest) = segs.split_first()?;
    let (family, scope_base, mut rest): (String, String, Vec<&str>) = match *version {
        "v1" => {
            let first = rest.first()?;
            let (_, fam, scope) = V1_FAMILIES
                .iter()
                .find(|(seg, _, _)| seg == first)
                .copied()
                .unwrap_or((first, "data", ""));
            let scope = if scope.is_empty() {
                format!("{fam}.{first}")
            } else {
                scope.to_string()
            };
            (fam.to_string(), scope, rest.to_vec())
        }
        "v2" => {
            let first = *rest.first()?;
            if V2_FAMILIES.contains(&first) {
                let tail = rest[1..].to_vec();
                let statics: Vec<&str> = tail.iter().copied().filter(|s| !is_param(s)).collect();
                let scope = match statics.first() {
                    Some(s) => format!("{first}.{s}"),
                    None => first.to_string(),
                };
                (first.to_string(), scope, tail)
            } else {
                let fam = V2_TOP
                    .iter()
                    .find(|(seg, _)| *seg == first)
                    .map(|(_, f)| *f)
                    .unwrap_or("admin");
                (fam.to_string(), format!("{fam}.{first}"), rest.to_vec())
            }
        }
        _ => return None,
    };
    if rest.is_empty() {
        return None;
    }
    // Mailbox channels: `/entries/{entry_id}/<channel>[/<verb>]` is the channel resource.
    if family == "mailbox" {
        if let Some(pos) = rest.iter().position(|s| CHANNELS.contains(s)) {
            let channel = rest[pos];
            let verb = rest.get(pos + 1).copied();
            let action = match (verb, method.as_str()) {
                (Some(v), _) => Action::Verb(v.to_string()),
                (None, "GET") => Action::Get,
                (None, "POST") => Action::Create,
                (None, "DELETE") => Action::Delete,
                (None, _) => Action::Update,
            };
            return Some(Naming {
                family,
                resource: format!("channels_{channel}"),
                action,
                scope: "mailbox.entries".into(),
            });
        }
    }
    let last = *rest.last()?;
    let action;
    let n = rest.len();
    if is_param(last) && n >= 3 && !is_collection(rest[n - 2]) && is_param(rest[n - 3]) {
        // `/{id}/protest/{type}`: a verb with an argument of its own.
        action = Action::Verb(rest[n - 2].to_string());
        rest.truncate(n - 2);
    } else if is_param(last) {
        rest.pop();
        action = match method.as_str() {
            "GET" => Action::Get,
            "DELETE" => Action::Delete,
            "POST" => Action::Create,
            _ => Action::Update,
        };
    } else {
        let after_param = rest.len() >= 2 && is_param(rest[rest.len() - 2]);
        let verb_like = !is_collection(last);
        if verb_like && (after_param || rest.len() >= 2) {
            // `/{id}/cancel`, `/cancel_all`, `/customers/cnpj_cpf`
            rest.pop();
            action = Action::Verb(match (method.as_str(), after_param) {
                ("GET", false) => format!("find_by_{last}"),
                _ => last.to_string(),
            });
        } else {
            action = match method.as_str() {
                "GET" => Action::List,
                "POST" => Action::Create,
                "DELETE" => Action::Delete,
                _ => Action::Update,
            };
        }
    }
    // The resource is the static run after the last parameter still in the path (a nested
    // collection drops its parents: `accounts/{fa}/balances` → `balance`).
    let start = rest
        .iter()
        .rposition(|s| is_param(s))
        .map(|i| i + 1)
        .unwrap_or(0);
    let mut run: Vec<&str> = rest[start..]
        .iter()
        .copied()
        .filter(|s| !is_param(s))
        .collect();
    if run.is_empty() {
        // `/x/{id}/{sub_id}`-style: fall back to the last static segment.
        run = rest.iter().copied().filter(|s| !is_param(s)).collect();
        run = run.split_off(run.len().saturating_sub(1));
    }
    let resource = run
        .iter()
        .map(|s| singular(s))
        .collect::<Vec<_>>()
        .join("_");
    if resource.is_empty() {
        return None;
    }
    Some(Naming {
        family,
        resource,
        action,
        scope: scope_base,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(method: &str, path: &str) -> String {
        name_operation(method, path).unwrap().tool_name("banking_")
    }

    /// Names from the research file's §3 table, which the catalog uses.
    #[test]
    fn names_follow_the_research_rule() {
        let cases = [
            ("GET", "/v1/bank_billets/{id}", "banking_charge_bank_billet_get"),
            ("GET", "/v1/bank_billets", "banking_charge_bank_billet_list"),
            ("POST", "/v1/bank_billets", "banking_charge_bank_billet_create"),
            ("PUT", "/v1/bank_billets/{id}/cancel", "banking_charge_bank_billet_cancel"),
            ("POST", "/v1/bank_billets/{id}/send_email", "banking_charge_bank_billet_send_email"),
            ("POST", "/v1/bank_billets/cancel_all", "banking_charge_bank_billet_cancel_all"),
            ("GET", "/v1/customers/cnpj_cpf", "banking_data_customer_find_by_cnpj_cpf"),
            ("GET", "/v2/charge/automatic_pix/recurrences/{uid}", "banking_charge_automatic_pix_recurrence_get"),
            ("PUT", "/v2/payment/pix/{uid}/cancel", "banking_payment_pix_cancel"),
            ("GET", "/v2/payments/{uid}", "banking_payment_payment_get"),
            ("POST", "/v2/transfers", "banking_transfer_transfer_create"),
            ("GET", "/v2/payment/utilities", "banking_payment_utility_list"),
            ("POST", "/v2/payment/tax_batches", "banking_payment_tax_batch_create"),
            ("GET", "/v2/financial/accounts/{financial_account_uid}/balances/{balance_uid}", "banking_financial_balance_get"),
            ("GET", "/v2/financial/accounts/{financial_account_uid}/statement_transactions/imports/{uid}", "banking_financial_statement_transaction_import_get"),
            ("GET", "/v2/mailbox/entries/{entry_id}/email", "banking_mailbox_channels_email_get"),
            ("PUT", "/v2/mailbox/entries/{entry_id}/s3/activate", "banking_mailbox_channels_s3_activate"),
            ("POST", "/v2/mailbox/entries/{entry_uid}/files", "banking_mailbox_file_create"),
            ("GET", "/v2/edi/edi_boxes/{uid}", "banking_edi_edi_box_get"),
            ("DELETE", "/v2/charge/pix/{uid}", "banking_charge_pix_delete"),
            ("PUT", "/v1/bank_billets/{id}/protest/{type}", "banking_charge_bank_billet_protest"),
        ];
        for (m, p, want) in cases {
            assert_eq!(name(m, p), want, "{m} {p}");
        }
    }

    #[test]
    fn scopes_are_guessed_from_the_family_table() {
        let s = |m, p| name_operation(m, p).unwrap().scope;
        assert_eq!(s("GET", "/v1/bank_billets"), "charge.bank_billets");
        assert_eq!(s("GET", "/v1/customers/{id}"), "crm.customers");
        assert_eq!(s("GET", "/v2/charge/pix"), "charge.pix");
        assert_eq!(s("GET", "/v2/payments"), "payment.payments");
        assert_eq!(s("PUT", "/v2/mailbox/entries/{e}/sftp"), "mailbox.entries");
    }

    #[test]
    fn singulars() {
        assert_eq!(singular("utilities"), "utility");
        assert_eq!(singular("batches"), "batch");
        assert_eq!(singular("taxes"), "tax");
        assert_eq!(singular("edi_boxes"), "edi_box");
        assert_eq!(singular("pix"), "pix");
        assert_eq!(singular("address"), "address");
    }

    #[test]
    fn paths_outside_the_versions_have_no_name() {
        assert!(name_operation("GET", "/health").is_none());
        assert!(name_operation("GET", "/v1").is_none());
    }
}
