//! Civil-date arithmetic in one place, for the core and both engines: days since the Unix epoch
//! to a civil date, and git timestamps as RFC 3339 text with the commit's own offset
//! (`2024-01-02T10:00:00.000+02:00`, the form GitLab answers and Go's `time.Time` parses).
//! No dependencies.

/// Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
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
    use super::rfc3339;

    #[test]
    fn formats_with_the_commits_own_offset() {
        assert_eq!(rfc3339(0, 0), "1970-01-01T00:00:00.000+00:00");
        assert_eq!(rfc3339(1_704_189_600, 7200), "2024-01-02T12:00:00.000+02:00");
        assert_eq!(rfc3339(1_704_189_600, -19_800), "2024-01-02T04:30:00.000-05:30");
        assert_eq!(rfc3339(951_825_600, 0), "2000-02-29T12:00:00.000+00:00");
        assert_eq!(rfc3339(-86_400, 0), "1969-12-31T00:00:00.000+00:00");
    }
}
