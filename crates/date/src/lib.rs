//! Civil-date arithmetic in one place, for the core and both engines: days since the Unix epoch
//! to a proleptic Gregorian date and back (Howard Hinnant's algorithms), the calendar facts
//! they rest on (and the English month and weekday names), and git timestamps as RFC 3339 text with the commit's own offset
//! (`2024-01-02T10:00:00.000+02:00`, the form GitLab answers and Go's `time.Time` parses).
//!
//! Users: `forgecore` (commit and report times), `forgecore-changelog` (release dates and
//! `strftime`), `forgecore-archive` (zip's MS-DOS times). It has no dependencies, and no time
//! zone database: every offset is given.

/// English month names, January first (what `strftime` and git's dates print).
pub const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// English weekday names, Sunday first (weekday 0, as `struct tm` counts).
pub const WEEKDAYS: [&str; 7] = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/// Days since 1970-01-01 to a civil date `(year, month, day)`.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Days since 1970-01-01 of a civil date; the inverse of [`civil_from_days`].
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

pub fn is_leap_year(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// Days in `month` (1-12) of `year`.
pub fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if is_leap_year(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `seconds` since the epoch shown at `offset_seconds` east of UTC.
pub fn rfc3339(seconds: i64, offset_seconds: i32) -> String {
    let local = seconds.saturating_add(i64::from(offset_seconds));
    let (days, secs) = (local.div_euclid(86_400), local.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    let sign = if offset_seconds < 0 { '-' } else { '+' };
    let offset = offset_seconds.unsigned_abs();
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.000{sign}{:02}:{:02}",
        secs / 3600,
        secs % 3600 / 60,
        secs % 60,
        offset / 3600,
        offset % 3600 / 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_with_the_commits_own_offset() {
        assert_eq!(rfc3339(0, 0), "1970-01-01T00:00:00.000+00:00");
        assert_eq!(rfc3339(1_704_189_600, 7200), "2024-01-02T12:00:00.000+02:00");
        assert_eq!(rfc3339(1_704_189_600, -19_800), "2024-01-02T04:30:00.000-05:30");
        assert_eq!(rfc3339(951_825_600, 0), "2000-02-29T12:00:00.000+00:00");
        assert_eq!(rfc3339(-86_400, 0), "1969-12-31T00:00:00.000+00:00");
    }

    #[test]
    fn days_and_dates_convert_both_ways() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        // Every day from 1600 to 2400, and the calendar facts agree with the conversion.
        for days in days_from_civil(1600, 1, 1)..days_from_civil(2400, 1, 1) {
            let (year, month, day) = civil_from_days(days);
            assert_eq!(days_from_civil(year, month, day), days);
            assert!((1..=days_in_month(year, month)).contains(&day));
            let next = civil_from_days(days + 1);
            assert_eq!(next.1 != month, day == days_in_month(year, month), "{year}-{month}-{day}");
        }
        assert!(is_leap_year(2000) && is_leap_year(2024) && !is_leap_year(1900) && !is_leap_year(2023));
    }
}
