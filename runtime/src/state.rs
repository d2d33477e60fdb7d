//! Sealed `requestState` for multi round-trip requests (MRTR).
//!
//! The MCP 2026-07-28 revision lets a server hand the client an opaque `requestState` string that
//! the client echoes on its retry. The server keeps no pending state, so everything it needs to
//! trust the retry travels inside that string. Because the client (or anyone on the path) controls
//! it, the payload is authenticated with HMAC-SHA256: a state that fails verification is refused,
//! and the payload binds the originating request (method, target, canonical argument hash), the
//! principal, the input keys asked for, and a short expiry.
//!
//! Wire format: `v1.<kid>.<b64url payload>.<b64url mac>`, where the MAC covers
//! `v1.<kid>.<b64url payload>`. The first configured key signs; every configured key verifies, so a
//! key can be rotated by adding the new key first and dropping the old one after the TTL.
//!
//! Single use is *not* given by the seal (a sealed state can be replayed until it expires); the
//! confirmation ledger (`crate::confirm`) enforces it with the state's `nonce`.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// Version tag of the wire format.
const VERSION: &str = "v1";

/// Environment variable holding the sealing keys (`kid:hexkey,kid:hexkey`, first signs).
pub const STATE_KEYS_ENV: &str = "KOBANA_STATE_KEYS";

/// Shortest key accepted: HMAC-SHA256 keys below 128 bits are refused.
pub const MIN_KEY_LEN: usize = 16;

/// What a sealed `requestState` proves about the request that produced it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StateClaims {
    /// JSON-RPC method of the originating request (`tools/call`, `prompts/get`, `resources/read`).
    pub method: String,
    /// The tool name, prompt name or resource URI the request addressed.
    pub target: String,
    /// [`runtime_model::canonical::sha256_hex`] of the request's arguments.
    pub args_hash: String,
    /// Who asked: a string binding person / organization / workspace, built by the caller.
    pub principal: String,
    /// The `inputRequests` keys the server asked; the retry must answer these.
    pub input_keys: Vec<String>,
    /// Expiry, seconds since the Unix epoch.
    pub exp: u64,
    /// Random, unique per issued state: the single-use key of the confirmation ledger.
    pub nonce: String,
    /// Anything else the issuer wants back (kept small).
    #[serde(default)]
    pub data: Value,
}

/// Why a `requestState` was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StateError {
    #[error("requestState is malformed: {0}")]
    Malformed(&'static str),
    #[error("requestState uses an unsupported version")]
    UnsupportedVersion,
    #[error("requestState was sealed with an unknown key")]
    UnknownKey,
    #[error("requestState failed its integrity check")]
    BadSignature,
    #[error("requestState has expired")]
    Expired,
    #[error("invalid sealing key configuration: {0}")]
    BadKeys(String),
}

/// Seals and opens `requestState` strings with a rotating set of HMAC keys.
#[derive(Clone)]
pub struct StateSealer {
    /// `(key id, key)`; the first signs.
    keys: Vec<(String, Vec<u8>)>,
}

impl std::fmt::Debug for StateSealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print key material.
        let kids: Vec<&str> = self.keys.iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("StateSealer")
            .field("key_ids", &kids)
            .finish()
    }
}

impl StateSealer {
    /// Builds a sealer. The first key signs, all keys verify. Key ids must be non-empty, unique,
    /// and made of `[A-Za-z0-9_-]` (they appear in the wire format); keys must be at least
    /// [`MIN_KEY_LEN`] bytes.
    pub fn new(keys: Vec<(String, Vec<u8>)>) -> Result<Self, StateError> {
        if keys.is_empty() {
            return Err(StateError::BadKeys("at least one key is needed".into()));
        }
        for (i, (kid, key)) in keys.iter().enumerate() {
            if kid.is_empty()
                || !kid
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
            {
                return Err(StateError::BadKeys(format!(
                    "key id {kid:?} must be non-empty and use only letters, digits, '_' or '-'"
                )));
            }
            if key.len() < MIN_KEY_LEN {
                return Err(StateError::BadKeys(format!(
                    "key {kid:?} is {} bytes; at least {MIN_KEY_LEN} are needed",
                    key.len()
                )));
            }
            if keys[..i].iter().any(|(k, _)| k == kid) {
                return Err(StateError::BadKeys(format!("key id {kid:?} appears twice")));
            }
        }
        Ok(Self { keys })
    }

    /// A sealer with one random key, for a single process that was given no keys. States it seals
    /// do not survive a restart and are not accepted by other instances.
    pub fn ephemeral() -> Result<Self, StateError> {
        let key = random_bytes(32).map_err(|e| StateError::BadKeys(e.to_string()))?;
        Self::new(vec![("ephemeral".to_string(), key)])
    }

