//! The codes a view draws, encoded here so that the page only paints modules: a billet's barcode
//! (Interleaved 2 of 5, the FEBRABAN layout's symbology) and a Pix charge's QR code (by the
//! `qrcode` crate). Both come out as strings of modules, `1` dark and `0` light.

use qrcode::{EcLevel, QrCode};
use runtime_model::views::CodeFormat;
use serde_json::{json, Value};

/// Bars and spaces of each digit in Interleaved 2 of 5: `true` is wide.
const ITF_DIGITS: [[bool; 5]; 10] = [
    [false, false, true, true, false],
    [true, false, false, false, true],
    [false, true, false, false, true],
    [true, true, false, false, false],
    [false, false, true, false, true],
    [true, false, true, false, false],
    [false, true, true, false, false],
    [false, false, false, true, true],
    [true, false, false, true, false],
    [false, true, false, true, false],
];

/// Modules of a wide element (a narrow one is one module): 3, the ratio billets print.
const WIDE: usize = 3;

/// The modules of `digits` in Interleaved 2 of 5 (start, pairs of digits — the first in the
/// bars, the second in the spaces —, stop); `None` unless an even number of digits.
pub fn itf(digits: &str) -> Option<String> {
    let d: Vec<usize> = digits
        .bytes()
        .map(|b| b.is_ascii_digit().then(|| usize::from(b - b'0')))
        .collect::<Option<_>>()?;
    if d.is_empty() || !d.len().is_multiple_of(2) {
        return None;
    }
    let mut out = String::from("1010");
    let mut put = |dark: bool, wide: bool| {
        let c = if dark { '1' } else { '0' };
        for _ in 0..if wide { WIDE } else { 1 } {
            out.push(c);
        }
    };
    for pair in d.chunks(2) {
        for (bar, space) in ITF_DIGITS[pair[0]].iter().zip(ITF_DIGITS[pair[1]]) {
            put(true, *bar);
            put(false, space);
        }
    }
    put(true, true);
    put(false, false);
    put(true, false);
    Some(out)
}

/// A QR code of `text` (error correction M): its width and its modules, row by row.
pub fn qr(text: &str) -> Option<(usize, String)> {
    let code = QrCode::with_error_correction_level(text.as_bytes(), EcLevel::M).ok()?;
    let modules = code
        .to_colors()
        .into_iter()
        .map(|c| if c == qrcode::Color::Dark { '1' } else { '0' })
        .collect();
    Some((code.width(), modules))
}

/// The drawing of `value` in `format`, as a view reads it: `{format, modules}` (and `width` for
/// a QR code); `None` for a value that cannot be drawn.
pub fn draw(format: CodeFormat, value: &str) -> Option<Value> {
    match format {
        CodeFormat::Itf => itf(value).map(|m| json!({"format": "itf", "modules": m})),
        CodeFormat::Qr => qr(value).map(|(w, m)| json!({"format": "qr", "width": w, "modules": m})),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads Interleaved 2 of 5 modules back into digits: the runs after the start, five bars
    /// and five spaces per pair, wide when longer than one module. Written from the symbology,
    /// not from the encoder's table.
    fn decode_itf(modules: &str) -> Option<String> {
        let rest = modules.strip_prefix("1010")?;
        let mut runs: Vec<usize> = Vec::new();
        let bytes = rest.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let mut j = i;
            while j < bytes.len() && bytes[j] == bytes[i] {
                j += 1;
            }
            runs.push(j - i);
            i = j;
        }
        // The stop: wide bar, narrow space, narrow bar.
        let stop = runs.split_off(runs.len().checked_sub(3)?);
        if stop != [WIDE, 1, 1] || !runs.len().is_multiple_of(10) {
            return None;
        }
        // Each digit has exactly two wide elements: its value is the weights 1,2,4,7,0 of the
        // wide places (with 4+7 meaning 0).
        let value = |wide: [bool; 5]| -> Option<char> {
            let sum: u32 = [1, 2, 4, 7, 0]
                .iter()
                .zip(wide)
                .filter(|(_, w)| *w)
                .map(|(v, _)| v)
                .sum();
            if wide.iter().filter(|w| **w).count() != 2 {
                return None;
            }
            char::from_digit(if sum == 11 { 0 } else { sum }, 10)
        };
        let mut out = String::new();
        for chunk in runs.chunks(10) {
            let bars: [bool; 5] = std::array::from_fn(|k| chunk[2 * k] > 1);
            let spaces: [bool; 5] = std::array::from_fn(|k| chunk[2 * k + 1] > 1);
            out.push(value(bars)?);
            out.push(value(spaces)?);
        }
        Some(out)
    }

    #[test]
    fn itf_modules_read_back_as_the_digits() {
        for digits in [
            "00",
            "0123456789",
            "34191790010104351004791020150008291070026000",
            "23793381286000000012345678901234567890123456",
        ] {
            let m = itf(digits).expect("even digits");
            assert_eq!(decode_itf(&m).as_deref(), Some(digits), "{digits}");
            assert!(m.starts_with("1010") && m.ends_with("11101"));
            // 44 digits: start, 22 pairs of 2×(2 wide + 3 narrow), stop.
            assert_eq!(
                m.len(),
                4 + digits.len() / 2 * 2 * (2 * WIDE + 3) + WIDE + 2
            );
        }
    }

    #[test]
    fn itf_refuses_what_it_cannot_draw() {
        assert_eq!(itf("123"), None);
        assert_eq!(itf(""), None);
        assert_eq!(itf("12a4"), None);
    }

    #[test]
    fn a_qr_code_is_square_with_its_finder_patterns() {
        let (w, m) = qr("00020101021226").expect("drawn");
        assert_eq!(m.len(), w * w);
        assert_eq!((w - 17) % 4, 0, "a QR width is 17 + 4 × version");
        // The top-left finder pattern: a dark 7×7 ring around a light ring and a dark 3×3.
        let at = |x: usize, y: usize| m.as_bytes()[y * w + x] == b'1';
        assert!((0..7).all(|i| at(i, 0) && at(0, i) && at(i, 6) && at(6, i)));
        assert!((1..6).all(|i| !at(i, 1) && !at(1, i)));
        assert!((2..5).all(|x| (2..5).all(|y| at(x, y))));
    }
}
