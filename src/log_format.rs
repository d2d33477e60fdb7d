//! The text of a log line: `tracing_subscriber`'s default ("full") format, with the request
//! lines (target [`TARGET`]) written by a shorter path that gives the very same bytes, and the
//! default clock's text written from a cache of the current second.
//!
//! Why (issue 17): a server writes one request line per request, and the default formatter
//! spent about 11K instructions on each (a sandbox `tools/call` costs about 250K in all): every
//! field goes through `core::fmt` twice (its name painted in a style that, with colours off,
//! paints nothing, then its value through `Debug`, which escapes a string char by char). A
//! request line has only string and integer fields, nearly always printable ASCII; those are
//! copied as they are, and anything else (a character `Debug` would escape, a field of another
//! type, a span around the event, colours on) takes the default path, so a line never differs
//! from what the default format would write. The test below holds it to that.

use std::cell::RefCell;
use std::fmt::{self, Write as _};
use std::time::UNIX_EPOCH;

use runtime::telemetry::request_log::TARGET;
use tracing::field::{Field, Visit};
use tracing::{Event, Subscriber};
use tracing_subscriber::fmt::format::{Format, Full, Writer};
use tracing_subscriber::fmt::time::{FormatTime, SystemTime};
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::registry::LookupSpan;

/// The event format of the binary's log: [`Format::default`] on [`Clock`], with request lines
/// written by [`write_request_line`].
pub struct LineFormat<T = Clock> {
    full: Format<Full, T>,
    timer: T,
}

impl Default for LineFormat<Clock> {
    fn default() -> Self {
        Self::with_timer(Clock)
    }
}

/// The default clock's text ([`SystemTime`]: UTC, to the microsecond,
/// `2026-12-02T18:27:07.123456Z`), with the date and time to the second written once a second
/// per thread instead of on every line: the default formats all six fields on every line
/// (about 2K instructions, issue 17).
#[derive(Clone, Copy, Debug, Default)]
pub struct Clock;

/// The last second a thread wrote, and its text up to the seconds (`2026-12-02T18:27:07`).
struct Second {
    unix: u64,
    text: String,
}

thread_local! {
    static SECOND: RefCell<Second> = const {
        RefCell::new(Second { unix: u64::MAX, text: String::new() })
    };
}

/// The last second [`Clock`] writes itself (9999-12-31T23:59:59Z); later, and before 1970, the
/// default's own text is written.
const LAST_SECOND: u64 = 253_402_300_799;

impl FormatTime for Clock {
    fn format_time(&self, w: &mut Writer<'_>) -> fmt::Result {
        let since = match std::time::SystemTime::now().duration_since(UNIX_EPOCH) {
            Ok(since) if since.as_secs() <= LAST_SECOND => since,
            _ => return SystemTime.format_time(w),
        };
        SECOND.with(|second| {
            let Ok(mut second) = second.try_borrow_mut() else {
                return SystemTime.format_time(w);
            };
            let unix = since.as_secs();
            if second.unix != unix {
                second.unix = unix;
                second.text.clear();
                write_second(&mut second.text, unix)?;
            }
            w.write_str(&second.text)?;
            let mut micros = *b".000000Z";
            let mut n = since.subsec_micros();
            for digit in micros[1..7].iter_mut().rev() {
                // `n % 10` is a single digit: the cast cannot truncate.
                *digit = b'0' + (n % 10) as u8;
                n /= 10;
            }
            w.write_str(std::str::from_utf8(&micros).map_err(|_| fmt::Error)?)
        })
    }
}

/// `unix` (seconds since 1970, UTC) as `YYYY-MM-DDTHH:MM:SS`.
fn write_second(out: &mut String, unix: u64) -> fmt::Result {
    let t = i64::try_from(unix)
        .ok()
        .and_then(|unix| time::OffsetDateTime::from_unix_timestamp(unix).ok())
        .ok_or(fmt::Error)?;
    write!(
        out,
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    )
}

impl<T: FormatTime + Clone> LineFormat<T> {
    /// The format with another clock (the tests' fixed one).
    pub fn with_timer(timer: T) -> Self {
        Self {
            full: Format::default().with_timer(timer.clone()),
            timer,
        }
    }
}

impl<S, N, T> FormatEvent<S, N> for LineFormat<T>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
    T: FormatTime,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let meta = event.metadata();
        if meta.target() == TARGET && !writer.has_ansi_escapes() && ctx.event_scope().is_none() {
            let mut line = String::with_capacity(256);
            if write_request_line(
                &self.timer,
                &mut line,
                event,
                writer.sanitizes_ansi_escapes(),
            )
            .is_some()
            {
                return writer.write_str(&line);
            }
        }
        self.full.format_event(ctx, writer, event)
    }
}

