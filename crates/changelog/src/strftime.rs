//! Release dates: the `date` parameter (a date or an ISO 8601 time, as Grape's `DateTime`
//! coercion reads it) and Ruby's `DateTime#strftime`, which formats it with `date_format`.
//!
//! Directives follow Ruby: `%Y %C %y %m %B %b %h %d %e %j %H %k %I %l %P %p %M %S %L %N %z %:z
//! %::z %Z %A %a %u %w %G %g %V %U %W %s %Q %n %t %% %c %D %x %F %T %X %R %r %v %+`, with the flags
//! `-` (no padding), `_` (spaces), `0` (zeros), `^` (upper case), `#` (swap case) and a width.
//! An unknown directive is copied as it is, as Ruby does. Widths are capped at [`MAX_WIDTH`]; a
//! wider one is copied as text too.
use forgecore_date::{civil_from_days, days_from_civil, days_in_month, is_leap_year};
use forgecore_date::{MONTHS, WEEKDAYS as DAYS};

pub const MAX_WIDTH: usize = 1024;

/// A moment with its UTC offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateTime {
    /// Seconds since the Unix epoch (UTC).
    pub seconds: i64,
    pub nanos: u32,
    /// Offset east of UTC, in seconds.
    pub offset: i32,
}

fn digits(text: &str, at: usize, n: usize) -> Option<u32> {
    let part = text.get(at..at + n)?;
    if part.bytes().all(|b| b.is_ascii_digit()) {
        part.parse().ok()
    } else {
        None
    }
}

impl DateTime {
    pub fn now() -> DateTime {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        DateTime { seconds: now.as_secs() as i64, nanos: now.subsec_nanos(), offset: 0 }
    }

    /// `YYYY-MM-DD` (midnight UTC) or `YYYY-MM-DD[T ]HH:MM[:SS[.fraction]][Z|±HH[:MM]|±HHMM]`
    /// (UTC when no offset is given). `None` for anything else or an impossible date.
    pub fn parse(text: &str) -> Option<DateTime> {
        let text = text.trim();
        if text.len() < 10 || !text.is_char_boundary(10) {
            return None;
        }
        let (date, rest) = text.split_at(10);
        let b = date.as_bytes();
        if b[4] != b'-' || b[7] != b'-' {
            return None;
        }
        let year = i64::from(digits(date, 0, 4)?);
        let (month, day) = (digits(date, 5, 2)?, digits(date, 8, 2)?);
        if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
            return None;
        }
        let (mut hour, mut minute, mut second, mut nanos, mut offset) = (0, 0, 0, 0u32, 0i32);
        if !rest.is_empty() {
            let time = rest.strip_prefix(['T', 't', ' '])?;
            hour = digits(time, 0, 2)?;
            if time.as_bytes().get(2) != Some(&b':') {
                return None;
            }
            minute = digits(time, 3, 2)?;
            let mut at = 5;
            if time.as_bytes().get(at) == Some(&b':') {
                second = digits(time, at + 1, 2)?;
                at += 3;
                if matches!(time.as_bytes().get(at), Some(b'.' | b',')) {
                    let fraction: String = time[at + 1..].chars().take_while(|c| c.is_ascii_digit()).collect();
                    if fraction.is_empty() {
                        return None;
                    }
                    at += 1 + fraction.len();
                    let padded: String = fraction.chars().chain(std::iter::repeat('0')).take(9).collect();
                    nanos = padded.parse().ok()?;
                }
            }
            let zone = &time[at..];
            offset = match zone {
                "" | "Z" | "z" => 0,
                _ => {
                    let sign = match zone.as_bytes()[0] {
                        b'+' => 1,
                        b'-' => -1,
                        _ => return None,
                    };
                    let body = &zone[1..];
                    let (h, m) = match body.len() {
                        2 => (digits(body, 0, 2)?, 0),
                        4 => (digits(body, 0, 2)?, digits(body, 2, 2)?),
                        5 if body.as_bytes()[2] == b':' => (digits(body, 0, 2)?, digits(body, 3, 2)?),
                        _ => return None,
                    };
                    if h > 23 || m > 59 {
                        return None;
                    }
                    sign * (h as i32 * 3600 + m as i32 * 60)
                }
            };
            if hour > 23 || minute > 59 || second > 59 {
                return None;
            }
        }
        let local = days_from_civil(year, month, day) * 86_400
            + i64::from(hour) * 3600
            + i64::from(minute) * 60
            + i64::from(second);
        Some(DateTime { seconds: local - i64::from(offset), nanos, offset })
    }

    /// The civil fields at the own offset.
    fn fields(&self) -> Fields {
        let local = self.seconds + i64::from(self.offset);
        let days = local.div_euclid(86_400);
        let secs = local.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        let yday = (days - days_from_civil(year, 1, 1)) as u32 + 1;
        let wday = (days + 4).rem_euclid(7) as u32; // 1970-01-01 was a Thursday
        Fields {
            year,
            month,
            day,
            yday,
            wday,
            hour: (secs / 3600) as u32,
            minute: (secs % 3600 / 60) as u32,
            second: (secs % 60) as u32,
        }
    }
}

