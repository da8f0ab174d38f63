//! GitLab's changelog template language (`Gitlab::TemplateParser`): its grammar, its parse errors
//! and its evaluation, complete.
//!
//! Grammar (a PEG, tried in this order at every position, exactly as GitLab's Parslet parser):
//! - `{{ selector }}`: two or more `{`, a selector, two or more `}`;
//! - `{% if selector %} ... [{% else %} ...] {% end %}` and `{% each selector %} ... {% end %}`;
//!   `if`/`each` need a space or tab before the selector; whitespace (newlines included) may
//!   surround selectors and tag words; a `%}` swallows one directly following `\n`;
//! - a backslash before `\n` is deleted with it; a backslash before other text is kept as text;
//! - text: anything but `{{`, `{%`, `\` and `\n`; a lone `{` is text; `\n` is text.
//!
//! A selector is `step(.step)*`, a step an identifier `[a-zA-Z_]+` or an index of 1-10 digits.
//! Anything else is a parse error reported as Parslet reports it: `Extra input after last
//! repetition at line L char C.`, at the start of the first top-level construct that does not
//! parse (lines and columns count from 1, columns in bytes).
//!
//! Evaluation: `it` is the current value; identifiers index hashes, integers index arrays,
//! anything else is nil and nil stops the chain; `{{ }}` prints Ruby's `to_s`; `if` uses
//! [`Value::truthy`]; `each` runs its body with each element (a hash gives `[key, value]` pairs)
//! as the whole scope, and at most 4 loops nest.

use super::value::Value;
use std::time::Instant;

/// GitLab's `EvalState::MAX_LOOPS`.
pub const MAX_LOOPS: usize = 4;
/// Blocks (`if`/`each`) nested deeper than this are refused while parsing, so that the parser's
/// recursion stays bounded.
pub const MAX_BLOCK_DEPTH: usize = 100;
/// How often (in parse attempts or evaluated nodes) the deadline is looked at.
const CLOCK_EVERY: usize = 1024;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Ident(String),
    Index(usize),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selector(Vec<Step>);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Node {
    Text(String),
    Variable(Selector),
    If { condition: Selector, then: Vec<Node>, otherwise: Option<Vec<Node>> },
    Each { collection: Selector, body: Vec<Node> },
}

/// A parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    nodes: Vec<Node>,
}

/// Why parsing stopped early (not a syntax error).
enum Abort {
    Deadline,
    TooDeep,
}

struct Parser<'a> {
    s: &'a [u8],
    deadline: Instant,
    attempts: usize,
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

