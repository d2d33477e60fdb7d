//! The three languages a product speaks (pt-BR, es, en), how a request chooses one, and how
//! amounts and dates are written in each.
//!
//! Every text a person or a model reads exists in each locale (the generator refuses a catalog
//! where one is missing), so choosing a locale never fails: a request's language preference
//! (SEP-2792 `_meta` `acceptLanguage`, HTTP `Accept-Language`, the `--locale` setting) is matched
//! by BCP 47 primary language (`es-AR` → `es`, `pt` → `pt-BR`), and anything that matches none
//! falls back to the product's default (the language of its document).

use std::fmt;

/// A locale every product is translated into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Locale {
    /// Brazilian Portuguese (`pt-BR`).
    PtBr,
    /// Spanish (`es`).
    Es,
    /// English (`en`).
    En,
}

impl Locale {
    /// Every locale, in the order the generated tables list them.
    pub const ALL: [Locale; 3] = [Locale::PtBr, Locale::Es, Locale::En];

    /// The BCP 47 tag sent in `contentLanguage` / `Content-Language`.
    pub const fn tag(self) -> &'static str {
        match self {
            Locale::PtBr => "pt-BR",
            Locale::Es => "es",
            Locale::En => "en",
        }
    }

    /// The position of this locale in [`Locale::ALL`] (and in a product's locale tables).
    pub const fn index(self) -> usize {
        match self {
            Locale::PtBr => 0,
            Locale::Es => 1,
            Locale::En => 2,
        }
    }

    /// One language range (`es-AR`, `PT`, `en_US`) matched by its primary subtag; `None` for
    /// anything else (`*`, `fr`, empty).
    pub fn from_range(range: &str) -> Option<Locale> {
        let primary = range
            .trim()
            .split(['-', '_'])
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        match primary.as_str() {
            "pt" => Some(Locale::PtBr),
            "es" => Some(Locale::Es),
            "en" => Some(Locale::En),
            _ => None,
        }
    }

    /// The exact tag (`pt-BR`, `es`, `en`), case-insensitively: how the generator and the
    /// settings name a locale.
    pub fn from_tag(tag: &str) -> Option<Locale> {
        Locale::ALL
            .into_iter()
            .find(|l| l.tag().eq_ignore_ascii_case(tag.trim()))
    }

    /// The best locale for an `Accept-Language`-style list (`es-AR, en;q=0.8, *;q=0.1`): the
    /// ranges by descending `q` (ties keep their order), the first that names one of ours. `q=0`
    /// excludes a range. `None` when none matches (the caller falls back).
    pub fn negotiate(list: &str) -> Option<Locale> {
        let mut ranges: Vec<(u16, usize, &str)> = Vec::new();
        for (i, item) in list.split(',').enumerate() {
            let mut parts = item.split(';');
            let range = parts.next().unwrap_or("").trim();
            if range.is_empty() {
                continue;
            }
            let mut q = 1000u16;
            for p in parts {
                let p = p.trim();
                if let Some(v) = p.strip_prefix("q=").or_else(|| p.strip_prefix("Q=")) {
                    q = parse_q(v).unwrap_or(0);
                }
            }
            if q > 0 {
                ranges.push((q, i, range));
            }
        }
        ranges.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        ranges
            .into_iter()
            .find_map(|(_, _, r)| Locale::from_range(r))
    }

    /// The locale for a request: its own preference if it names one of ours, else the server's
    /// default (`--locale`), else the product's.
    pub fn choose(requested: Option<&str>, server: Option<Locale>, product: Locale) -> Locale {
        requested
            .and_then(Locale::negotiate)
            .or(server)
            .unwrap_or(product)
    }

    /// An amount of money (BRL) as people of this locale write it: `R$ 1.234,56` (pt-BR, es),
    /// `R$1,234.56` (en). Negative amounts get a leading minus.
    pub fn money(self, amount: f64) -> String {
        let cents = (amount.abs() * 100.0).round() as u128;
        let (int, frac) = (cents / 100, cents % 100);
        let digits = int.to_string();
        let (group, decimal) = match self {
            Locale::En => (',', '.'),
            Locale::PtBr | Locale::Es => ('.', ','),
        };
        let mut grouped = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                grouped.push(group);
            }
            grouped.push(c);
        }
        let sign = if amount < 0.0 && cents > 0 { "-" } else { "" };
        match self {
            Locale::En => format!("{sign}R${grouped}{decimal}{frac:02}"),
            Locale::PtBr | Locale::Es => format!("{sign}R$ {grouped}{decimal}{frac:02}"),
        }
    }

    /// A `YYYY-MM-DD` date as people of this locale write it: `01/12/2026` (pt-BR, es),
    /// `Dec 1, 2026` (en). Anything that is not such a date comes back as it is.
    pub fn date(self, iso: &str) -> String {
        let Some((y, m, d)) = split_date(iso) else {
            return iso.to_string();
        };
        match self {
            Locale::PtBr | Locale::Es => format!("{d:02}/{m:02}/{y:04}"),
            Locale::En => format!("{} {d}, {y:04}", MONTHS_EN[(m - 1) as usize]),
        }
    }

    /// A `YYYY-MM` month: `12/2026` (pt-BR, es), `Dec 2026` (en); anything else as it is.
    pub fn month(self, iso: &str) -> String {
        let b = iso.as_bytes();
        let ok = b.len() == 7 && b[4] == b'-';
        let parsed = ok
            .then(|| Some((iso[..4].parse::<u32>().ok()?, iso[5..].parse::<u32>().ok()?)))
            .flatten();
        match parsed {
            Some((y, m)) if (1..=12).contains(&m) => match self {
                Locale::PtBr | Locale::Es => format!("{m:02}/{y:04}"),
                Locale::En => format!("{} {y:04}", MONTHS_EN[(m - 1) as usize]),
            },
            _ => iso.to_string(),
        }
    }

    /// An ISO 8601 timestamp (`2026-12-01T14:30:00Z`): its date as [`Locale::date`] plus `HH:MM`
    /// and the zone as written; anything else as it is.
    pub fn datetime(self, iso: &str) -> String {
        if iso.len() < 16 || iso.as_bytes().get(10) != Some(&b'T') {
            return iso.to_string();
        }
        let (date, rest) = iso.split_at(10);
        if split_date(date).is_none() {
            return iso.to_string();
        }
        let time = &rest[1..6];
        let zone =
            rest[6..].trim_start_matches(|c: char| c.is_ascii_digit() || c == ':' || c == '.');
        let zone = if zone == "Z" { "UTC" } else { zone };
        let sep = if zone.is_empty() { "" } else { " " };
        format!("{} {time}{sep}{zone}", self.date(date))
    }
}

