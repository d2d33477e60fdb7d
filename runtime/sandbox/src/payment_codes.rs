//! The payment codes a bank app reads, made to agree with the record that carries them (by field
//! names, no code per product): a billet's 44-digit barcode and 47-digit typeable line in the
//! FEBRABAN layout (bank, currency, check digits, due factor, amount, free field), and a Pix
//! charge's EMV BR Code "copia e cola" payload (amount, txid, CRC16).

use runtime_model::catalog::RecordType;
use serde_json::{Map, Value};
use time::{Date, Month};

/// FEBRABAN codes of the banks a billet wallet names (`bank_contract_slug`).
pub const BANKS: &[(&str, &str)] = &[
    ("banco-do-brasil", "001"),
    ("santander", "033"),
    ("caixa", "104"),
    ("bradesco", "237"),
    ("itau", "341"),
    ("sicoob", "756"),
];

/// The FEBRABAN code of a wallet's bank slug (Banco do Brasil's when unknown).
pub fn bank_code(slug: Option<&str>) -> &'static str {
    slug.and_then(|s| BANKS.iter().find(|(name, _)| *name == s))
        .map_or("001", |(_, code)| code)
}

/// Digits of `s`, as values.
fn digits(s: &str) -> Vec<u32> {
    s.chars().filter_map(|c| c.to_digit(10)).collect()
}

/// The barcode's general check digit: modulo 11 over its 43 other digits, weights 2..9 from the
/// right; 0, 10 and 11 become 1.
pub fn barcode_check_digit(digits43: &str) -> u32 {
    let sum: u32 = digits(digits43)
        .iter()
        .rev()
        .zip((2..=9).cycle())
        .map(|(d, w)| d * w)
        .sum();
    match 11 - sum % 11 {
        0 | 10 | 11 => 1,
        d => d,
    }
}

/// A typeable line field's check digit: modulo 10, weights 2 and 1 from the right, the digits of
/// each product added.
pub fn line_check_digit(field: &str) -> u32 {
    let sum: u32 = digits(field)
        .iter()
        .rev()
        .zip([2, 1].into_iter().cycle())
        .map(|(d, w)| {
            let p = d * w;
            p / 10 + p % 10
        })
        .sum();
    (10 - sum % 10) % 10
}

/// The due factor of `due`: days since 1997-10-07, which restarted at 1000 on 2025-02-22 after
/// reaching 9999.
pub fn due_factor(due: Date) -> u32 {
    let base = Date::from_calendar_date(1997, Month::October, 7).unwrap_or(Date::MIN);
    let days = (due - base).whole_days().max(0) as u32;
    if days > 9999 {
        1000 + (days - 1000) % 9000
    } else {
        days
    }
}

/// The 44-digit barcode: bank, currency 9, check digit, due factor, amount in cents (10 digits),
/// and a 25-digit free field.
pub fn barcode(bank: &str, due: Date, cents: u64, free_field: &str) -> String {
    let free: String = format!("{:0>25}", free_field)
        .chars()
        .rev()
        .take(25)
        .collect();
    let free: String = free.chars().rev().collect();
    let body = format!(
        "{bank:0>3}9{:04}{:010}{free}",
        due_factor(due),
        cents % 10_000_000_000
    );
    let dv = barcode_check_digit(&body);
    format!("{}{dv}{}", &body[..4], &body[4..])
}

/// The 47-digit typeable line of a 44-digit barcode: three fields of the bank, currency and free
/// field, each with its modulo-10 digit, the general check digit, then due factor and amount.
pub fn typeable_line(barcode: &str) -> Option<String> {
    if barcode.len() != 44 || !barcode.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let f1 = format!("{}{}", &barcode[0..4], &barcode[19..24]);
    let f2 = &barcode[24..34];
    let f3 = &barcode[34..44];
    Some(format!(
        "{f1}{}{f2}{}{f3}{}{}{}",
        line_check_digit(&f1),
        line_check_digit(f2),
        line_check_digit(f3),
        &barcode[4..5],
        &barcode[5..19]
    ))
}