/// The default format's line of `event` (no span, colours off) into `line`: the time, the
/// level, the target, the fields. `None` when a field needs what only the default path does.
fn write_request_line<T: FormatTime>(
    timer: &T,
    line: &mut String,
    event: &Event<'_>,
    sanitize: bool,
) -> Option<()> {
    let meta = event.metadata();
    if timer.format_time(&mut Writer::new(line)).is_err() {
        line.push_str("<unknown time>");
    }
    // The default format pads the level to five characters (` INFO`), then a space.
    write!(line, " {:>5} {}: ", meta.level().as_str(), meta.target()).ok()?;
    let mut fields = Fields {
        line,
        first: true,
        sanitize,
        plain: true,
    };
    event.record(&mut fields);
    if !fields.plain {
        return None;
    }
    line.push('\n');
    Some(())
}

/// The fields of a request line, written as the default format's visitor writes them:
/// separated by a space, `message` by its value alone, any other as `name=value` (`Debug`).
struct Fields<'a> {
    line: &'a mut String,
    first: bool,
    /// Whether the writer wants ANSI escapes in the message escaped (the default does).
    sanitize: bool,
    /// Every field so far was written as the default format would write it.
    plain: bool,
}

impl Fields<'_> {
    /// The separating space, and the name (`r#` dropped), for a field other than the message.
    /// `None` for the fields the default format skips (`log.*`, the `log` crate's metadata).
    fn name(&mut self, field: &Field) -> Option<()> {
        let name = field.name();
        if name.starts_with("log.") {
            return None;
        }
        self.pad();
        self.line.push_str(name.strip_prefix("r#").unwrap_or(name));
        self.line.push('=');
        Some(())
    }

    fn pad(&mut self) {
        if !std::mem::replace(&mut self.first, false) {
            self.line.push(' ');
        }
    }
}

