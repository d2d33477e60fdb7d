//! Dates and times as the Kobana API writes them (Brasília offset, `-03:00`).

use time::format_description::well_known::Rfc3339;
use time::{Date, Duration, OffsetDateTime, UtcOffset};

/// The offset Kobana's API uses in its timestamps.
pub fn brasilia() -> UtcOffset {
    UtcOffset::from_hms(-3, 0, 0).unwrap_or(UtcOffset::UTC)
}

pub fn now() -> OffsetDateTime {
    OffsetDateTime::now_utc().to_offset(brasilia())
}

/// The instant seeded data is generated relative to: the start of `now`'s day (Brasília). Seeding
/// depends on it and on the seed only, so two fresh data directories seeded the same day with
/// the same seed hold the same records, ids included (a uid carries its record's creation time).
pub fn seed_anchor(now: OffsetDateTime) -> OffsetDateTime {
    now.replace_time(time::Time::MIDNIGHT)
}

/// `2026-11-30T10:15:00-03:00`
pub fn datetime_string(t: OffsetDateTime) -> String {
    let t = t.replace_nanosecond(0).unwrap_or(t);
    t.format(&Rfc3339).unwrap_or_else(|_| t.to_string())
}

/// `2026-11-30`
pub fn date_string(d: Date) -> String {
    format!("{:04}-{:02}-{:02}", d.year(), u8::from(d.month()), d.day())
}

/// `2026-11-30` → the date; anything else → `None`.
pub fn parse_date(s: &str) -> Option<Date> {
    Date::parse(s, &time::format_description::well_known::Iso8601::DATE).ok()
}

pub fn days(n: i64) -> Duration {
    Duration::days(n)
}
