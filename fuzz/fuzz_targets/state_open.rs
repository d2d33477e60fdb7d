//! The `requestState` opener.
//!
//! Properties: opening arbitrary text never panics and never succeeds (nothing but the sealer
//! can make a valid MAC); a sealed state opens to the claims it was sealed from before its
//! expiry and is `Expired` from then on; every change to a sealed state (one character
//! replaced, inserted or removed, or a cut) is refused.
#![no_main]

use libfuzzer_sys::fuzz_target;
use runtime::state::{StateClaims, StateError, StateSealer};
use serde_json::Value;

fn sealer() -> StateSealer {
    StateSealer::new(vec![
        ("k2".to_string(), b"fuzz-key-two-0123456789".to_vec()),
        ("k1".to_string(), b"fuzz-key-one-0123456789".to_vec()),
    ])
    .expect("fixed keys are valid")
}

fuzz_target!(|data: &[u8]| {
    let sealer = sealer();
    let text = String::from_utf8_lossy(data);
    assert!(
        sealer.open(&text, 0).is_err(),
        "an unsealed text opened: {text:?}"
    );

    // Claims built from the input, sealed, then changed at a place and in a way the input picks.
    let (head, rest) = data.split_at(data.len().min(4));
    let pick = |i: usize| head.get(i).copied().unwrap_or(0) as usize;
    let words = String::from_utf8_lossy(rest);
    let mut parts = words.splitn(3, '\n');
    let claims = StateClaims {
        method: "tools/call".into(),
        target: parts.next().unwrap_or_default().to_string(),
        args_hash: parts.next().unwrap_or_default().to_string(),
        principal: parts.next().unwrap_or_default().to_string(),
        input_keys: vec!["confirm".into()],
        exp: 1_000 + pick(0) as u64,
        nonce: "n".into(),
        data: Value::Null,
    };
    let sealed = sealer.seal(&claims);
    assert_eq!(sealer.open(&sealed, 999), Ok(claims.clone()));
    assert_eq!(sealer.open(&sealed, claims.exp), Err(StateError::Expired));

    let bytes = sealed.as_bytes();
    let at = (pick(1) << 8 | pick(2)) % bytes.len();
    let with = pick(3) as u8;
    let mut changed = bytes.to_vec();
    match pick(0) % 4 {
        0 => changed[at] = with,
        1 => changed.insert(at, with),
        2 => {
            changed.remove(at);
        }
        _ => changed.truncate(at),
    }
    if changed != bytes {
        if let Ok(changed) = std::str::from_utf8(&changed) {
            assert!(
                sealer.open(changed, 0).is_err(),
                "a changed state opened: {sealed:?} -> {changed:?}"
            );
        }
    }
});
