//! A property test of confirmations and exactly-once writes: deterministic random walks of
//! ask / accept / decline / replay / expire / ledger outage / ledger loss / instance switch, on
//! two server instances that share one ledger or have one each. Whatever the sequence, no
//! confirmation has an effect upstream twice, nothing runs without an explicit yes, and (on a
//! shared ledger that lost nothing) a call whose outcome is unknown is never run a second time.
//!
//! The walk drives the real gate ([`Confirmer::gate`]) and the real key sequence
//! ([`Confirmer::run_once`]); the upstream is a model of an API that honours idempotency keys.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use runtime_model::backend::BoxFuture;
use runtime_model::catalog::Product;
use runtime_model::identity::Identity;
use serde_json::{json, Map, Value};

use runtime::confirm::idempotency::{self, Outcome};
use runtime::confirm::ledger::{Ledger, LedgerError, MemoryLedger};
use runtime::confirm::{Confirmer, Gate, GateRequest};
use runtime::contract::facts::Notes;
use runtime::state::StateSealer;
use test_support::policies::{tool, LENIENT, STRICT};

/// A ledger that can be down (outage) or lose everything (a Redis flush or restart).
#[derive(Default)]
struct Flaky {
    inner: Mutex<Arc<MemoryLedger>>,
    down: AtomicBool,
}

impl Flaky {
    fn now(&self) -> Result<Arc<MemoryLedger>, LedgerError> {
        if self.down.load(Ordering::SeqCst) {
            return Err(LedgerError::Unavailable("outage".into()));
        }
        Ok(self.inner.lock().unwrap().clone())
    }
    fn lose(&self) {
        *self.inner.lock().unwrap() = Arc::new(MemoryLedger::new());
    }
}

impl Ledger for Flaky {
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, LedgerError>> {
        Box::pin(async move { self.now()?.get(key).await })
    }
    fn put_new<'a>(
        &'a self,
        key: &'a str,
        value: &'a str,
        ttl: Duration,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, LedgerError>> {
        Box::pin(async move { self.now()?.put_new(key, value, ttl, owner).await })
    }
    fn compare_and_set<'a>(
        &'a self,
        key: &'a str,
        expected: &'a str,
        new: &'a str,
    ) -> BoxFuture<'a, Result<bool, LedgerError>> {
        Box::pin(async move { self.now()?.compare_and_set(key, expected, new).await })
    }
    fn remove_if<'a>(
        &'a self,
        key: &'a str,
        value: &'a str,
    ) -> BoxFuture<'a, Result<bool, LedgerError>> {
        Box::pin(async move { self.now()?.remove_if(key, value).await })
    }
    fn release<'a>(
        &'a self,
        key: &'a str,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<(), LedgerError>> {
        Box::pin(async move { self.now()?.release(key, owner).await })
    }
}

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One upstream effect: which confirmation and which call (intent) caused it.
struct Effect {
    nonce: String,
}

/// An API that honours idempotency keys: a known key replays, a new one runs.
#[derive(Default)]
struct Api {
    keys: HashMap<String, usize>,
    effects: Vec<Effect>,
}

/// What the API does with the next request.
#[derive(Clone, Copy, Debug)]
enum Reply {
    Ok,
    /// Runs it, but the answer is lost (timeout after sending).
    Lost,
    /// Refuses it (4xx): nothing changes, the key is not kept.
    Refuse,
}

struct Issued {
    state: String,
    nonce: String,
    intent: usize,
    person: usize,
}

fn person(i: usize) -> Identity {
    Identity {
        person: format!("p{i}"),
        name: String::new(),
        organization: "o".into(),
        scopes: Default::default(),
        permissions: Default::default(),
        workspaces: Default::default(),
        default_workspace: Some("ws1".into()),
    }
}

fn intent_args(intent: usize) -> Map<String, Value> {
    json!({"id": format!("thing-{intent}")})
        .as_object()
        .cloned()
        .unwrap_or_default()
}

fn yes() -> Value {
    json!({"confirm": {"action": "accept", "content": {"confirm": true}}})
}