impl Parser<'_> {
    fn at(&self, i: usize) -> Option<u8> {
        self.s.get(i).copied()
    }

    fn ws(&self, mut i: usize) -> usize {
        while self.at(i).is_some_and(is_ws) {
            i += 1;
        }
        i
    }

    fn word(&self, i: usize, word: &str) -> Option<usize> {
        self.s[i.min(self.s.len())..].starts_with(word.as_bytes()).then_some(i + word.len())
    }

    fn step(&self, i: usize) -> Option<(Step, usize)> {
        let letters =
            self.s[i.min(self.s.len())..].iter().take_while(|b| b.is_ascii_alphabetic() || **b == b'_').count();
        if letters > 0 {
            let text = String::from_utf8_lossy(&self.s[i..i + letters]).into_owned();
            return Some((Step::Ident(text), i + letters));
        }
        let digits = self.s[i.min(self.s.len())..].iter().take(10).take_while(|b| b.is_ascii_digit()).count();
        if digits > 0 {
            let value = std::str::from_utf8(&self.s[i..i + digits]).ok()?.parse().ok()?;
            return Some((Step::Index(value), i + digits));
        }
        None
    }

    /// `whitespace (step ('.' step)*) whitespace`
    fn selector(&self, i: usize) -> Option<(Selector, usize)> {
        let (first, mut i) = self.step(self.ws(i))?;
        let mut steps = vec![first];
        while self.at(i) == Some(b'.') {
            match self.step(i + 1) {
                Some((step, next)) => {
                    steps.push(step);
                    i = next;
                }
                None => break,
            }
        }
        Some((Selector(steps), self.ws(i)))
    }

    fn run_of(&self, i: usize, byte: u8) -> usize {
        self.s[i.min(self.s.len())..].iter().take_while(|b| **b == byte).count()
    }

    fn variable(&self, i: usize) -> Option<(Node, usize)> {
        let opens = self.run_of(i, b'{');
        if opens < 2 {
            return None;
        }
        let (selector, j) = self.selector(i + opens)?;
        let closes = self.run_of(j, b'}');
        (closes >= 2).then(|| (Node::Variable(selector), j + closes))
    }

    /// `{% <ws> word` without the closing part.
    fn open_tag(&self, i: usize, word: &str) -> Option<usize> {
        if self.at(i) != Some(b'{') || self.at(i + 1) != Some(b'%') {
            return None;
        }
        self.word(self.ws(i + 2), word)
    }

    /// `<ws> %} [\n]`
    fn close_tag(&self, i: usize) -> Option<usize> {
        let i = self.ws(i);
        if self.at(i) != Some(b'%') || self.at(i + 1) != Some(b'}') {
            return None;
        }
        Some(if self.at(i + 2) == Some(b'\n') { i + 3 } else { i + 2 })
    }

    fn simple_tag(&self, i: usize, word: &str) -> Option<usize> {
        self.close_tag(self.open_tag(i, word)?)
    }

    /// `{% word<space>+ selector %}`: the selector and the position after the tag.
    fn block_tag(&self, i: usize, word: &str) -> Option<(Selector, usize)> {
        let j = self.open_tag(i, word)?;
        let spaces = self.s[j.min(self.s.len())..].iter().take_while(|b| matches!(b, b' ' | b'\t')).count();
        if spaces == 0 {
            return None;
        }
        let (selector, k) = self.selector(j + spaces)?;
        Some((selector, self.close_tag(k)?))
    }

    fn if_expr(&mut self, i: usize, depth: usize) -> Result<Option<(Node, usize)>, Abort> {
        let Some((condition, j)) = self.block_tag(i, "if") else { return Ok(None) };
        if depth >= MAX_BLOCK_DEPTH {
            return Err(Abort::TooDeep);
        }
        let (then, mut j) = self.exprs(j, depth + 1)?;
        let mut otherwise = None;
        if let Some(k) = self.simple_tag(j, "else") {
            let (nodes, after) = self.exprs(k, depth + 1)?;
            otherwise = Some(nodes);
            j = after;
        }
        Ok(self.simple_tag(j, "end").map(|end| (Node::If { condition, then, otherwise }, end)))
    }

    fn each_expr(&mut self, i: usize, depth: usize) -> Result<Option<(Node, usize)>, Abort> {
        let Some((collection, j)) = self.block_tag(i, "each") else { return Ok(None) };
        if depth >= MAX_BLOCK_DEPTH {
            return Err(Abort::TooDeep);
        }
        let (body, j) = self.exprs(j, depth + 1)?;
        Ok(self.simple_tag(j, "end").map(|end| (Node::Each { collection, body }, end)))
    }

    /// Text characters: anything but `\`, `\n` and a `{` that opens `{{` or `{%`.
    fn chars(&self, mut i: usize) -> usize {
        while let Some(b) = self.at(i) {
            let ok = match b {
                b'\\' | b'\n' => false,
                b'{' => !matches!(self.at(i + 1), Some(b'{' | b'%')),
                _ => true,
            };
            if !ok {
                break;
            }
            i += 1;
        }
        i
    }

    fn text(&self, from: usize, to: usize) -> Node {
        Node::Text(String::from_utf8_lossy(&self.s[from..to]).into_owned())
    }

    /// One expression at `i`: `Ok(None)` when none of the alternatives matches; a `None` node
    /// for an escaped newline (it produces nothing).
    #[allow(clippy::type_complexity)]
    fn expr(&mut self, i: usize, depth: usize) -> Result<Option<(Option<Node>, usize)>, Abort> {
        self.attempts += 1;
        if self.attempts % CLOCK_EVERY == 0 && Instant::now() > self.deadline {
            return Err(Abort::Deadline);
        }
        if let Some((node, j)) = self.variable(i) {
            return Ok(Some((Some(node), j)));
        }
        if let Some((node, j)) = self.if_expr(i, depth)? {
            return Ok(Some((Some(node), j)));
        }
        if let Some((node, j)) = self.each_expr(i, depth)? {
            return Ok(Some((Some(node), j)));
        }
        match self.at(i) {
            Some(b'\\') if self.at(i + 1) == Some(b'\n') => Ok(Some((None, i + 2))),
            Some(b'\\') => {
                let j = self.chars(i + 1);
                Ok((j > i + 1).then(|| (Some(self.text(i, j)), j)))
            }
            Some(b'\n') => Ok(Some((Some(Node::Text("\n".into())), i + 1))),
            Some(_) => {
                let j = self.chars(i);
                Ok((j > i).then(|| (Some(self.text(i, j)), j)))
            }
            None => Ok(None),
        }
    }

    fn exprs(&mut self, mut i: usize, depth: usize) -> Result<(Vec<Node>, usize), Abort> {
        let mut nodes = Vec::new();
        while let Some((node, j)) = self.expr(i, depth)? {
            if let Some(node) = node {
                nodes.push(node);
            }
            i = j;
        }
        Ok((nodes, i))
    }

    /// Parslet's position text: `line L char C` (1-based; columns in bytes).
    fn position(&self, i: usize) -> String {
        let before = &self.s[..i];
        let line = before.iter().filter(|b| **b == b'\n').count() + 1;
        let line_start = before.iter().rposition(|b| *b == b'\n').map_or(0, |p| p + 1);
        format!("line {line} char {}", i - line_start + 1)
    }
}