impl fmt::Display for Locale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.tag())
    }
}

const MONTHS_EN: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

fn split_date(iso: &str) -> Option<(u32, u32, u32)> {
    let b = iso.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let y = iso[..4].parse().ok()?;
    let m = iso[5..7].parse().ok()?;
    let d = iso[8..].parse().ok()?;
    ((1..=12).contains(&m) && (1..=31).contains(&d)).then_some((y, m, d))
}

/// `q` as thousandths (`0.8` → 800); `None` when it is not a quality value.
fn parse_q(v: &str) -> Option<u16> {
    let v = v.trim();
    let f: f64 = v.parse().ok()?;
    (0.0..=1.0)
        .contains(&f)
        .then(|| (f * 1000.0).round() as u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_match_by_primary_language() {
        assert_eq!(Locale::negotiate("es-AR"), Some(Locale::Es));
        assert_eq!(Locale::negotiate("pt"), Some(Locale::PtBr));
        assert_eq!(Locale::negotiate("pt-PT"), Some(Locale::PtBr));
        assert_eq!(Locale::negotiate("EN_us"), Some(Locale::En));
        assert_eq!(Locale::negotiate("fr, de"), None);
        assert_eq!(Locale::negotiate("*"), None);
        assert_eq!(Locale::negotiate(""), None);
    }

    #[test]
    fn quality_orders_the_ranges() {
        assert_eq!(
            Locale::negotiate("fr, en;q=0.5, es;q=0.9"),
            Some(Locale::Es)
        );
        assert_eq!(Locale::negotiate("es;q=0, en"), Some(Locale::En));
        assert_eq!(Locale::negotiate("en;q=0.7, pt;q=0.7"), Some(Locale::En));
    }

    #[test]
    fn choose_falls_back_to_server_then_product() {
        assert_eq!(Locale::choose(Some("fr"), None, Locale::Es), Locale::Es);
        assert_eq!(
            Locale::choose(Some("fr"), Some(Locale::En), Locale::Es),
            Locale::En
        );
        assert_eq!(
            Locale::choose(Some("pt"), Some(Locale::En), Locale::Es),
            Locale::PtBr
        );
        assert_eq!(Locale::choose(None, None, Locale::PtBr), Locale::PtBr);
    }

    #[test]
    fn amounts_and_dates_per_locale() {
        assert_eq!(Locale::PtBr.money(1234.56), "R$ 1.234,56");
        assert_eq!(Locale::Es.money(1234567.5), "R$ 1.234.567,50");
        assert_eq!(Locale::En.money(1234.56), "R$1,234.56");
        assert_eq!(Locale::PtBr.money(-0.5), "-R$ 0,50");
        assert_eq!(Locale::PtBr.money(12.0), "R$ 12,00");
        assert_eq!(Locale::PtBr.date("2026-12-01"), "01/12/2026");
        assert_eq!(Locale::Es.date("2026-12-01"), "01/12/2026");
        assert_eq!(Locale::En.date("2026-12-01"), "Dec 1, 2026");
        assert_eq!(Locale::PtBr.date("soon"), "soon");
        assert_eq!(Locale::PtBr.month("2026-12"), "12/2026");
        assert_eq!(
            Locale::PtBr.datetime("2026-12-01T14:30:00Z"),
            "01/12/2026 14:30 UTC"
        );
    }
}