    /// Parses `kid:hexkey,kid:hexkey,…` (the `KOBANA_STATE_KEYS` format); the first key signs.
    pub fn from_spec(spec: &str) -> Result<Self, StateError> {
        let mut keys = Vec::new();
        for (i, part) in spec.split(',').map(str::trim).enumerate() {
            if part.is_empty() {
                continue;
            }
            let (kid, hex) = part.split_once(':').ok_or_else(|| {
                // Never echo the entry: without a `:` it may be a bare key pasted by mistake.
                StateError::BadKeys(format!(
                    "entry {} must be `kid:hexkey` (it has no `:`; {} characters)",
                    i + 1,
                    part.len()
                ))
            })?;
            let key = hex::decode(hex.trim()).map_err(|_| {
                StateError::BadKeys(format!("key {kid:?} is not valid hexadecimal"))
            })?;
            keys.push((kid.to_string(), key));
        }
        Self::new(keys)
    }

    /// The sealer `KOBANA_STATE_KEYS` configures (`kid:hexkey,…`, first signs), or `None` when
    /// unset (the caller then uses [`StateSealer::ephemeral`]). Several instances behind one load
    /// balancer must share these keys, or a question asked by one cannot be answered on another.
    pub fn from_env() -> Result<Option<Self>, StateError> {
        match std::env::var(STATE_KEYS_ENV) {
            Ok(v) if !v.trim().is_empty() => Self::from_spec(&v).map(Some),
            _ => Ok(None),
        }
    }

    /// The id of the signing key.
    pub fn signing_key_id(&self) -> &str {
        &self.keys[0].0
    }

    /// Seals claims into a `requestState` string.
    pub fn seal(&self, claims: &StateClaims) -> String {
        let (kid, key) = &self.keys[0];
        // Serializing a struct of strings, numbers and a JSON value cannot fail.
        let payload = serde_json::to_vec(claims).unwrap_or_default();
        let signed = format!("{VERSION}.{kid}.{}", URL_SAFE_NO_PAD.encode(payload));
        let tag = mac(key, signed.as_bytes()).finalize().into_bytes();
        format!("{signed}.{}", URL_SAFE_NO_PAD.encode(tag))
    }

    /// Verifies and decodes a `requestState`. Checks, in order: format, version, key id, MAC
    /// (constant time), payload shape, expiry (`exp <= now` is expired).
    pub fn open(&self, state: &str, now_unix: u64) -> Result<StateClaims, StateError> {
        let mut parts = state.split('.');
        let (Some(version), Some(kid), Some(payload_b64), Some(tag_b64), None) = (
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
        ) else {
            return Err(StateError::Malformed(
                "expected four dot-separated parts (version.kid.payload.mac)",
            ));
        };
        if version != VERSION {
            return Err(StateError::UnsupportedVersion);
        }
        let key = self
            .keys
            .iter()
            .find(|(k, _)| k == kid)
            .map(|(_, key)| key)
            .ok_or(StateError::UnknownKey)?;
        let tag = URL_SAFE_NO_PAD
            .decode(tag_b64)
            .map_err(|_| StateError::Malformed("the mac is not base64url"))?;
        let signed_len = version.len() + 1 + kid.len() + 1 + payload_b64.len();
        mac(key, &state.as_bytes()[..signed_len])
            .verify_slice(&tag)
            .map_err(|_| StateError::BadSignature)?;
        let payload = URL_SAFE_NO_PAD
            .decode(payload_b64)
            .map_err(|_| StateError::Malformed("the payload is not base64url"))?;
        let claims: StateClaims = serde_json::from_slice(&payload)
            .map_err(|_| StateError::Malformed("the payload is not a claims object"))?;
        if claims.exp <= now_unix {
            return Err(StateError::Expired);
        }
        Ok(claims)
    }
}

/// The request a `requestState` must have been sealed for: the same method, target, arguments
/// (their canonical hash) and caller. Every reader of a state checks it through
/// [`StateSealer::open_bound`], so "this state is for this request" has one definition.
#[derive(Debug, Clone, Copy)]
pub struct Binding<'a> {
    pub method: &'a str,
    pub target: &'a str,
    pub args_hash: &'a str,
    pub principal: &'a str,
    /// An input key the state must have asked for (the confirmation's), when the reader needs one.
    pub input_key: Option<&'a str>,
}

impl Binding<'_> {
    fn holds(&self, c: &StateClaims) -> bool {
        c.method == self.method
            && c.target == self.target
            && c.args_hash == self.args_hash
            && c.principal == self.principal
            && self
                .input_key
                .is_none_or(|k| c.input_keys.iter().any(|have| have == k))
    }
}

/// Why a `requestState` cannot serve a request: it does not open (tampered, sealed by a key this
/// server does not have, expired: [`StateError`]), or it opens but was sealed for another
/// request, arguments or caller. A reader answers both the same way (its own rule: the
/// confirmation gate asks again, an input round answers -32602), never trusting the answers.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    #[error(transparent)]
    Unreadable(StateError),
    #[error("requestState was issued for a different request, arguments or caller")]
    Foreign,
}

