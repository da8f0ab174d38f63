//! The metrics of one context, written out in Prometheus' text format (0.0.4) for
//! `/-/metrics`. Our own few types rather than a crate: the label sets are fixed and few, the
//! text format is a page of code, recording is an atomic add (plus a read lock to find a
//! request's series), and everything lives in the context (no process-global registry, so two
//! contexts in one process, or a host with metrics of its own, never mix series).
//!
//! Names follow Workhorse's (`gitlab_workhorse_http_*`) with `forgecore_` for the namespace,
//! and requests are labelled by the route's template, never the raw path, so the number of
//! series stays bounded whatever clients ask for.

use std::collections::HashMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

/// Workhorse's request-duration buckets, in seconds.
pub const REQUEST_BUCKETS: &[f64] = &[0.005, 0.025, 0.1, 0.5, 1.0, 10.0, 30.0, 60.0, 300.0];
/// Finer buckets for store statements and git operations, in seconds.
pub const WORK_BUCKETS: &[f64] = &[0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 30.0];

/// A histogram: cumulative counts are made when written out.
pub struct Histogram {
    bounds: &'static [f64],
    /// One count per bound, then one for `+Inf`.
    counts: Vec<AtomicU64>,
    sum_nanos: AtomicU64,
}

impl Histogram {
    pub fn new(bounds: &'static [f64]) -> Histogram {
        Histogram {
            bounds,
            counts: (0..=bounds.len()).map(|_| AtomicU64::new(0)).collect(),
            sum_nanos: AtomicU64::new(0),
        }
    }

    pub fn observe(&self, spent: Duration) {
        let seconds = spent.as_secs_f64();
        let slot = self.bounds.iter().position(|b| seconds <= *b).unwrap_or(self.bounds.len());
        if let Some(count) = self.counts.get(slot) {
            count.fetch_add(1, Ordering::Relaxed);
        }
        self.sum_nanos.fetch_add(u64::try_from(spent.as_nanos()).unwrap_or(u64::MAX), Ordering::Relaxed);
    }

    pub fn count(&self) -> u64 {
        self.counts.iter().map(|c| c.load(Ordering::Relaxed)).sum()
    }

    /// `name_bucket`, `name_sum` and `name_count` lines with `labels` (`a="x",b="y"` or empty).
    fn write(&self, out: &mut String, name: &str, labels: &str) {
        let sep = if labels.is_empty() { "" } else { "," };
        let mut cumulative = 0;
        for (i, count) in self.counts.iter().enumerate() {
            cumulative += count.load(Ordering::Relaxed);
            let le = self.bounds.get(i).map_or_else(|| "+Inf".to_string(), |b| b.to_string());
            let _ = writeln!(out, "{name}_bucket{{{labels}{sep}le=\"{le}\"}} {cumulative}");
        }
        let sum = self.sum_nanos.load(Ordering::Relaxed) as f64 / 1e9;
        let braces = if labels.is_empty() { String::new() } else { format!("{{{labels}}}") };
        let _ = writeln!(out, "{name}_sum{braces} {sum}");
        let _ = writeln!(out, "{name}_count{braces} {cumulative}");
    }
}

/// A family of histograms by label values, created on first use.
struct Family<K> {
    series: RwLock<HashMap<K, Arc<Histogram>>>,
    bounds: &'static [f64],
}

impl<K: std::hash::Hash + Eq + Clone + Ord> Family<K> {
    fn new(bounds: &'static [f64]) -> Family<K> {
        Family { series: RwLock::new(HashMap::new()), bounds }
    }

    fn get(&self, key: &K) -> Arc<Histogram> {
        if let Some(found) = self.series.read().unwrap_or_else(|p| p.into_inner()).get(key) {
            return Arc::clone(found);
        }
        let mut series = self.series.write().unwrap_or_else(|p| p.into_inner());
        Arc::clone(series.entry(key.clone()).or_insert_with(|| Arc::new(Histogram::new(self.bounds))))
    }

    /// The series sorted by their labels, for a stable page.
    fn sorted(&self) -> Vec<(K, Arc<Histogram>)> {
        let mut all: Vec<_> = self
            .series
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .map(|(k, v)| (k.clone(), Arc::clone(v)))
            .collect();
        all.sort_by(|a, b| a.0.cmp(&b.0));
        all
    }
}

/// The label key of a request series: method, route template, status code.
type RequestKey = (&'static str, &'static str, u16);

/// Everything one context measures itself; what the store and the caches count is read from
/// them when the page is written.
pub struct Metrics {
    requests: Family<RequestKey>,
    git: Family<&'static str>,
    in_flight: AtomicI64,
    response_bytes: AtomicU64,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

/// The methods a series may carry; any other is `other`, so a client cannot make series.
pub fn method_label(method: &str) -> &'static str {
    match method {
        "GET" => "GET",
        "HEAD" => "HEAD",
        "POST" => "POST",
        "PUT" => "PUT",
        "PATCH" => "PATCH",
        "DELETE" => "DELETE",
        "OPTIONS" => "OPTIONS",
        _ => "other",
    }
}

impl Metrics {
    pub fn new() -> Metrics {
        Metrics {
            requests: Family::new(REQUEST_BUCKETS),
            git: Family::new(WORK_BUCKETS),
            in_flight: AtomicI64::new(0),
            response_bytes: AtomicU64::new(0),
        }
    }

