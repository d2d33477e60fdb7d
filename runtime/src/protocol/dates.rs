//! Calendar helpers for prompt arguments and completions: formats, and the symbolic defaults
//! (`today`, `today+90d`, `today-7d`, `current_month`) resolved to concrete dates.

use time::{Date, Duration, Month};

/// Today in UTC.
pub fn today() -> Date {
    time::OffsetDateTime::now_utc().date()
}

/// `YYYY-MM-DD`.
pub fn fmt_date(d: Date) -> String {
    format!("{:04}-{:02}-{:02}", d.year(), d.month() as u8, d.day())
}

/// `YYYY-MM`.
pub fn fmt_month(d: Date) -> String {
    format!("{:04}-{:02}", d.year(), d.month() as u8)
}

/// Whether `s` is a real calendar date written `YYYY-MM-DD`.
pub fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Ok(y), Ok(m), Ok(d)) = (
        s[0..4].parse::<i32>(),
        s[5..7].parse::<u8>(),
        s[8..10].parse::<u8>(),
    ) else {
        return false;
    };
    let Ok(month) = Month::try_from(m) else {
        return false;
    };
    s[0..4].bytes().all(|c| c.is_ascii_digit()) && Date::from_calendar_date(y, month, d).is_ok()
}

/// Whether `s` is `YYYY-MM` with a month 01–12.
pub fn is_month(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 7
        && b[4] == b'-'
        && s[0..4].bytes().all(|c| c.is_ascii_digit())
        && s[5..7].bytes().all(|c| c.is_ascii_digit())
        && matches!(s[5..7].parse::<u8>(), Ok(1..=12))
}

/// Resolves a symbolic default against `today`; anything else is a literal.
pub fn resolve_default(spec: &str, today: Date) -> String {
    match spec {
        "today" => return fmt_date(today),
        "current_month" => return fmt_month(today),
        _ => {}
    }
    if let Some(rest) = spec.strip_prefix("today") {
        let (sign, num) = match rest.as_bytes().first() {
            Some(b'+') => (1i64, &rest[1..]),
            Some(b'-') => (-1i64, &rest[1..]),
            _ => return spec.to_string(),
        };
        if let Some(n) = num.strip_suffix('d').and_then(|n| n.parse::<i64>().ok()) {
            if let Some(d) = today.checked_add(Duration::days(sign * n)) {
                return fmt_date(d);
            }
        }
    }
    spec.to_string()
}

/// The first day of the month `back` months before `today`'s month.
pub fn month_start(today: Date, back: u32) -> Date {
    let total = today.year() * 12 + (today.month() as i32 - 1) - back as i32;
    let (y, m) = (total.div_euclid(12), total.rem_euclid(12) + 1);
    Date::from_calendar_date(y, Month::try_from(m as u8).unwrap_or(Month::January), 1)
        .unwrap_or(today)
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::date;

    #[test]
    fn formats_are_checked() {
        assert!(is_date("2026-02-28"));
        assert!(!is_date("2026-02-30"));
        assert!(!is_date("2026-2-28"));
        assert!(is_month("2026-12"));
        assert!(!is_month("2026-13"));
    }

    #[test]
    fn defaults_resolve_to_concrete_dates() {
        let t = date!(2026 - 11 - 30);
        assert_eq!(resolve_default("today", t), "2026-11-30");
        assert_eq!(resolve_default("today+90d", t), "2027-02-28");
        assert_eq!(resolve_default("today-7d", t), "2026-11-23");
        assert_eq!(resolve_default("current_month", t), "2026-11");
        assert_eq!(resolve_default("pending", t), "pending");
        assert_eq!(month_start(t, 11), date!(2025 - 12 - 01));
    }
}
