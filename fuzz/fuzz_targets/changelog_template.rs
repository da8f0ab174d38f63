//! Arbitrary changelog templates, parsed and rendered over a small release: any input must
//! parse or fail with an error, and render within the output and time bounds, never panic.
#![no_main]

use forgecore_changelog::template::Template;
use forgecore_changelog::value::Value;
use libfuzzer_sys::fuzz_target;
use std::time::{Duration, Instant};

fn release() -> Value {
    let entry = |title: &str| Value::hash([("title", Value::str(title)), ("commit", Value::hash([("reference", Value::str("abc"))]))]);
    Value::hash([
        ("version", Value::str("1.2.3")),
        ("date", Value::str("2024-01-02")),
        (
            "categories",
            Value::Hash(vec![
                (Value::str("added"), Value::Array(vec![entry("one"), entry("two")])),
                (Value::str("fixed"), Value::Array(vec![entry("three")])),
            ]),
        ),
        ("single_change", Value::Bool(false)),
        ("count", Value::Int(3)),
    ])
}

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else { return };
    let deadline = Instant::now() + Duration::from_millis(500);
    if let Ok(template) = Template::parse(source, deadline) {
        let _ = template.render(&release(), 1 << 20, Instant::now() + Duration::from_millis(500));
    }
});
