//! GitLab's changelog template language against a table of templates and their outputs or
//! parse errors (whitespace rules, selectors, truthiness, loops), through the public API.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

use forgecore_changelog::template::{Template, TemplateError, DEFAULT_TEMPLATE};
use forgecore_changelog::value::Value;
use std::time::{Duration, Instant};

fn s(text: &str) -> Value {
    Value::str(text)
}

fn data() -> Value {
    Value::hash([
        ("name", s("forge")),
        ("empty", s("")),
        ("zero", Value::Int(0)),
        ("no", Value::Bool(false)),
        ("yes", Value::Bool(true)),
        ("none", Value::Nil),
        ("list", Value::Array(vec![Value::Int(1), s("two"), Value::Array(vec![s("x")])])),
        ("nothing", Value::Array(vec![])),
        ("blank", Value::Hash(vec![])),
        ("map", Value::hash([("k", s("v")), ("n", Value::Int(2))])),
        ("deep", Value::hash([("er", Value::hash([("est", s("found"))]))])),
        (
            "nest",
            Value::Array(vec![Value::Array(vec![Value::Array(vec![Value::Array(vec![Value::Array(vec![
                Value::Int(7),
            ])])])])]),
        ),
        (
            "nest_empty",
            Value::Array(vec![Value::Array(vec![Value::Array(vec![Value::Array(vec![Value::Array(vec![])])])])]),
        ),
    ])
}

fn render(template: &str) -> Result<String, TemplateError> {
    let deadline = Instant::now() + Duration::from_secs(5);
    Template::parse(template, deadline)?.render(&data(), 1 << 20, deadline)
}