struct Fields {
    year: i64,
    month: u32,
    day: u32,
    yday: u32,
    wday: u32,
    hour: u32,
    minute: u32,
    second: u32,
}

/// ISO 8601 week-based year and week number: the week is the one holding its Thursday.
fn iso_week(f: &Fields) -> (i64, u32) {
    let days_in = |year: i64| if is_leap_year(year) { 366 } else { 365 };
    let monday_based = i64::from((f.wday + 6) % 7);
    let thursday = i64::from(f.yday) - monday_based + 3;
    if thursday < 1 {
        let yday = thursday + days_in(f.year - 1);
        (f.year - 1, ((yday - 1) / 7 + 1) as u32)
    } else if thursday > days_in(f.year) {
        (f.year + 1, 1)
    } else {
        (f.year, ((thursday - 1) / 7 + 1) as u32)
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Pad {
    Default,
    None,
    Space,
    Zero,
}

#[derive(Clone, Copy)]
struct Spec {
    pad: Pad,
    upper: bool,
    swap: bool,
    width: Option<usize>,
}

impl Spec {
    fn number(&self, out: &mut String, value: i64, default_width: usize, default_pad: char) {
        let width = self.width.unwrap_or(default_width);
        let pad = match self.pad {
            Pad::None => None,
            Pad::Space => Some(' '),
            Pad::Zero => Some('0'),
            Pad::Default => Some(default_pad),
        };
        let digits = value.unsigned_abs().to_string();
        let sign = if value < 0 { "-" } else { "" };
        let len = sign.len() + digits.len();
        match pad {
            Some('0') if len < width => {
                out.push_str(sign);
                out.extend(std::iter::repeat_n('0', width - len));
                out.push_str(&digits);
            }
            Some(c) if len < width => {
                out.extend(std::iter::repeat_n(c, width - len));
                out.push_str(sign);
                out.push_str(&digits);
            }
            _ => {
                out.push_str(sign);
                out.push_str(&digits);
            }
        }
    }

    fn text(&self, out: &mut String, text: &str) {
        let text = if self.upper {
            text.to_uppercase()
        } else if self.swap {
            text.chars()
                .map(|c| if c.is_lowercase() { c.to_ascii_uppercase() } else { c.to_ascii_lowercase() })
                .collect()
        } else {
            text.to_string()
        };
        let len = text.chars().count();
        if let Some(width) = self.width.filter(|w| *w > len && self.pad != Pad::None) {
            let c = if self.pad == Pad::Zero { '0' } else { ' ' };
            out.extend(std::iter::repeat_n(c, width - len));
        }
        out.push_str(&text);
    }
}

/// Ruby's `strftime(format)` of `at`.
pub fn strftime(at: &DateTime, format: &str) -> String {
    strftime_within(at, format, usize::MAX).unwrap_or_default()
}

/// Ruby's `strftime(format)` of `at`, or `None` as soon as it passes `max` bytes. A format of
/// 1 MB can ask for far more than that (`%1024Y` repeated is 170 times its size): the text
/// stops growing at the bound, within one directive's width of it.
pub fn strftime_within(at: &DateTime, format: &str, max: usize) -> Option<String> {
    let f = at.fields();
    let mut out = String::with_capacity(format.len().min(max) + 16);
    let mut rest = format;
    while let Some(percent) = rest.find('%') {
        out.push_str(&rest[..percent]);
        let directive = &rest[percent..];
        match expand(at, &f, directive, &mut out) {
            Some(used) => rest = &directive[used..],
            None => {
                out.push('%');
                rest = &directive[1..];
            }
        }
        if out.len() > max {
            return None;
        }
    }
    out.push_str(rest);
    (out.len() <= max).then_some(out)
}

/// Expands the directive at the start of `directive` (which starts with `%`); the number of
/// bytes used, or `None` when it is not a directive (the `%` is then literal).
fn expand(at: &DateTime, f: &Fields, directive: &str, out: &mut String) -> Option<usize> {
    let bytes = directive.as_bytes();
    let mut i = 1;
    let mut spec = Spec { pad: Pad::Default, upper: false, swap: false, width: None };
    while let Some(&b) = bytes.get(i) {
        match b {
            b'-' => spec.pad = Pad::None,
            b'_' => spec.pad = Pad::Space,
            b'0' => spec.pad = Pad::Zero,
            b'^' => spec.upper = true,
            b'#' => spec.swap = true,
            _ => break,
        }
        i += 1;
    }
    let width_start = i;
    while bytes.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    if i > width_start {
        let width: usize = directive[width_start..i].parse().unwrap_or(usize::MAX);
        if width > MAX_WIDTH {
            return None;
        }
        spec.width = Some(width);
    }
    let mut colons = 0;
    while bytes.get(i) == Some(&b':') {
        colons += 1;
        i += 1;
    }
    let conversion = *bytes.get(i)?;
    if colons > 0 && conversion != b'z' {
        return None;
    }
    let offset = at.offset;
    match conversion {
        b'Y' => {
            if f.year >= 0 && spec.width.is_none() {
                spec.number(out, f.year, 4, '0')
            } else {
                spec.number(out, f.year, 0, '0')
            }
        }
        b'C' => spec.number(out, f.year.div_euclid(100), 2, '0'),
        b'y' => spec.number(out, f.year.rem_euclid(100), 2, '0'),
        b'm' => spec.number(out, i64::from(f.month), 2, '0'),
        b'B' => spec.text(out, MONTHS[f.month as usize - 1]),
        b'b' | b'h' => spec.text(out, &MONTHS[f.month as usize - 1][..3]),
        b'd' => spec.number(out, i64::from(f.day), 2, '0'),
        b'e' => spec.number(out, i64::from(f.day), 2, ' '),
        b'j' => spec.number(out, i64::from(f.yday), 3, '0'),
        b'H' => spec.number(out, i64::from(f.hour), 2, '0'),
        b'k' => spec.number(out, i64::from(f.hour), 2, ' '),
        b'I' => spec.number(out, i64::from((f.hour + 11) % 12 + 1), 2, '0'),
        b'l' => spec.number(out, i64::from((f.hour + 11) % 12 + 1), 2, ' '),
        b'P' => spec.text(out, if f.hour < 12 { "am" } else { "pm" }),
        b'p' => {
            let text = if f.hour < 12 { "AM" } else { "PM" };
            if spec.swap {
                spec.swap = false;
                spec.text(out, &text.to_lowercase())
            } else {
                spec.text(out, text)
            }
        }
        b'M' => spec.number(out, i64::from(f.minute), 2, '0'),
        b'S' => spec.number(out, i64::from(f.second), 2, '0'),
        b'L' | b'N' => {
            let n = spec.width.unwrap_or(if conversion == b'L' { 3 } else { 9 });
            let nanos = format!("{:09}", at.nanos);
            let text: String = nanos.chars().chain(std::iter::repeat('0')).take(n).collect();
            out.push_str(&text);
        }
        b'z' => {
            let sign = if offset < 0 { '-' } else { '+' };
            let abs = offset.unsigned_abs();
            let (h, m, s) = (abs / 3600, abs % 3600 / 60, abs % 60);
            let body = match colons {
                0 => format!("{h:02}{m:02}"),
                1 => format!("{h:02}:{m:02}"),
                2 => format!("{h:02}:{m:02}:{s:02}"),
                _ => return None,
            };
            let text = format!("{sign}{body}");
            spec.text(out, &text);
        }
        b'Z' => {
            let sign = if offset < 0 { '-' } else { '+' };
            let abs = offset.unsigned_abs();
            spec.text(out, &format!("{sign}{:02}:{:02}", abs / 3600, abs % 3600 / 60));
        }
        b'A' => spec.text(out, DAYS[f.wday as usize]),
        b'a' => spec.text(out, &DAYS[f.wday as usize][..3]),
        b'u' => spec.number(out, i64::from(if f.wday == 0 { 7 } else { f.wday }), 1, '0'),
        b'w' => spec.number(out, i64::from(f.wday), 1, '0'),
        b'G' => spec.number(out, iso_week(f).0, 4, '0'),
        b'g' => spec.number(out, iso_week(f).0.rem_euclid(100), 2, '0'),
        b'V' => spec.number(out, i64::from(iso_week(f).1), 2, '0'),
        b'U' => spec.number(out, i64::from((f.yday + 6 - f.wday) / 7), 2, '0'),
        b'W' => spec.number(out, i64::from((f.yday + 6 - (f.wday + 6) % 7) / 7), 2, '0'),
        b's' => spec.number(out, at.seconds, 1, '0'),
        b'Q' => spec.number(out, at.seconds * 1000 + i64::from(at.nanos / 1_000_000), 1, '0'),
        b'n' => out.push('\n'),
        b't' => out.push('\t'),
        b'%' => out.push('%'),
        b'c' => composite(at, "%a %b %e %H:%M:%S %Y", &spec, out),
        b'D' | b'x' => composite(at, "%m/%d/%y", &spec, out),
        b'F' => composite(at, "%Y-%m-%d", &spec, out),
        b'T' | b'X' => composite(at, "%H:%M:%S", &spec, out),
        b'R' => composite(at, "%H:%M", &spec, out),
        b'r' => composite(at, "%I:%M:%S %p", &spec, out),
        b'v' => composite(at, "%e-%^b-%Y", &spec, out),
        b'+' => composite(at, "%a %b %e %H:%M:%S %Z %Y", &spec, out),
        _ => return None,
    }
    Some(i + 1)
}

fn composite(at: &DateTime, format: &str, spec: &Spec, out: &mut String) {
    let text = strftime(at, format);
    let plain = Spec { pad: if spec.pad == Pad::Zero { Pad::Space } else { spec.pad }, ..*spec };
    plain.text(out, &text);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_dates_and_times() {
        let d = DateTime::parse("2024-01-02").unwrap();
        assert_eq!((d.seconds, d.offset), (1_704_153_600, 0));
        let t = DateTime::parse("2024-01-02T10:00:00+02:00").unwrap();
        assert_eq!((t.seconds, t.offset), (1_704_153_600 + 8 * 3600, 7200));
        assert_eq!(DateTime::parse("2024-01-02T10:00:00.5Z").unwrap().nanos, 500_000_000);
        assert!(DateTime::parse("2024-02-30").is_none());
        assert!(DateTime::parse("2020-13-45").is_none());
        assert!(DateTime::parse("yesterday").is_none());
        assert!(DateTime::parse("99999-01-01").is_none());
        assert!(DateTime::parse("2024-01-02T25:00").is_none());
        assert!(DateTime::parse("2024-02-29").is_some());
    }

    #[test]
    fn formats_like_ruby() {
        let t = DateTime::parse("2021-01-05T09:07:03+05:30").unwrap();
        assert_eq!(strftime(&t, "%Y-%m-%d"), "2021-01-05");
        assert_eq!(strftime(&t, "%B %-d, %Y"), "January 5, 2021");
        assert_eq!(
            strftime(&t, "%e|%_m|%-m|%^a|%j|%I%p|%l%P|%z|%:z|%y|%C"),
            " 5| 1|1|TUE|005|09AM| 9am|+0530|+05:30|21|20"
        );
        assert_eq!(
            strftime(&t, "%F %T %% %s %Q %c"),
            "2021-01-05 09:07:03 % 1609817823 1609817823000 Tue Jan  5 09:07:03 2021"
        );
        assert_eq!(strftime(&t, "%10Y|%-5d|%3N|%u%w|%H:%M:%S"), "0000002021|5|000|22|09:07:03");
        assert_eq!(strftime(&t, "%V %G %U %W"), "01 2021 01 01");
        assert_eq!(strftime_within(&t, "%Y-%m-%d", 10).as_deref(), Some("2021-01-05"));
        assert_eq!(strftime_within(&t, "%Y-%m-%d", 9), None);
        assert_eq!(strftime_within(&t, &"%1024Y".repeat(100_000), 4096), None, "stops at the bound");
        let jan1 = DateTime::parse("2021-01-01").unwrap();
        assert_eq!(strftime(&jan1, "%V %G %a"), "53 2020 Fri");
        let dec31 = DateTime::parse("2024-12-31").unwrap();
        assert_eq!(strftime(&dec31, "%V %G"), "01 2025");
    }
}