impl StateSealer {
    /// [`StateSealer::open`], then the claims checked against the request it must be bound to.
    pub fn open_bound(
        &self,
        state: &str,
        now_unix: u64,
        binding: &Binding<'_>,
    ) -> Result<StateClaims, Refused> {
        let claims = self.open(state, now_unix).map_err(Refused::Unreadable)?;
        match binding.holds(&claims) {
            true => Ok(claims),
            false => Err(Refused::Foreign),
        }
    }
}

fn mac(key: &[u8], data: &[u8]) -> HmacSha256 {
    // HMAC accepts keys of any length.
    let mut m = <HmacSha256 as Mac>::new_from_slice(key).unwrap_or_else(|_| unreachable!());
    m.update(data);
    m
}

/// `n` bytes from the operating system's random source.
pub fn random_bytes(n: usize) -> Result<Vec<u8>, getrandom::Error> {
    let mut buf = vec![0u8; n];
    getrandom::fill(&mut buf)?;
    Ok(buf)
}

/// A fresh random nonce (128 bits, base64url).
pub fn new_nonce() -> Result<String, getrandom::Error> {
    Ok(URL_SAFE_NO_PAD.encode(random_bytes(16)?))
}

#[cfg(test)]
mod tests {

    /// A state opens for the request it was sealed for, and for no other: each bound field
    /// changed on its own is foreign; a tampered or expired one is unreadable.
    #[test]
    fn a_state_opens_only_for_the_request_it_was_bound_to() {
        let s = StateSealer::new(vec![("k1".into(), vec![3u8; 32])]).unwrap();
        let claims = StateClaims {
            method: "tools/call".into(),
            target: "t".into(),
            args_hash: "h".into(),
            principal: "p".into(),
            input_keys: vec!["confirm".into()],
            exp: 100,
            nonce: "n".into(),
            data: serde_json::Value::Null,
        };
        let state = s.seal(&claims);
        let b = Binding {
            method: "tools/call",
            target: "t",
            args_hash: "h",
            principal: "p",
            input_key: Some("confirm"),
        };
        assert_eq!(s.open_bound(&state, 10, &b).unwrap().nonce, "n");
        for other in [
            Binding {
                method: "prompts/get",
                ..b
            },
            Binding { target: "u", ..b },
            Binding {
                args_hash: "g",
                ..b
            },
            Binding {
                principal: "q",
                ..b
            },
            Binding {
                input_key: Some("other"),
                ..b
            },
        ] {
            assert_eq!(
                s.open_bound(&state, 10, &other).unwrap_err(),
                Refused::Foreign
            );
        }
        assert!(s
            .open_bound(
                &state,
                10,
                &Binding {
                    input_key: None,
                    ..b
                }
            )
            .is_ok());
        assert_eq!(
            s.open_bound(&state, 100, &b).unwrap_err(),
            Refused::Unreadable(StateError::Expired)
        );
        let tampered = format!("{state}x");
        assert!(matches!(
            s.open_bound(&tampered, 10, &b).unwrap_err(),
            Refused::Unreadable(_)
        ));
    }
    use super::*;
    use serde_json::json;

    fn claims(exp: u64) -> StateClaims {
        StateClaims {
            method: "tools/call".into(),
            target: "billing_charge_delete".into(),
            args_hash: runtime_model::canonical::sha256_hex(&json!({"uid": "abc"})),
            principal: "p1|org1|".into(),
            input_keys: vec!["confirm".into()],
            exp,
            nonce: "n-1".into(),
            data: json!({"k": 1}),
        }
    }

    fn sealer(kid: &str, byte: u8) -> StateSealer {
        StateSealer::new(vec![(kid.into(), vec![byte; 32])]).unwrap()
    }

    #[test]
    fn round_trip() {
        let s = sealer("k1", 7);
        let sealed = s.seal(&claims(1_000));
        assert!(sealed.starts_with("v1.k1."));
        assert_eq!(s.open(&sealed, 999).unwrap(), claims(1_000));
    }

    #[test]
    fn expiry_is_checked() {
        let s = sealer("k1", 7);
        let sealed = s.seal(&claims(1_000));
        assert_eq!(s.open(&sealed, 1_000), Err(StateError::Expired));
        assert_eq!(s.open(&sealed, 5_000), Err(StateError::Expired));
    }