impl Template {
    /// Parses `source`; the error is GitLab's whole message (`Failed to parse the template: ...`).
    pub fn parse(source: &str, deadline: Instant) -> Result<Template, TemplateError> {
        let mut parser = Parser { s: source.as_bytes(), deadline, attempts: 0 };
        match parser.exprs(0, 0) {
            Ok((nodes, end)) if end == parser.s.len() => Ok(Template { nodes }),
            Ok((_, end)) => Err(TemplateError::Invalid(format!(
                "Failed to parse the template: Extra input after last repetition at {}.",
                parser.position(end)
            ))),
            Err(Abort::Deadline) => Err(TemplateError::Timeout),
            Err(Abort::TooDeep) => Err(TemplateError::Invalid(format!(
                "Failed to parse the template: blocks may be nested at most {MAX_BLOCK_DEPTH} deep"
            ))),
        }
    }

    /// Evaluates the template over `data`.
    pub fn render(&self, data: &Value, max_output: usize, deadline: Instant) -> Result<String, TemplateError> {
        let mut eval = Eval { loops: 0, out: String::new(), max_output, deadline, steps: 0 };
        eval.nodes(&self.nodes, data)?;
        Ok(eval.out)
    }
}

/// Why a template could not be parsed or rendered; the text is the message GitLab gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplateError {
    Invalid(String),
    Timeout,
    TooLarge,
}

static NIL: Value = Value::Nil;

impl Selector {
    fn evaluate<'v>(&self, data: &'v Value) -> &'v Value {
        let mut current = data;
        for step in &self.0 {
            if matches!(current, Value::Nil) {
                return &NIL;
            }
            current = match (step, current) {
                (Step::Ident(name), _) if name == "it" => current,
                (Step::Ident(name), Value::Hash(_)) => current.get(name).unwrap_or(&NIL),
                (Step::Index(index), Value::Array(items)) => items.get(*index).unwrap_or(&NIL),
                _ => &NIL,
            };
        }
        current
    }
}

struct Eval {
    loops: usize,
    out: String,
    max_output: usize,
    deadline: Instant,
    steps: usize,
}

impl Eval {
    fn check(&mut self) -> Result<(), TemplateError> {
        if self.out.len() > self.max_output {
            return Err(TemplateError::TooLarge);
        }
        self.steps += 1;
        if self.steps % CLOCK_EVERY == 0 && Instant::now() > self.deadline {
            return Err(TemplateError::Timeout);
        }
        Ok(())
    }

    fn nodes(&mut self, nodes: &[Node], data: &Value) -> Result<(), TemplateError> {
        for node in nodes {
            self.check()?;
            match node {
                Node::Text(text) => self.out.push_str(text),
                Node::Variable(selector) => selector.evaluate(data).write_to_s(&mut self.out),
                Node::If { condition, then, otherwise } => {
                    if condition.evaluate(data).truthy() {
                        self.nodes(then, data)?;
                    } else if let Some(otherwise) = otherwise {
                        self.nodes(otherwise, data)?;
                    }
                }
                Node::Each { collection, body } => {
                    let values = collection.evaluate(data);
                    if !matches!(values, Value::Array(_) | Value::Hash(_)) {
                        continue;
                    }
                    if self.loops == MAX_LOOPS {
                        return Err(TemplateError::Invalid(format!("You can only nest up to {MAX_LOOPS} loops")));
                    }
                    self.loops += 1;
                    match values {
                        Value::Array(items) => {
                            for item in items {
                                self.nodes(body, item)?;
                            }
                        }
                        Value::Hash(pairs) => {
                            for (key, value) in pairs {
                                self.nodes(body, &Value::Array(vec![key.clone(), value.clone()]))?;
                            }
                        }
                        _ => {}
                    }
                    self.loops -= 1;
                }
            }
        }
        Ok(())
    }
}

/// GitLab's default template (`lib/gitlab/changelog/template.tpl`, the form with `web_url`s).
pub const DEFAULT_TEMPLATE: &str = "{% if categories %}
{% each categories %}
### {{ title }} ({% if single_change %}1 change{% else %}{{ count }} changes{% end %})

{% each entries %}
- [{{ title }}]({{ commit.web_url }})\\
{% if author.credit %} by {{ author.reference }}{% end %}\\
{% if merge_request %} ([merge request]({{ merge_request.web_url }})){% end %}

{% end %}

{% end %}
{% else %}
No changes.
{% end %}
";