    pub fn request_started(&self) {
        self.in_flight.fetch_add(1, Ordering::Relaxed);
    }

    /// A request has ended (its whole body sent, or abandoned).
    pub fn request_ended(&self, method: &'static str, route: &'static str, status: u16, spent: Duration, bytes: u64) {
        self.in_flight.fetch_sub(1, Ordering::Relaxed);
        self.requests.get(&(method, route, status)).observe(spent);
        self.response_bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    pub fn git_operation(&self, op: &'static str, spent: Duration) {
        self.git.get(&op).observe(spent);
    }

    pub fn in_flight(&self) -> i64 {
        self.in_flight.load(Ordering::Relaxed)
    }

    /// The page: what this registry holds, then `extra` (what the store and caches report).
    pub fn render(&self, extra: &[Sample]) -> String {
        let mut out = String::with_capacity(8192);
        let requests = self.requests.sorted();
        header(
            &mut out,
            "forgecore_http_requests_total",
            "counter",
            "Requests answered, by method, route template and status code.",
        );
        for ((method, route, code), h) in &requests {
            let _ = writeln!(
                out,
                "forgecore_http_requests_total{{{}}} {}",
                request_labels(method, route, *code),
                h.count()
            );
        }
        header(
            &mut out,
            "forgecore_http_request_duration_seconds",
            "histogram",
            "Time from a request's start to the end of its answer's body.",
        );
        for ((method, route, code), h) in &requests {
            h.write(&mut out, "forgecore_http_request_duration_seconds", &request_labels(method, route, *code));
        }
        header(&mut out, "forgecore_http_in_flight_requests", "gauge", "Requests started whose answer has not ended.");
        let _ = writeln!(out, "forgecore_http_in_flight_requests {}", self.in_flight());
        header(&mut out, "forgecore_http_response_bytes_total", "counter", "Bytes of answer bodies sent.");
        let _ = writeln!(out, "forgecore_http_response_bytes_total {}", self.response_bytes.load(Ordering::Relaxed));
        header(
            &mut out,
            "forgecore_git_operation_duration_seconds",
            "histogram",
            "Time of git operations, by operation.",
        );
        for (op, h) in self.git.sorted() {
            h.write(&mut out, "forgecore_git_operation_duration_seconds", &format!("op=\"{}\"", escape(op)));
        }
        let mut named: Vec<&str> = Vec::new();
        for sample in extra {
            if !named.contains(&sample.name) {
                named.push(sample.name);
                header(&mut out, sample.name, sample.kind, sample.help);
            }
            match &sample.value {
                Value::Number(v) => {
                    let _ = writeln!(out, "{}{} {v}", sample.name, braces(&sample.labels));
                }
                Value::Histogram(h) => h.write(&mut out, sample.name, &sample.labels),
            }
        }
        out
    }
}

/// One series reported by another part of the core (the store, the caches).
pub struct Sample<'a> {
    pub name: &'static str,
    pub kind: &'static str,
    pub help: &'static str,
    /// `a="x",b="y"`, already escaped.
    pub labels: String,
    pub value: Value<'a>,
}

pub enum Value<'a> {
    Number(f64),
    Histogram(&'a Histogram),
}

fn braces(labels: &str) -> String {
    if labels.is_empty() {
        String::new()
    } else {
        format!("{{{labels}}}")
    }
}

fn header(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

fn request_labels(method: &str, route: &str, code: u16) -> String {
    format!("method=\"{}\",route=\"{}\",code=\"{code}\"", escape(method), escape(route))
}

/// A label value as the text format writes it.
pub fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histograms_are_cumulative_and_series_are_per_key() {
        let m = Metrics::new();
        for _ in 0..3 {
            m.request_started();
        }
        m.request_ended("GET", "/api/v4/version", 200, Duration::from_millis(1), 10);
        m.request_ended("GET", "/api/v4/version", 200, Duration::from_millis(50), 10);
        m.request_ended("GET", "/api/v4/version", 404, Duration::from_secs(400), 0);
        let page = m.render(&[]);
        assert!(
            page.contains("forgecore_http_requests_total{method=\"GET\",route=\"/api/v4/version\",code=\"200\"} 2\n")
        );
        assert!(
            page.contains("forgecore_http_requests_total{method=\"GET\",route=\"/api/v4/version\",code=\"404\"} 1\n")
        );
        assert!(page.contains(
            "forgecore_http_request_duration_seconds_bucket{method=\"GET\",route=\"/api/v4/version\",code=\"200\",le=\"0.025\"} 1\n"
        ));
        assert!(page.contains(
            "forgecore_http_request_duration_seconds_bucket{method=\"GET\",route=\"/api/v4/version\",code=\"200\",le=\"0.1\"} 2\n"
        ));
        assert!(page.contains(
            "forgecore_http_request_duration_seconds_bucket{method=\"GET\",route=\"/api/v4/version\",code=\"404\",le=\"+Inf\"} 1\n"
        ));
        assert!(page.contains("forgecore_http_in_flight_requests 0\n"));
        assert_eq!(escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
        assert_eq!(method_label("get"), "other");
    }
}