    #[test]
    fn tampering_any_part_is_refused() {
        let s = sealer("k1", 7);
        let sealed = s.seal(&claims(1_000));
        let parts: Vec<&str> = sealed.split('.').collect();
        // Version.
        let v = format!("v2.{}.{}.{}", parts[1], parts[2], parts[3]);
        assert_eq!(s.open(&v, 0), Err(StateError::UnsupportedVersion));
        // Key id.
        let k = format!("v1.k2.{}.{}", parts[2], parts[3]);
        assert_eq!(s.open(&k, 0), Err(StateError::UnknownKey));
        // Payload: a re-encoded payload with another principal, old MAC.
        let mut c = claims(1_000);
        c.principal = "attacker|org1|".into();
        let forged_payload = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&c).unwrap());
        let p = format!("v1.k1.{forged_payload}.{}", parts[3]);
        assert_eq!(s.open(&p, 0), Err(StateError::BadSignature));
        // One flipped character in the payload.
        let mut bytes = parts[2].as_bytes().to_vec();
        bytes[3] = if bytes[3] == b'A' { b'B' } else { b'A' };
        let p2 = format!("v1.k1.{}.{}", String::from_utf8(bytes).unwrap(), parts[3]);
        assert_eq!(s.open(&p2, 0), Err(StateError::BadSignature));
        // MAC.
        let mut tag = URL_SAFE_NO_PAD.decode(parts[3]).unwrap();
        tag[0] ^= 1;
        let m = format!("v1.k1.{}.{}", parts[2], URL_SAFE_NO_PAD.encode(tag));
        assert_eq!(s.open(&m, 0), Err(StateError::BadSignature));
        // Truncated MAC.
        let t = format!("v1.k1.{}.{}", parts[2], &parts[3][..8]);
        assert_eq!(s.open(&t, 0), Err(StateError::BadSignature));
        // Structure.
        assert!(matches!(
            s.open("garbage", 0),
            Err(StateError::Malformed(_))
        ));
        assert!(matches!(
            s.open(&format!("{sealed}.extra"), 0),
            Err(StateError::Malformed(_))
        ));
        assert!(matches!(
            s.open(&format!("v1.k1.{}.@@@", parts[2]), 0),
            Err(StateError::Malformed(_))
        ));
    }

    #[test]
    fn a_foreign_key_with_the_same_id_is_refused() {
        let ours = sealer("k1", 7);
        let theirs = sealer("k1", 8);
        let sealed = theirs.seal(&claims(1_000));
        assert_eq!(ours.open(&sealed, 0), Err(StateError::BadSignature));
    }

    #[test]
    fn rotated_keys_verify_and_the_first_signs() {
        let old = sealer("old", 1);
        let sealed_old = old.seal(&claims(1_000));
        let rotated = StateSealer::new(vec![
            ("new".into(), vec![2; 32]),
            ("old".into(), vec![1; 32]),
        ])
        .unwrap();
        assert_eq!(rotated.open(&sealed_old, 0).unwrap(), claims(1_000));
        let sealed_new = rotated.seal(&claims(1_000));
        assert!(sealed_new.starts_with("v1.new."));
        // After dropping the old key, old states are refused.
        let only_new = sealer("new", 2);
        assert_eq!(only_new.open(&sealed_old, 0), Err(StateError::UnknownKey));
        assert_eq!(only_new.open(&sealed_new, 0).unwrap(), claims(1_000));
    }

    #[test]
    fn bad_key_configurations_are_refused() {
        assert!(StateSealer::new(vec![]).is_err());
        assert!(StateSealer::new(vec![("a.b".into(), vec![0; 32])]).is_err());
        assert!(StateSealer::new(vec![("a".into(), vec![0; 4])]).is_err());
        assert!(
            StateSealer::new(vec![("a".into(), vec![0; 32]), ("a".into(), vec![1; 32])]).is_err()
        );
    }

    #[test]
    fn key_spec_parses() {
        let s = StateSealer::from_spec(
            "k2:00112233445566778899aabbccddeeff, k1:ffeeddccbbaa99887766554433221100",
        )
        .unwrap();
        assert_eq!(s.signing_key_id(), "k2");
        assert!(StateSealer::from_spec("k2").is_err());
        // A bare key pasted without its id is refused without echoing it.
        let bare = "00112233445566778899aabbccddeeff";
        let err = StateSealer::from_spec(bare).err().map(|e| e.to_string());
        assert!(err.as_deref().is_some_and(|e| !e.contains(bare)), "{err:?}");
        assert!(StateSealer::from_spec("k2:zz112233445566778899aabbccddeeff").is_err());
        assert!(StateSealer::from_spec("").is_err());
    }

    #[test]
    fn ephemeral_sealers_differ() {
        let a = StateSealer::ephemeral().unwrap();
        let b = StateSealer::ephemeral().unwrap();
        let sealed = a.seal(&claims(1_000));
        assert!(a.open(&sealed, 0).is_ok());
        assert_eq!(b.open(&sealed, 0), Err(StateError::BadSignature));
        assert_ne!(new_nonce().unwrap(), new_nonce().unwrap());
    }
}