/// CRC16-CCITT (polynomial 0x1021, initial 0xFFFF), as the BR Code's field 63 carries it.
pub fn crc16(data: &[u8]) -> u16 {
    let mut crc: u16 = 0xFFFF;
    for &b in data {
        crc ^= u16::from(b) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc
}

/// One EMV field: id, two-digit length, value.
fn tlv(id: &str, value: &str) -> String {
    format!("{id}{:02}{value}", value.len())
}

/// A Pix "copia e cola" payload (EMV BR Code): the key in the merchant account (GUI
/// `br.gov.bcb.pix`), the amount, the merchant's name and city, the txid (field 62-05), and the
/// CRC16 of the whole.
pub fn pix_payload(key: &str, amount: f64, name: &str, city: &str, txid: &str) -> String {
    let account = tlv("00", "br.gov.bcb.pix") + &tlv("01", key);
    let ascii = |s: &str, max: usize| -> String {
        s.chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == ' ')
            .take(max)
            .collect::<String>()
            .to_uppercase()
    };
    let mut out = String::new();
    out += &tlv("00", "01");
    out += &tlv("01", "12");
    out += &tlv("26", &account);
    out += &tlv("52", "0000");
    out += &tlv("53", "986");
    out += &tlv("54", &format!("{amount:.2}"));
    out += &tlv("58", "BR");
    out += &tlv("59", &ascii(name, 25));
    out += &tlv("60", &ascii(city, 15));
    out += &tlv("62", &tlv("05", txid));
    out += "6304";
    let crc = crc16(out.as_bytes());
    format!("{out}{crc:04X}")
}

/// The codes of a new record, seeded or created through a tool, made by the same functions: a
/// type declaring `barcode` and `line` gets both ([`billet`], from its wallet's bank slug
/// `bank`), a type declaring `qrcode` its Pix payload ([`pix`]); a Pix charge given no `txid`
/// gets its own id as one, as the API gives every charge a txid.
pub fn new_record(rt: &RecordType, json: &mut Map<String, Value>, bank: Option<&str>) {
    let declares = |name: &str| rt.fields.iter().any(|f| f.name == name);
    for code in ["barcode", "line", "qrcode"] {
        if declares(code) && !json.contains_key(code) {
            json.insert(code.into(), Value::Null);
        }
    }
    let no_txid = json
        .get("txid")
        .and_then(Value::as_str)
        .is_none_or(str::is_empty);
    if declares("qrcode") && declares("txid") && no_txid {
        if let Some(id) = json.get(rt.id_field).and_then(Value::as_str) {
            json.insert("txid".into(), Value::String(id.to_string()));
        }
    }
    billet(json, bank);
    pix(json);
}

/// A billet record with `barcode` and `line` fields gets both, from its bank (`bank`: its
/// wallet's `bank_contract_slug`), `amount`, `expire_at` and `our_number`.
pub fn billet(json: &mut Map<String, Value>, bank: Option<&str>) {
    billet_of_bank(json, bank_code(bank));
}

