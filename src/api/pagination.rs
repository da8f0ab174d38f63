//! Offset pagination as GitLab does it: `page` and `per_page` parameters; `X-Page`,
//! `X-Per-Page`, `X-Next-Page`, `X-Prev-Page`, `X-Total`, `X-Total-Pages` headers; and a `Link`
//! header of absolute URLs that repeat every request parameter, with `,` and `;` encoded so that
//! naive `Link` parsers (the Go client's) do not split inside a URL.

use super::Call;
use crate::error::{ApiError, ApiResult};
use crate::params::Params;
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

/// Characters kept as they are in a query component of a link: RFC 3986 unreserved ones.
const QUERY_VALUE: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    /// 1-based.
    pub page: usize,
    pub per_page: usize,
}

impl Page {
    pub fn offset(&self) -> usize {
        (self.page - 1).saturating_mul(self.per_page)
    }
}

/// `per_page` alone: the default when absent, clamped to the maximum, 400 below 1.
pub fn per_page(call: &Call, params: &Params) -> ApiResult<usize> {
    let limits = &call.ctx.config.limits;
    match params.int("per_page")? {
        None => Ok(limits.per_page_default as usize),
        Some(n) if n < 1 => Err(ApiError::InvalidValue("per_page".into())),
        Some(n) => Ok(n.min(i64::from(limits.per_page_max)) as usize),
    }
}

/// `page` and `per_page`; a page below 1 is the first page, as Kaminari reads it.
pub fn page(call: &Call, params: &Params) -> ApiResult<Page> {
    let per_page = per_page(call, params)?;
    let page = params.int("page")?.unwrap_or(1).clamp(1, i64::from(u32::MAX)) as usize;
    Ok(Page { page, per_page })
}

/// The absolute URL of the current request with `overrides` set (replacing any previous value
/// of those names) and every other parameter repeated.
pub fn link_url(call: &Call, overrides: &[(&str, String)]) -> String {
    let mut pairs: Vec<(String, String)> =
        call.origin.query.iter().filter(|(name, _)| !overrides.iter().any(|(o, _)| o == name)).cloned().collect();
    pairs.extend(overrides.iter().map(|(name, value)| (name.to_string(), value.clone())));
    let query: Vec<String> = pairs
        .iter()
        .map(|(name, value)| {
            format!("{}={}", utf8_percent_encode(name, QUERY_VALUE), utf8_percent_encode(value, QUERY_VALUE))
        })
        .collect();
    format!("{}/api/v4{}?{}", call.base_url, call.origin.path, query.join("&"))
}

/// The offset headers for `page` of a list of `total` items. `defaults` are parameters the
/// links must carry even when the client did not send them (GitLab repeats defaults too).
pub fn offset_headers(call: &Call, page: Page, total: usize, defaults: &[(&str, String)]) -> Vec<(String, String)> {
    let total_pages = total.div_ceil(page.per_page).max(1);
    let next = (page.page < total_pages).then(|| page.page + 1);
    let prev = (page.page > 1).then(|| (page.page - 1).min(total_pages));
    page_headers(call, page, next, prev, Some((total, total_pages)), defaults)
}

/// The offset headers of a list GitLab pages without counting it (`paginate_without_count`,
/// as the commits list does): `size` items on `page`. No `X-Total`, `X-Total-Pages` or
/// `rel="last"`; `X-Next-Page` and `rel="next"` exactly when the page is full (GitLab takes
/// `offset + size + 1` as the total).
pub fn headers_without_total(call: &Call, page: Page, size: usize) -> Vec<(String, String)> {
    let next = (size >= page.per_page).then(|| page.page + 1);
    let prev = (page.page > 1).then(|| page.page - 1);
    page_headers(call, page, next, prev, None, &[])
}

/// GitLab's offset headers, in its order: the page, its neighbours and, for a counted list
/// (`counted`: the total and the number of pages), the totals; `Link` with `prev`, `next`,
/// `first` and, when counted, `last`.
fn page_headers(
    call: &Call,
    page: Page,
    next: Option<usize>,
    prev: Option<usize>,
    counted: Option<(usize, usize)>,
    defaults: &[(&str, String)],
) -> Vec<(String, String)> {
    let link = |target: usize, rel: &str| {
        let mut overrides: Vec<(&str, String)> =
            defaults.iter().filter(|(name, _)| !call.origin.query.iter().any(|(q, _)| q == name)).cloned().collect();
        overrides.push(("page", target.to_string()));
        overrides.push(("per_page", page.per_page.to_string()));
        format!("<{}>; rel=\"{rel}\"", link_url(call, &overrides))
    };
    let mut links = Vec::new();
    if let Some(prev) = prev {
        links.push(link(prev, "prev"));
    }
    if let Some(next) = next {
        links.push(link(next, "next"));
    }
    links.push(link(1, "first"));
    if let Some((_, total_pages)) = counted {
        links.push(link(total_pages, "last"));
    }
    let text = |n: Option<usize>| n.map(|n| n.to_string()).unwrap_or_default();
    let mut headers = vec![
        ("X-Page".into(), page.page.to_string()),
        ("X-Per-Page".into(), page.per_page.to_string()),
        ("X-Next-Page".into(), text(next)),
        ("X-Prev-Page".into(), text(prev)),
    ];
    if let Some((total, total_pages)) = counted {
        headers.push(("X-Total".into(), total.to_string()));
        headers.push(("X-Total-Pages".into(), total_pages.to_string()));
    }
    headers.push(("Link".into(), links.join(", ")));
    headers
}

/// The `pagination` parameter: offset (`legacy`, the default) or `keyset`; anything else 400.
pub fn is_keyset(params: &Params) -> ApiResult<bool> {
    match params.string("pagination")?.as_deref() {
        None | Some("legacy") | Some("offset") => Ok(false),
        Some("keyset") => Ok(true),
        Some(_) => Err(ApiError::InvalidValue("pagination".into())),
    }
}

/// GitLab's answer to keyset pagination of a list or order it does not page by keyset
/// (`lib/api/helpers/pagination_strategies.rb`).
pub fn keyset_unavailable() -> ApiError {
    ApiError::NotAllowed("Keyset pagination is not yet available for this type of request".into())
}

/// GitLab's default `offset_pagination_limit` (plan limits): offset pages of the lists that
/// also page by keyset (projects, groups) end there.
pub const OFFSET_LIMIT: usize = 50_000;

/// GitLab's refusal of an offset page past [`OFFSET_LIMIT`] (`page * per_page` over it) of a
/// list of `type_name` objects that keyset pagination can read to the end.
pub fn check_offset_limit(page: Page, type_name: &str) -> ApiResult<()> {
    if page.page.saturating_mul(page.per_page) > OFFSET_LIMIT {
        return Err(ApiError::NotAllowed(format!(
            "Offset pagination has a maximum allowed offset of {OFFSET_LIMIT} for requests that return objects of \
             type {type_name}. Remaining records can be retrieved using keyset pagination."
        )));
    }
    Ok(())
}

/// The only header of a keyset page that has a next one: `Link: <...>; rel="next"`, the
/// request's parameters repeated with `overrides` (the next position) set.
pub fn keyset_next(call: &Call, overrides: &[(&str, String)]) -> (String, String) {
    ("Link".into(), format!("<{}>; rel=\"next\"", link_url(call, overrides)))
}