async fn walk(seed: u64, product: &'static Product, shared: bool, steps: usize) {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let sealer = Arc::new(StateSealer::new(vec![("k".into(), vec![3; 32])]).unwrap());
    let ledgers: Vec<Arc<Flaky>> = if shared {
        let one = Arc::new(Flaky::default());
        vec![one.clone(), one]
    } else {
        vec![Arc::new(Flaky::default()), Arc::new(Flaky::default())]
    };
    let instances: Vec<Confirmer> = ledgers
        .iter()
        .map(|l| Confirmer::new(sealer.clone(), l.clone()))
        .collect();
    let people = [person(0), person(1)];
    let delete = tool("test_things_delete");
    let mut now: u64 = 1_800_000_000;
    let mut issued: Vec<Issued> = Vec::new();
    let mut api = Api::default();
    // Per call (intent, person): its outcome is unknown since this many ledger losses.
    let mut unknown_since: HashMap<(usize, usize), u64> = HashMap::new();
    let mut losses: u64 = 0;
    let mut log: Vec<String> = Vec::new();

    for step in 0..steps {
        let inst = rng.below(2) as usize;
        let c = &instances[inst];
        let roll = rng.below(100);
        match roll {
            // Ask: a first call never runs.
            0..=24 => {
                let intent = rng.below(2) as usize;
                let who = rng.below(2) as usize;
                let args = intent_args(intent);
                // Sometimes the first call brings its own "yes": it is asked anyway.
                let own_yes = yes();
                let responses = (rng.below(4) == 0).then_some(&own_yes);
                let g = c
                    .gate(GateRequest {
                        product,
                        tool: delete,
                        args: &args,
                        identity: &people[who],
                        workspace: Some("ws1"),
                        modern: true,
                        form_elicitation: true,
                        input_responses: responses,
                        request_state: None,
                        now,
                        locale: runtime_model::locale::Locale::En,
                        reader: None,
                        notes: &Notes::NONE,
                    })
                    .await;
                let Gate::InputRequired(v) = &g else {
                    panic!(
                        "seed {seed} step {step}: a first call got {g:?}\n{}",
                        log.join("\n")
                    )
                };
                let state = v["requestState"].as_str().unwrap().to_string();
                let nonce = sealer.open(&state, now).unwrap().nonce;
                log.push(format!("{step}: ask intent {intent} by p{who} on {inst}"));
                issued.push(Issued {
                    state,
                    nonce,
                    intent,
                    person: who,
                });
            }
            // Accept or replay (a state already used), sometimes by the other person.
            25..=59 if !issued.is_empty() => {
                let pick = &issued[rng.below(issued.len() as u64) as usize];
                let who = if rng.below(6) == 0 {
                    1 - pick.person
                } else {
                    pick.person
                };
                let args = intent_args(pick.intent);
                let answer = yes();
                let g = c
                    .gate(GateRequest {
                        product,
                        tool: delete,
                        args: &args,
                        identity: &people[who],
                        workspace: Some("ws1"),
                        modern: true,
                        form_elicitation: true,
                        input_responses: Some(&answer),
                        request_state: Some(&pick.state),
                        now,
                        locale: runtime_model::locale::Locale::En,
                        reader: None,
                        notes: &Notes::NONE,
                    })
                    .await;
                let Gate::Run { confirmed } = g else {
                    log.push(format!(
                        "{step}: accept {} on {inst}: not run",
                        &pick.nonce[..6]
                    ));
                    continue;
                };
                let confirmed = confirmed.expect("a destructive tool runs only confirmed");
                assert_eq!(
                    who, pick.person,
                    "seed {seed} step {step}: ran for another person"
                );
                let fp = idempotency::call_fingerprint(
                    product,
                    delete,
                    &args,
                    &people[who],
                    Some("ws1"),
                );
                let owner = idempotency::owner(&people[who]);
                let reply = match rng.below(10) {
                    0..=5 => Reply::Ok,
                    6..=8 => Reply::Lost,
                    _ => Reply::Refuse,
                };
                let before = api.effects.len();
                let sealed = confirmed.generation;
                let intent = pick.intent;
                let nonce = pick.nonce.clone();
                let api_ref = &mut api;
                let ran = c
                    .run_once(Some(&fp), Some(&confirmed), &owner, &Notes::NONE, |key| {
                        let key = key.expect("a write carries a key");
                        let outcome = match reply {
                            Reply::Refuse => Outcome::Failed,
                            _ => {
                                let known = api_ref.keys.contains_key(&key);
                                if !known {
                                    api_ref.keys.insert(key, api_ref.effects.len());
                                    api_ref.effects.push(Effect { nonce });
                                }
                                match (reply, known) {
                                    (Reply::Lost, _) => Outcome::Unknown,
                                    // The API marks its stored answer (`Idempotent-Replayed`).
                                    (_, true) => Outcome::Replayed,
                                    _ => Outcome::Ran,
                                }
                            }
                        };
                        async move { ((), outcome) }
                    })
                    .await;
                let created = api.effects.len() > before;
                log.push(format!(
                    "{step}: accept {} (asked in generation {sealed:?}) intent {intent} by p{who} on {inst}: {reply:?}, ran={}, new effect={created}",
                    &pick.nonce[..6],
                    ran.is_ok()
                ));
                if created {
                    if let (true, Some(since)) = (shared, unknown_since.get(&(intent, who))) {
                        assert!(
                            *since != losses,
                            "seed {seed} step {step}: a call whose outcome is unknown ran again\n{}",
                            log.join("\n")
                        );
                    }
                }
                if ran.is_ok() {
                    match reply {
                        Reply::Lost => {
                            unknown_since.entry((intent, who)).or_insert(losses);
                        }
                        Reply::Ok => {
                            unknown_since.remove(&(intent, who));
                        }
                        Reply::Refuse => {}
                    }
                }
            }
            // Decline, or no usable answer: never runs.
            60..=69 if !issued.is_empty() => {
                let pick = &issued[rng.below(issued.len() as u64) as usize];
                let args = intent_args(pick.intent);
                let answer = match rng.below(3) {
                    0 => json!({"confirm": {"action": "decline"}}),
                    1 => json!({"confirm": {"action": "accept", "content": {"confirm": false}}}),
                    _ => json!({"other": {"action": "accept"}}),
                };
                let g = c
                    .gate(GateRequest {
                        product,
                        tool: delete,
                        args: &args,
                        identity: &people[pick.person],
                        workspace: Some("ws1"),
                        modern: true,
                        form_elicitation: true,
                        input_responses: Some(&answer),
                        request_state: Some(&pick.state),
                        now,
                        locale: runtime_model::locale::Locale::En,
                        reader: None,
                        notes: &Notes::NONE,
                    })
                    .await;
                assert!(
                    !g.runs(),
                    "seed {seed} step {step}: ran without a yes: {answer}"
                );
            }
            70..=74 => {
                now += 301;
                log.push(format!("{step}: time passes; earlier states expire"));
            }
            75..=84 => {
                ledgers[inst].down.store(true, Ordering::SeqCst);
                log.push(format!("{step}: ledger of {inst} down"));
            }
            85..=93 => {
                ledgers[inst].down.store(false, Ordering::SeqCst);
                log.push(format!("{step}: ledger of {inst} up"));
            }
            _ => {
                ledgers[inst].lose();
                losses += 1;
                log.push(format!("{step}: ledger of {inst} lost everything"));
            }
        }
        // No confirmation has more than one effect upstream.
        let mut per_nonce: HashMap<&str, usize> = HashMap::new();
        for e in &api.effects {
            let n = per_nonce.entry(&e.nonce).or_insert(0);
            *n += 1;
            assert!(
                *n <= 1,
                "seed {seed} step {step}: confirmation {} ran twice upstream\n{}",
                &e.nonce[..6],
                log.join("\n")
            );
        }
    }
}

#[tokio::test]
async fn no_sequence_runs_a_tool_twice_or_without_a_yes() {
    for seed in 1..=80u64 {
        for product in [&LENIENT, &STRICT] {
            for shared in [true, false] {
                walk(seed, product, shared, 80).await;
            }
        }
    }
}