/// [`billet`], with the bank's FEBRABAN code (`bank`) rather than its wallet's slug.
fn billet_of_bank(json: &mut Map<String, Value>, bank: &str) {
    if !json.contains_key("barcode") || !json.contains_key("line") {
        return;
    }
    let (Some(amount), Some(due)) = (
        json.get("amount").and_then(Value::as_f64),
        json.get("expire_at")
            .and_then(Value::as_str)
            .and_then(|d| crate::clock::parse_date(d.get(..10).unwrap_or(d))),
    ) else {
        return;
    };
    let our_number: String = json
        .get("our_number")
        .map(|v| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .unwrap_or_default()
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    let cents = (amount.abs() * 100.0).round() as u64;
    let code = barcode(bank, due, cents, &our_number);
    let line = typeable_line(&code).unwrap_or_default();
    json.insert("barcode".into(), Value::String(code));
    json.insert("line".into(), Value::String(line));
}

/// The longest txid a static BR Code carries in field 62-05.
pub const MAX_TXID: usize = 25;

/// A Pix charge with a `qrcode` field and a `txid` gets its payload in `qrcode.emv`, carrying
/// its amount and txid (made a BR Code txid: letters and digits, at most [`MAX_TXID`]). The
/// key is the charge's Pix account uid (a random key, "chave aleatória", is a UUID).
pub fn pix(json: &mut Map<String, Value>) {
    if !json.contains_key("qrcode") {
        return;
    }
    let (Some(amount), Some(txid)) = (
        json.get("amount").and_then(Value::as_f64),
        json.get("txid").and_then(Value::as_str),
    ) else {
        return;
    };
    let txid: String = txid
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(MAX_TXID)
        .collect();
    let key = json
        .get("pix_account_uid")
        .and_then(Value::as_str)
        .unwrap_or("00000000-0000-0000-0000-000000000000")
        .to_string();
    let payload = pix_payload(&key, amount, "Kobana Sandbox", "Sao Paulo", &txid);
    json.insert("txid".into(), Value::String(txid));
    let mut qr = Map::new();
    qr.insert("emv".into(), Value::String(payload));
    json.insert("qrcode".into(), Value::Object(qr));
}

/// A record changed by an update gets its codes made again from what it now holds, so a new
/// amount, due date or txid never leaves a barcode, typeable line or Pix payload that disagrees
/// with it. A billet keeps the bank its barcode names (an update does not move it to another
/// wallet); a Pix charge keeps the other keys of its `qrcode`. A record without codes is left as
/// it is.
pub fn refresh(json: &mut Map<String, Value>) {
    let bank = json
        .get("barcode")
        .and_then(Value::as_str)
        .filter(|b| b.len() == 44 && b.is_char_boundary(3))
        .map(|b| b[..3].to_string());
    if let Some(bank) = bank {
        billet_of_bank(json, &bank);
    }
    let Some(Value::Object(kept)) = json.get("qrcode").cloned() else {
        return;
    };
    if !kept.contains_key("emv") {
        return;
    }
    pix(json);
    if let Some(Value::Object(qr)) = json.get_mut("qrcode") {
        for (k, v) in kept {
            qr.entry(k).or_insert(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_digits_follow_their_rules() {
        // Worked by hand: modulo 10 of 3,4,1,9,1,0,9,0,0 (weights 2,1 from the right) is 32 → 8.
        assert_eq!(line_check_digit("341910900"), 8);
        // Modulo 11: a lone 1 in the last place weighs 2 → 11 − 2 = 9; all zeros → 11 → 1.
        assert_eq!(barcode_check_digit(&format!("{}1", "0".repeat(42))), 9);
        assert_eq!(barcode_check_digit(&"0".repeat(43)), 1);
    }

    #[test]
    fn a_barcode_carries_bank_factor_and_amount_and_its_line_rebuilds_it() {
        let due = Date::from_calendar_date(2026, Month::March, 10).unwrap();
        let code = barcode("341", due, 123_456, "12345678");
        assert_eq!(code.len(), 44);
        assert_eq!(&code[..4], "3419");
        assert_eq!(&code[5..9], format!("{:04}", due_factor(due)));
        assert_eq!(&code[9..19], "0000123456");
        assert_eq!(&code[19..], format!("{:0>25}", "12345678"));
        let dv = barcode_check_digit(&format!("{}{}", &code[..4], &code[5..]));
        assert_eq!(code[4..5], dv.to_string());
        let line = typeable_line(&code).unwrap();
        assert_eq!(line.len(), 47);
        let rebuilt = format!(
            "{}{}{}{}{}{}",
            &line[0..4],
            &line[32..47],
            &line[4..9],
            &line[10..20],
            &line[21..31],
            ""
        );
        assert_eq!(&rebuilt[..4], &code[..4]);
        assert_eq!(&rebuilt[4..19], &code[4..19]);
        assert_eq!(&rebuilt[19..], &code[19..]);
    }

    #[test]
    fn due_factors_restart_at_1000_after_9999() {
        let d = |y, m, day| Date::from_calendar_date(y, Month::try_from(m).unwrap(), day).unwrap();
        assert_eq!(due_factor(d(2000, 7, 3)), 1000);
        assert_eq!(due_factor(d(2025, 2, 21)), 9999);
        assert_eq!(due_factor(d(2025, 2, 22)), 1000);
        assert_eq!(due_factor(d(2025, 2, 23)), 1001);
    }

    #[test]
    fn the_crc_is_ccitt_false() {
        // The check value of CRC-16/CCITT-FALSE.
        assert_eq!(crc16(b"123456789"), 0x29B1);
    }

    #[test]
    fn a_pix_payload_ends_with_the_crc_of_the_rest() {
        let p = pix_payload(
            "123e4567-e12b-12d1-a456-426655440000",
            10.5,
            "Fulano",
            "Brasilia",
            "ABC123",
        );
        assert!(p.starts_with("000201"));
        assert!(p.contains("540510.50"));
        assert!(p.contains("62100506ABC123"));
        let (rest, crc) = p.split_at(p.len() - 4);
        assert_eq!(format!("{:04X}", crc16(rest.as_bytes())), crc);
    }
}