#[test]
fn outputs() {
    let table: &[(&str, &str)] = &[
        ("", ""),
        ("plain text", "plain text"),
        ("{{name}}", "forge"),
        ("{{ name }}", "forge"),
        ("{{\n  name\n}}", "forge"),
        ("{{{ name }}}", "forge"),
        ("{{ deep.er.est }}", "found"),
        ("{{ list.0 }}|{{ list.1 }}|{{ list.2.0 }}|{{ list.9 }}", "1|two|x|"),
        ("{{ map.k }}{{ map.0 }}{{ list.k }}{{ name.x }}{{ none.x.y }}", "v"),
        ("{{ missing }}[{{ none }}]", "[]"),
        ("{{ yes }} {{ no }} {{ zero }}", "true false 0"),
        ("{{ list }}", r#"[1, "two", ["x"]]"#),
        ("{{ map }}", r#"{"k"=>"v", "n"=>2}"#),
        ("{{ it.name }} {{ name.it }}", "forge forge"),
        // Truthiness: empty strings and collections are false, 0 is true.
        ("{% if name %}y{% end %}", "y"),
        ("{% if empty %}y{% else %}n{% end %}", "n"),
        ("{% if nothing %}y{% else %}n{% end %}", "n"),
        ("{% if blank %}y{% else %}n{% end %}", "n"),
        ("{% if no %}y{% else %}n{% end %}", "n"),
        ("{% if none %}y{% else %}n{% end %}", "n"),
        ("{% if missing %}y{% else %}n{% end %}", "n"),
        ("{% if zero %}y{% else %}n{% end %}", "y"),
        ("{%if yes%}y{%end%}", "y"),
        ("{% if\tyes %}y{% end %}", "y"),
        // Loops: each element is the whole scope; hashes give [key, value] pairs.
        ("{% each list %}<{{ it }}>{% end %}", r#"<1><two><["x"]>"#),
        ("{% each map %}{{ it.0 }}={{ it.1 }};{% end %}", "k=v;n=2;"),
        ("{% each list %}{{ name }}{% end %}", ""),
        ("{% each name %}x{% end %}{% each zero %}x{% end %}{% each none %}x{% end %}", ""),
        ("{% each nest %}{% each it %}{% each it %}{% each it %}{{ it }}{% end %}{% end %}{% end %}{% end %}", "[7]"),
        // Whitespace: `%}` eats one following newline; `\` + newline joins lines.
        ("{% if yes %}\nyes\n{% end %}\nafter", "yes\nafter"),
        ("{% if yes %}\n\nyes{% end %}", "\nyes"),
        ("{% if yes %}\r\nyes{% end %}", "\r\nyes"),
        ("{% if yes %} \nyes{% end %}", " \nyes"),
        ("a\\\nb", "ab"),
        ("a \\\n  b", "a   b"),
        ("{{ name }}\\\n{% if yes %}!{% end %}", "forge!"),
        ("{{ name }}\n", "forge\n"),
        // Backslashes and lone braces are text.
        ("a\\b", "a\\b"),
        ("\\{x}", "\\{x}"),
        ("{a} { b }", "{a} { b }"),
        ("}}", "}}"),
        ("héllo {{ name }} ✓", "héllo forge ✓"),
        ("{% if yes %}a{% if no %}b{% else %}c{% end %}d{% end %}", "acd"),
    ];
    for (template, expected) in table {
        assert_eq!(render(template).as_deref(), Ok(*expected), "template {template:?}");
    }
}

#[test]
fn parse_errors_say_where_as_gitlab_does() {
    let table: &[(&str, &str)] = &[
        ("{{ }}", "line 1 char 1"),
        ("abc {{ name other }}", "line 1 char 5"),
        ("x\n{% iffy %}", "line 2 char 1"),
        ("{% if yes %}never closed", "line 1 char 1"),
        ("ok {% each list %}x{% else %}y{% end %}", "line 1 char 4"),
        ("{% end %}", "line 1 char 1"),
        ("{% endif %}", "line 1 char 1"),
        ("trailing\\", "line 1 char 9"),
        ("a\\\\b", "line 1 char 2"),
        ("{{12345678901}}", "line 1 char 1"),
        ("{% if\nyes %}y{% end %}", "line 1 char 1"),
        ("{{ foo-bar }}", "line 1 char 1"),
        ("{{ a1 }}", "line 1 char 1"),
        ("ok\n{{ a. }}", "line 2 char 1"),
        ("é{{ }}", "line 1 char 3"),
        ("{% if yes %}a{% else %}b{% else %}c{% end %}", "line 1 char 1"),
        ("{% unless yes %}x{% end %}", "line 1 char 1"),
        ("{{ name | upcase }}", "line 1 char 1"),
    ];
    for (template, position) in table {
        let error = Template::parse(template, Instant::now() + Duration::from_secs(5)).unwrap_err();
        assert_eq!(
            error,
            TemplateError::Invalid(format!(
                "Failed to parse the template: Extra input after last repetition at {position}."
            )),
            "template {template:?}"
        );
    }
}

#[test]
fn at_most_four_loops_nest() {
    let five = "{% each nest %}{% each it %}{% each it %}{% each it %}{% each it %}x{% end %}{% end %}{% end %}{% end %}{% end %}";
    assert_eq!(render(five), Err(TemplateError::Invalid("You can only nest up to 4 loops".into())));
    // The limit applies when a fifth loop is entered, even over nothing; never when it is not.
    let empty_fifth = "{% each nest_empty %}{% each it %}{% each it %}{% each it %}{% each it %}x{% end %}{% end %}{% end %}{% end %}{% end %}";
    assert_eq!(render(empty_fifth), Err(TemplateError::Invalid("You can only nest up to 4 loops".into())));
    let out_of_scope = "{% each nest %}{% each it %}{% each it %}{% each it %}{% each blank %}x{% end %}{% end %}{% end %}{% end %}{% end %}";
    assert_eq!(render(out_of_scope).as_deref(), Ok(""), "blank is not in the fourth loop's scope: no fifth loop");
    let never = "{% each nothing %}{% each it %}{% each it %}{% each it %}{% each it %}x{% end %}{% end %}{% end %}{% end %}{% end %}";
    assert_eq!(render(never).as_deref(), Ok(""));
}

#[test]
fn output_and_nesting_are_bounded() {
    let deadline = Instant::now() + Duration::from_secs(5);
    let template = Template::parse("{% each list %}0123456789{% end %}", deadline).unwrap();
    assert_eq!(template.render(&data(), 15, deadline), Err(TemplateError::TooLarge));
    let deep = "{% if yes %}".repeat(150_000);
    let started = Instant::now();
    assert!(matches!(Template::parse(&deep, deadline), Err(TemplateError::Invalid(_))));
    let long = "{{ name }} text {".repeat(200_000);
    assert!(Template::parse(&long, deadline).is_ok());
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    assert_eq!(Template::parse(&long, Instant::now() - Duration::from_secs(1)), Err(TemplateError::Timeout));
}

#[test]
fn the_default_template_renders_as_gitlab_documents() {
    let deadline = Instant::now() + Duration::from_secs(5);
    let template = Template::parse(DEFAULT_TEMPLATE, deadline).unwrap();
    let empty = Value::hash([("categories", Value::Array(vec![]))]);
    assert_eq!(template.render(&empty, 1 << 20, deadline).unwrap().trim(), "No changes.");
    let entry = |title: &str, author: Option<(&str, bool)>, mr: Option<&str>| {
        let mut pairs = vec![
            (s("title"), s(title)),
            (
                s("commit"),
                Value::hash([("reference", s("g/p@abc")), ("trailers", Value::Hash(vec![])), ("web_url", s("u/abc"))]),
            ),
        ];
        if let Some((reference, credit)) = author {
            pairs.push((
                s("author"),
                Value::hash([
                    ("reference", s(reference)),
                    ("contributor", Value::Bool(credit)),
                    ("credit", Value::Bool(credit)),
                ]),
            ));
        }
        if let Some(mr) = mr {
            pairs.push((s("merge_request"), Value::hash([("reference", s("g/p!1")), ("web_url", s(mr))])));
        }
        Value::Hash(pairs)
    };
    let data = Value::hash([(
        "categories",
        Value::Array(vec![
            Value::hash([
                ("title", s("Features")),
                ("count", Value::Int(2)),
                ("single_change", Value::Bool(false)),
                (
                    "entries",
                    Value::Array(vec![
                        entry("One", Some(("@alice", true)), Some("u/mr/1")),
                        entry("Two", Some(("@bob", false)), None),
                    ]),
                ),
            ]),
            Value::hash([
                ("title", s("Fixes")),
                ("count", Value::Int(1)),
                ("single_change", Value::Bool(true)),
                ("entries", Value::Array(vec![entry("Three", None, None)])),
            ]),
        ]),
    )]);
    assert_eq!(
        template.render(&data, 1 << 20, deadline).unwrap().trim(),
        "### Features (2 changes)\n\n- [One](u/abc) by @alice ([merge request](u/mr/1))\n- [Two](u/abc)\n\n### Fixes (1 change)\n\n- [Three](u/abc)"
    );
}