/// Characters the default format escapes in a message when it sanitizes ANSI escapes.
fn sanitized(c: char) -> bool {
    matches!(
        c,
        '\x1b' | '\x07' | '\x08' | '\x0c' | '\x7f' | '\u{80}'..='\u{9f}'
    )
}

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        // `Debug` of a string copies printable ASCII other than `"` and `\` as it is.
        let as_is = value
            .bytes()
            .all(|b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\');
        if field.name() == "message" || !as_is {
            // The default format's own rules (the message unquoted, escapes).
            return self.record_debug(field, &value);
        }
        if self.name(field).is_some() {
            self.line.push('"');
            self.line.push_str(value);
            self.line.push('"');
        }
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        // `Debug` of an integer is its decimal digits, as `Display` writes them.
        if self.name(field).is_some() && write!(self.line, "{value}").is_err() {
            self.plain = false;
        }
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        if self.name(field).is_some() && write!(self.line, "{value}").is_err() {
            self.plain = false;
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if field.name() == "message" {
            self.pad();
            let from = self.line.len();
            if write!(self.line, "{value:?}").is_err()
                || (self.sanitize && self.line[from..].chars().any(sanitized))
            {
                self.plain = false;
            }
            return;
        }
        if self.name(field).is_some() && write!(self.line, "{value:?}").is_err() {
            self.plain = false;
        }
    }

    fn record_error(&mut self, _field: &Field, _value: &(dyn std::error::Error + 'static)) {
        // An error's sources have a form of their own: the default path writes it.
        self.plain = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io;
    use std::sync::{Arc, Mutex};

    /// A clock that always says the same, so that two formats' lines can be compared.
    #[derive(Clone)]
    struct Fixed;
    impl FormatTime for Fixed {
        fn format_time(&self, w: &mut Writer<'_>) -> fmt::Result {
            w.write_str("2026-12-02T18:00:00.000000Z")
        }
    }

    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);
    impl io::Write for Buffer {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0.lock().expect("buffer").extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Buffer {
        type Writer = Buffer;
        fn make_writer(&'a self) -> Buffer {
            self.clone()
        }
    }

    /// The events a server logs: request lines of every shape, and lines of other targets.
    fn log_everything() {
        let names = [
            "billing_invoices_list",
            "",
            "kobana://banking/accounts/42",
            "a \"quoted\" name",
            "back\\slash",
            "line\nbreak\tand tab",
            "ação €",
            "esc \x1b[31m red",
            "c1 \u{85} next line",
            "zero \0 byte",
            "combining e\u{301}",
        ];
        for (i, name) in names.iter().enumerate() {
            let ip = if i % 2 == 0 { "127.0.0.1" } else { "" };
            tracing::info!(
                target: TARGET,
                method = "tools/call",
                name = *name,
                duration_us = 1234u64 * i as u64,
                outcome = "ok",
                code = "",
                client_ip = ip,
                "request"
            );
        }
        tracing::info!(target: TARGET, method = "x", duration_us = u64::MAX, outcome = "refused",
            code = "429", "request");
        tracing::info!(target: TARGET, signed = -5i64, flag = true, ratio = 0.5f64, "request");
        tracing::info!(target: TARGET, r#type = "raw name", "request");
        tracing::info!(target: TARGET, "a message with \x1b escape");
        tracing::warn!(target: TARGET, shown = %"display \"value\"", "request");
        let e = io::Error::other("disk full");
        tracing::error!(target: TARGET, error = &e as &(dyn std::error::Error + 'static), "request");
        tracing::info!(target: "kobana_mcp::other", method = "tools/call", "another line");
        tracing::warn!(error = "boom", "a warning");
    }

    fn render(
        format: impl FormatEvent<
                tracing_subscriber::Registry,
                tracing_subscriber::fmt::format::DefaultFields,
            > + Send
            + Sync
            + 'static,
    ) -> String {
        let out = Buffer::default();
        let subscriber = tracing_subscriber::fmt()
            .with_ansi(false)
            .with_writer(out.clone())
            .event_format(format)
            .finish();
        tracing::subscriber::with_default(subscriber, log_everything);
        let bytes = out.0.lock().expect("buffer").clone();
        String::from_utf8(bytes).expect("UTF-8 lines")
    }

    /// [`write_second`] against the `time` crate, on days that trip calendars up.
    #[test]
    fn the_clock_writes_the_civil_date_and_time_of_a_second() {
        let days = [
            0i64, 59, 60, 365, 10_957, 11_016, 11_017, 19_417, 20_789, 47_540, 47_541,
        ];
        let seconds = days
            .iter()
            .flat_map(|d| [0, 1, 3_599, 86_399].map(|s| d * 86_400 + s))
            .chain([1_764_702_427, super::LAST_SECOND as i64]);
        for unix in seconds {
            let mut ours = String::new();
            write_second(&mut ours, unix as u64).expect("written");
            let t = time::OffsetDateTime::from_unix_timestamp(unix).expect("a time");
            let want = format!(
                "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
                t.year(),
                u8::from(t.month()),
                t.day(),
                t.hour(),
                t.minute(),
                t.second()
            );
            assert_eq!(ours, want, "{unix}");
        }
    }

    /// [`Clock`] writes what the default clock writes, to the second and in the same shape (the
    /// microseconds of two readings differ).
    #[test]
    fn the_clock_writes_the_default_clocks_text() {
        let read = |clock: &dyn FormatTime| {
            let mut text = String::new();
            clock
                .format_time(&mut Writer::new(&mut text))
                .expect("time");
            text
        };
        for _ in 0..3 {
            // Twice, so that the second reading comes from the cached second.
            let (a, b, default) = (read(&Clock), read(&Clock), read(&SystemTime));
            if a[..19] != default[..19] || b[..19] != default[..19] {
                continue; // a second began between the readings
            }
            for ours in [a, b] {
                assert_eq!(ours.len(), default.len(), "{ours} / {default}");
                assert_eq!(ours.as_bytes()[19], b'.');
                assert!(ours[20..26].bytes().all(|c| c.is_ascii_digit()), "{ours}");
                assert!(ours.ends_with('Z'));
            }
            return;
        }
        panic!("three readings in a row straddled a second");
    }

    #[test]
    fn request_lines_are_the_default_formats_lines_byte_for_byte() {
        let ours = render(LineFormat::with_timer(Fixed));
        let default = render(Format::default().with_timer(Fixed));
        assert_eq!(ours.lines().count(), 19, "{ours}");
        for (o, d) in ours.lines().zip(default.lines()) {
            assert_eq!(o, d);
        }
        assert_eq!(ours, default);
        // The plain request line, as an operator reads it.
        assert!(ours.starts_with(
            "2026-12-02T18:00:00.000000Z  INFO kobana_mcp::request: request method=\"tools/call\" \
             name=\"billing_invoices_list\" duration_us=0 outcome=\"ok\" code=\"\" \
             client_ip=\"127.0.0.1\"\n"
        ));
    }
}
