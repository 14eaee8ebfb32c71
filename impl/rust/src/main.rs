//! conform-agent-rs: an agent-role implementation of the stream-json control
//! protocol v1 and v2 (module v2), written from the conform suite (schemas/control.v1.json, the
//! vectors, the golden files, COMPATIBILITY.md and impl/claude-code/OBSERVED.md).
//!
//! It reads JSON lines on stdin and writes one `control_response` line per
//! `control_request` on stdout, with the JavaScript value semantics the Claude
//! Code CLI shows: every number is a binary64 value, the last of duplicate
//! member names wins, invalid UTF-8 becomes U+FFFD, and a few malformed lines
//! are fatal (exit status 1 and one line on stderr).

use serde_json::{Map, Value};
use std::io::{self, BufRead, BufWriter, Write};
use std::process;

mod host;
mod v2;

const VERSION: &str = env!("CARGO_PKG_VERSION");
const BUILD_TIME: &str = "2026-12-01T00:00:00Z";
const OLDEST_DESKTOP_SDK: &str = "0.0.0";
const DEFAULT_MODEL: &str = "claude-opus-5-5";
const PERMISSION_MODES: &str = "acceptEdits, auto, bypassPermissions, default, dontAsk, plan";

// ---------------------------------------------------------------------------
// JavaScript semantics
// ---------------------------------------------------------------------------

/// The binary64 value of a JSON number, as JSON.parse reads it.
fn num_value(n: &serde_json::Number) -> f64 {
    // With arbitrary_precision, Display gives the number's source text.
    n.to_string().parse::<f64>().unwrap_or(f64::NAN)
}

/// Number.prototype.toString() (ECMAScript Number::toString, radix 10).
fn js_number(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity".into() } else { "-Infinity".into() };
    }
    if x == 0.0 {
        return "0".into(); // also -0
    }
    let neg = x < 0.0;
    let (digits, exp) = shortest_digits(x.abs());
    let k = digits.len() as i32;
    let n = exp + 1;
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if k <= n && n <= 21 {
        out.push_str(&digits);
        for _ in 0..(n - k) {
            out.push('0');
        }
    } else if 0 < n && n <= 21 {
        out.push_str(&digits[..n as usize]);
        out.push('.');
        out.push_str(&digits[n as usize..]);
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        for _ in 0..(-n) {
            out.push('0');
        }
        out.push_str(&digits);
    } else {
        out.push_str(&digits[..1]);
        if k > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if n - 1 >= 0 { '+' } else { '-' });
        out.push_str(&(n - 1).abs().to_string());
    }
    out
}

/// Splits `d.ddde±x` (LowerExp output) into its digits and exponent.
fn split_sci(sci: &str) -> (String, i32) {
    let (mant, exp) = sci.split_once('e').expect("LowerExp has an exponent");
    let digits: String = mant.chars().filter(|c| *c != '.').collect();
    (digits, exp.parse().expect("exponent"))
}

/// Reads the digit string `d` (decimal point after its first digit) times 10^exp.
fn digits_value(d: &str, exp: i32) -> f64 {
    let text = if d.len() > 1 {
        format!("{}.{}e{}", &d[..1], &d[1..], exp)
    } else {
        format!("{}e{}", d, exp)
    };
    text.parse().unwrap_or(f64::NAN)
}

/// The shortest digits (no trailing zeros) that read back as `a` > 0, and the
/// exponent of the first digit, chosen as ECMAScript Number::toString does:
/// of several shortest strings the closest, and of two equally close the even one.
fn shortest_digits(a: f64) -> (String, i32) {
    // `{:e}` prints the shortest round-trip digits (closest, ties not to even).
    let (digits, exp) = split_sci(&format!("{:e}", a));
    let k = digits.len();
    // An exact tie needs the exact expansion of a to have k+1 digits ending in 5.
    let (exact, eexp) = split_sci(&format!("{:.800e}", a));
    let exact = exact.trim_end_matches('0');
    if exact.len() == k + 1 && exact.ends_with('5') {
        let down = exact[..k].to_string();
        // down + 1 in the last place, with carry.
        let mut up: Vec<u8> = down.clone().into_bytes();
        let mut uexp = eexp;
        let mut i = up.len();
        loop {
            if i == 0 {
                up.insert(0, b'1');
                up.pop();
                uexp += 1;
                break;
            }
            i -= 1;
            if up[i] == b'9' {
                up[i] = b'0';
            } else {
                up[i] += 1;
                break;
            }
        }
        let up = String::from_utf8(up).expect("ascii digits");
        for (cand, cexp) in [(down, eexp), (up, uexp)] {
            let even = (cand.as_bytes()[k - 1] - b'0') % 2 == 0;
            if even && digits_value(&cand, cexp) == a {
                let trimmed = cand.trim_end_matches('0');
                return (if trimmed.is_empty() { "0".into() } else { trimmed.to_string() }, cexp);
            }
        }
    }
    (digits, exp)
}

/// String(v) for a JSON value (None is `undefined`).
fn js_string(v: Option<&Value>) -> String {
    match v {
        None => "undefined".into(),
        Some(Value::Null) => "null".into(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Number(n)) => js_number(num_value(n)),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|e| match e {
                Value::Null => String::new(),
                other => js_string(Some(other)),
            })
            .collect::<Vec<_>>()
            .join(","),
        Some(Value::Object(_)) => "[object Object]".into(),
    }
}

/// String.prototype.trim(): strips ECMAScript WhiteSpace and LineTerminator.
fn js_trim(s: &str) -> &str {
    fn ws(c: char) -> bool {
        matches!(
            c,
            '\u{0009}' | '\u{000A}' | '\u{000B}' | '\u{000C}' | '\u{000D}' | '\u{0020}' | '\u{00A0}'
                | '\u{1680}' | '\u{2000}'..='\u{200A}' | '\u{2028}' | '\u{2029}' | '\u{202F}'
                | '\u{205F}' | '\u{3000}' | '\u{FEFF}'
        )
    }
    s.trim_matches(ws)
}

/// Unicode general category Cf (format), Unicode 15: the set the CLI 2.1.332
/// escapes on output (impl/claude-code/OBSERVED.md, measured over U+0000..U+FFFF
/// and astral samples).
const CF: &[(u32, u32)] = &[
    (0x00AD, 0x00AD), (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD), (0x070F, 0x070F),
    (0x0890, 0x0891), (0x08E2, 0x08E2), (0x180E, 0x180E), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x2064), (0x2066, 0x206F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD),
    (0x110CD, 0x110CD), (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
];

fn is_cf(c: char) -> bool {
    let u = c as u32;
    CF.iter().any(|&(lo, hi)| lo <= u && u <= hi)
}

/// Unicode general category Zs (space separator), without U+0020.
fn is_zs_not_space(c: char) -> bool {
    matches!(c, '\u{00A0}' | '\u{1680}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}')
}

/// Error text as the CLI 2.1.332 writes it: every code point of general
/// category Cc, Cf, Cs, Zl, Zp and Zs other than U+0020 is removed (observed
/// 2026-11-30; vectors canon-echo-server-name, canon-echo-subtype). Rust
/// strings hold no surrogates (a lone `\ud800` was already read as U+FFFD).
fn strip_invisible(s: &str) -> String {
    s.chars()
        .filter(|&c| {
            !(c.is_control() // Cc
                || is_cf(c)
                || c == '\u{2028}' // Zl
                || c == '\u{2029}' // Zp
                || is_zs_not_space(c))
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Output: JSON.stringify-like writer (numbers in ECMAScript form)
// ---------------------------------------------------------------------------

fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{08}' => out.push_str("\\b"),
            '\u{09}' => out.push_str("\\t"),
            '\u{0A}' => out.push_str("\\n"),
            '\u{0C}' => out.push_str("\\f"),
            '\u{0D}' => out.push_str("\\r"),
            // Like the CLI: other C0 controls, DEL and C1 controls, the line and
            // paragraph separators and the common format characters are escaped.
            c if (c as u32) < 0x20 || ('\u{7F}'..='\u{9F}').contains(&c) || c == '\u{2028}' || c == '\u{2029}' || is_cf(c) => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{:04x}", u));
                }
            }
            _ => out.push(c),
        }
    }
    out.push('"');
}

fn write_value(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            let x = num_value(n);
            if x.is_finite() {
                out.push_str(&js_number(x));
            } else {
                out.push_str("null"); // JSON.stringify(Infinity)
            }
        }
        Value::String(s) => write_string(out, s),
        Value::Array(a) => {
            out.push('[');
            for (i, e) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, e);
            }
            out.push(']');
        }
        Value::Object(m) => {
            out.push('{');
            for (i, (k, e)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, k);
                out.push(':');
                write_value(out, e);
            }
            out.push('}');
        }
    }
}

/// An ordered object under construction (keys in insertion order).
struct Obj(Vec<(String, Out)>);

/// An output value: either a built object, or a JSON value (echoed input or a literal).
enum Out {
    Obj(Obj),
    Val(Value),
    /// JSON text written verbatim (a stored reply quoted in a v2 diagnostic).
    Raw(String),
}

impl Obj {
    fn new() -> Obj {
        Obj(Vec::new())
    }
    fn set(mut self, k: &str, v: impl Into<Out>) -> Obj {
        self.0.push((k.to_string(), v.into()));
        self
    }
    fn set_opt(self, k: &str, v: Option<&Value>) -> Obj {
        match v {
            Some(v) => self.set(k, v.clone()),
            None => self,
        }
    }
}

impl From<Obj> for Out {
    fn from(o: Obj) -> Out {
        Out::Obj(o)
    }
}
impl From<Value> for Out {
    fn from(v: Value) -> Out {
        Out::Val(v)
    }
}
impl From<&str> for Out {
    fn from(s: &str) -> Out {
        Out::Val(Value::String(s.to_string()))
    }
}
impl From<String> for Out {
    fn from(s: String) -> Out {
        Out::Val(Value::String(s))
    }
}
impl From<bool> for Out {
    fn from(b: bool) -> Out {
        Out::Val(Value::Bool(b))
    }
}
impl From<u64> for Out {
    fn from(n: u64) -> Out {
        Out::Val(Value::from(n))
    }
}

fn arr(items: Vec<Out>) -> Out {
    // Arrays of built objects are written through a wrapper object list.
    Out::Val(Value::Array(items.into_iter().map(out_to_value).collect()))
}

fn out_to_value(o: Out) -> Value {
    match o {
        Out::Val(v) => v,
        Out::Raw(t) => serde_json::from_str(&t).unwrap_or(Value::Null),
        Out::Obj(Obj(members)) => {
            let mut m = Map::new();
            for (k, v) in members {
                m.insert(k, out_to_value(v));
            }
            Value::Object(m)
        }
    }
}

fn write_out(out: &mut String, o: &Out) {
    match o {
        Out::Val(v) => write_value(out, v),
        Out::Raw(t) => out.push_str(t),
        Out::Obj(Obj(members)) => {
            out.push('{');
            for (i, (k, v)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, k);
                out.push(':');
                write_out(out, v);
            }
            out.push('}');
        }
    }
}

// ---------------------------------------------------------------------------
// The agent
// ---------------------------------------------------------------------------

struct Agent<W: Write> {
    out: W,
    model: String,
    mode: String,
    v2: v2::V2State,
}

enum Fatal {
    Parse { kind: &'static str, line: String },
    MissingRequest,
}

impl<W: Write> Agent<W> {
    fn emit(&mut self, frame: Obj) {
        let mut s = String::new();
        write_out(&mut s, &Out::Obj(frame));
        s.push('\n');
        // A closed stdout is not our problem to report; keep reading.
        let _ = self.out.write_all(s.as_bytes());
        let _ = self.out.flush();
    }

    fn success(&mut self, rid: Option<&Value>, body: Option<Obj>, extra: Vec<(&str, Out)>) {
        let mut r = Obj::new().set("subtype", "success").set_opt("request_id", rid);
        if let Some(b) = body {
            r = r.set("response", b);
        }
        for (k, v) in extra {
            r = r.set(k, v);
        }
        self.emit(Obj::new().set("type", "control_response").set("response", r));
    }

    fn error(&mut self, rid: Option<&Value>, msg: &str, code: Option<&str>, with_model: bool) {
        let mut r = Obj::new()
            .set("subtype", "error")
            .set_opt("request_id", rid)
            .set("error", strip_invisible(msg));
        if let Some(c) = code {
            r = r.set("error_code", c);
        }
        if with_model {
            let m = self.model.clone();
            r = r.set("model", m);
        }
        self.emit(Obj::new().set("type", "control_response").set("response", r));
    }

    /// Handles one input line (without its line terminator) as v1. Ok(true)
    /// when a reply was written, Ok(false) when the line was passed over.
    fn line(&mut self, raw: &str) -> Result<bool, Fatal> {
        let line = js_trim(raw);
        if line.is_empty() {
            return Ok(false);
        }
        let msg: Value = match parse(line) {
            Some(v) => v,
            None => return Err(Fatal::Parse { kind: "SyntaxError", line: line.to_string() }),
        };
        let obj = match msg {
            // `null.type` throws in the CLI.
            Value::Null => return Err(Fatal::Parse { kind: "TypeError", line: line.to_string() }),
            Value::Object(o) => o,
            _ => return Ok(false), // scalars and arrays are ignored
        };
        match obj.get("type") {
            Some(Value::String(t)) if t == "control_request" => {}
            _ => return Ok(false), // control_response, control_cancel_request, unknown types: no reply
        }
        let request = match obj.get("request") {
            None | Some(Value::Null) => return Err(Fatal::MissingRequest),
            Some(r) => r,
        };
        let rid = obj.get("request_id");
        let empty = Map::new();
        let req = match request {
            Value::Object(m) => m,
            _ => &empty,
        };
        let subtype = match request {
            Value::Object(m) => m.get("subtype"),
            _ => None,
        };
        let name = match subtype {
            Some(Value::String(s)) => s.as_str(),
            _ => "",
        };
        match name {
            "initialize" => self.initialize(rid, req),
            "interrupt" => self.success(
                rid,
                Some(Obj::new().set("still_queued", Value::Array(vec![]))),
                vec![],
            ),
            "set_model" => self.set_model(rid, req),
            "set_permission_mode" => self.set_permission_mode(rid, req),
            "set_max_thinking_tokens" => self.set_max_thinking_tokens(rid, req),
            "get_binary_version" => self.success(
                rid,
                Some(
                    Obj::new()
                        .set("version", VERSION)
                        .set("buildTime", BUILD_TIME)
                        .set("oldestDesktopSdk", OLDEST_DESKTOP_SDK),
                ),
                vec![],
            ),
            "mcp_status" => self.success(
                rid,
                Some(Obj::new().set("mcpServers", Value::Array(vec![]))),
                vec![],
            ),
            "get_context_usage" => self.get_context_usage(rid),
            "rewind_files" => {
                if matches!(req.get("dry_run"), Some(Value::Bool(true))) {
                    self.success(
                        rid,
                        Some(
                            Obj::new()
                                .set("canRewind", false)
                                .set("error", "File rewinding is not enabled."),
                        ),
                        vec![],
                    )
                } else {
                    self.error(rid, "File rewinding is not enabled.", None, false)
                }
            }
            "mcp_reconnect" | "mcp_toggle" => {
                // No MCP servers are configured, so every name is unknown.
                let msg = format!("Server not found: {}", js_string(req.get("serverName")));
                self.error(rid, &msg, None, false)
            }
            "stop_task" => self.success(rid, Some(Obj::new()), vec![]),
            _ => {
                let msg = format!("Unsupported control request subtype: {}", js_string(subtype));
                self.error(rid, &msg, Some("unsupported_request"), false)
            }
        }
        Ok(true)
    }

    fn initialize(&mut self, rid: Option<&Value>, req: &Map<String, Value>) {
        let body = self.session_body(req);
        self.success(
            rid,
            Some(body),
            vec![
                ("pending_permission_requests", Value::Array(vec![]).into()),
                ("pending_user_dialog_requests", Value::Array(vec![]).into()),
            ],
        );
    }

    /// v1's initialize payload; v2 puts it under `session`.
    fn session_body(&self, req: &Map<String, Value>) -> Obj {
        let models: Vec<Out> = [
            ("default", DEFAULT_MODEL, "Default (recommended)"),
            ("opus", "claude-opus-5-5", "Opus"),
            ("sonnet", "claude-sonnet-5-5", "Sonnet"),
            ("haiku", "claude-haiku-5-5", "Haiku"),
        ]
        .iter()
        .map(|(v, r, d)| {
            Obj::new()
                .set("value", *v)
                .set("resolvedModel", *r)
                .set("displayName", *d)
                .set("description", *d)
                .into()
        })
        .collect();
        let mut body = Obj::new()
            .set("commands", Value::Array(vec![]))
            .set("agents", Value::Array(vec![]))
            .set("output_style", "default")
            .set("available_output_styles", arr(vec!["default".into()]))
            .set("models", arr(models))
            .set("account", Obj::new())
            .set("pid", process::id() as u64)
            .set("claude_code_version", VERSION)
            .set("current_permission_mode", self.mode.clone());
        if !matches!(req.get("hooks"), None | Some(Value::Null)) {
            body = body.set("hooks_applied", true);
        }
        body.set("hook_on_failure_supported", true)
            .set("capabilities", Value::Array(vec![]))
    }

    fn get_context_usage(&mut self, rid: Option<&Value>) {
        let body = self.context_usage_body();
        self.success(rid, Some(body), vec![]);
    }

    fn context_usage_body(&self) -> Obj {
        let max: u64 = 1_000_000;
        let body = Obj::new()
            .set(
                "categories",
                arr(vec![Obj::new()
                    .set("name", "Free space")
                    .set("tokens", max)
                    .into()]),
            )
            .set("totalTokens", 0u64)
            .set("maxTokens", max)
            .set("rawMaxTokens", max)
            .set("percentage", 0u64)
            .set("gridRows", Value::Array(vec![]))
            .set("model", self.model.clone());
        body
    }

    fn set_model(&mut self, rid: Option<&Value>, req: &Map<String, Value>) {
        let resolved = match req.get("model") {
            None | Some(Value::Null) => DEFAULT_MODEL.to_string(),
            Some(Value::String(s)) if s.is_empty() => {
                return self.error(
                    rid,
                    "Model \"(unrecognized model name)\" is not a recognized model id. Run /model to see available models.",
                    Some("catalog_unknown"),
                    true,
                );
            }
            Some(Value::String(s)) => {
                let base = s.strip_suffix("[1m]").unwrap_or(s);
                match base {
                    "default" => DEFAULT_MODEL.to_string(),
                    "opus" | "sonnet" | "haiku" => format!("claude-{}-5-5", base),
                    // Any other name would need the model catalogue over the network;
                    // offline it cannot be checked (like the CLI without a network).
                    _ => {
                        return self.error(
                            rid,
                            "Network error. Please check your internet connection \u{b7} model not changed",
                            Some("check_unreachable"),
                            true,
                        );
                    }
                }
            }
            Some(_) => {
                return self.error(rid, "set_model: model must be a string", Some("invalid_request"), true);
            }
        };
        self.model = resolved.clone();
        self.success(rid, Some(Obj::new().set("model", resolved)), vec![]);
    }

    fn set_permission_mode(&mut self, rid: Option<&Value>, req: &Map<String, Value>) {
        match req.get("mode") {
            Some(Value::String(m))
                if matches!(m.as_str(), "acceptEdits" | "auto" | "default" | "dontAsk" | "plan") =>
            {
                self.mode = m.clone();
                let m = m.clone();
                self.success(rid, Some(Obj::new().set("mode", m)), vec![]);
            }
            Some(Value::String(m)) if m == "bypassPermissions" => self.error(
                rid,
                "Cannot set permission mode to bypassPermissions because the session was not launched with --dangerously-skip-permissions",
                Some("bypass_not_launched"),
                false,
            ),
            _ => self.error(
                rid,
                &format!("Cannot set permission mode: must be one of {}", PERMISSION_MODES),
                Some("invalid_mode"),
                false,
            ),
        }
    }

    fn set_max_thinking_tokens(&mut self, rid: Option<&Value>, req: &Map<String, Value>) {
        let tokens_ok = match req.get("max_thinking_tokens") {
            None | Some(Value::Null) => true,
            Some(Value::Number(n)) => {
                let x = num_value(n);
                x.is_finite() && x.fract() == 0.0
            }
            _ => false,
        };
        let display_ok = match req.get("thinking_display") {
            None | Some(Value::Null) => true,
            Some(Value::String(s)) => matches!(s.as_str(), "summarized" | "omitted" | "highlights"),
            _ => false,
        };
        if tokens_ok && display_ok {
            // The CLI's success reply has no inner response member here.
            self.success(rid, None, vec![]);
        } else {
            self.error(
                rid,
                "set_max_thinking_tokens: max_thinking_tokens must be an integer or null and thinking_display must be \"summarized\", \"omitted\", \"highlights\", or null",
                None,
                false,
            );
        }
    }
}

/// Deepest nesting of arrays and objects accepted in a line (JSON.parse has no
/// fixed limit; serde_json's default is 128). Deeper lines are fatal.
const MAX_DEPTH: usize = 100_000;

/// Nesting depth of the JSON text (brackets outside strings).
fn nesting_depth(line: &str) -> usize {
    let (mut depth, mut max, mut in_str, mut esc) = (0usize, 0usize, false, false);
    for &c in line.as_bytes() {
        if in_str {
            if esc {
                esc = false;
            } else if c == b'\\' {
                esc = true;
            } else if c == b'"' {
                in_str = false;
            }
            continue;
        }
        match c {
            b'"' => in_str = true,
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// JSON.parse of one whole line, or None for a SyntaxError.
fn parse(line: &str) -> Option<Value> {
    use serde::Deserialize;
    if nesting_depth(line) > MAX_DEPTH {
        return None;
    }
    let text = mend_lone_surrogates(line);
    let mut de = serde_json::Deserializer::from_str(&text);
    de.disable_recursion_limit(); // main() runs on a thread with a large stack
    let v = Value::deserialize(&mut de).ok()?;
    de.end().ok()?; // trailing data after the value
    Some(v)
}

/// Replaces `\uXXXX` escapes of lone UTF-16 surrogates with `\ufffd`.
/// JSON.parse accepts them (the CLI echoes them back escaped), serde_json does
/// not, and a conform runner rejects them on output anyway; U+FFFD keeps the
/// line readable, as the suite's reference does.
fn mend_lone_surrogates(line: &str) -> std::borrow::Cow<'_, str> {
    fn hex4(b: &[u8]) -> Option<u32> {
        if b.len() < 4 {
            return None;
        }
        std::str::from_utf8(&b[..4]).ok().and_then(|h| u32::from_str_radix(h, 16).ok())
    }
    let b = line.as_bytes();
    if !line.contains("\\u") {
        return line.into();
    }
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    let mut last = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        if i + 1 < b.len() && b[i + 1] == b'u' {
            if let Some(cu) = hex4(&b[i + 2..]) {
                if (0xD800..0xDC00).contains(&cu) {
                    let low = if b.len() >= i + 12 && b[i + 6] == b'\\' && b[i + 7] == b'u' {
                        hex4(&b[i + 8..])
                    } else {
                        None
                    };
                    if matches!(low, Some(l) if (0xDC00..0xE000).contains(&l)) {
                        i += 12;
                        continue;
                    }
                } else if !(0xDC00..0xE000).contains(&cu) {
                    i += 6;
                    continue;
                }
                if (0xD800..0xE000).contains(&cu) {
                    out.push_str(&line[last..i]);
                    out.push_str("\\ufffd");
                    i += 6;
                    last = i;
                    continue;
                }
            }
        }
        i += 2; // any other escape, e.g. `\\\\`
    }
    out.push_str(&line[last.min(line.len())..]);
    out.into()
}

/// The value of the first `"type":"..."` member in the raw text, for the
/// CLI-style parse error message.
fn sniff_type(line: &str) -> String {
    let mut rest = line;
    while let Some(i) = rest.find("\"type\"") {
        let after = rest[i + 6..].trim_start();
        if let Some(after) = after.strip_prefix(':') {
            let after = after.trim_start();
            if let Some(v) = after.strip_prefix('"') {
                if let Some(end) = v.find('"') {
                    return v[..end].to_string();
                }
            }
        }
        rest = &rest[i + 6..];
    }
    "unknown".into()
}

fn main() {
    // Deeply nested lines recurse in the parser, the writer and in drop.
    let agent = std::thread::Builder::new()
        .name("agent".into())
        .stack_size(1 << 30)
        .spawn(run)
        .expect("spawn the agent thread");
    let code = agent.join().unwrap_or(101);
    process::exit(code);
}

/// Which protocol a session speaks (decided per process, i.e. per session).
#[derive(PartialEq, Debug)]
enum Mode {
    /// No line has decided yet.
    Unknown,
    V1,
    V2,
}

/// The session's version when the environment fixes it: conform's runner sets
/// `CONFORM_PROTOCOL_VERSION` to the suite version under test. "1" or "2"
/// decide before the first line is read; anything else (or unset) leaves the
/// decision to the first deciding line (see `announces_v2` and `run`).
fn pinned_mode(value: Option<&str>) -> Mode {
    match value.map(str::trim) {
        Some("1") => Mode::V1,
        Some("2") => Mode::V2,
        _ => Mode::Unknown,
    }
}

/// Does this line start a v2 session? It does when it is a JSON object with a
/// top-level `schemaVersion` member (any value), or an `initialize` request
/// that offers `protocolVersions`. A v1 host never sends either.
fn announces_v2(text: &str) -> bool {
    let line = js_trim(text);
    if !line.starts_with('{') {
        return false;
    }
    match parse(line) {
        Some(Value::Object(o)) => {
            o.contains_key("schemaVersion")
                || (matches!(o.get("type"), Some(Value::String(t)) if t == "control_request")
                    && matches!(o.get("request"), Some(Value::Object(r))
                        if matches!(r.get("subtype"), Some(Value::String(s)) if s == "initialize")
                            && r.contains_key("protocolVersions")))
        }
        _ => false,
    }
}

/// Reads one line (without its LF) into `buf`, keeping at most `cap` bytes of
/// it; returns the whole line's length, or None at end of input.
fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>, cap: Option<usize>) -> io::Result<Option<usize>> {
    buf.clear();
    let (mut total, mut any) = (0usize, false);
    loop {
        let avail = match input.fill_buf() {
            Ok(a) => a,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if avail.is_empty() {
            return Ok(if any { Some(total) } else { None });
        }
        any = true;
        let (n, done) = match avail.iter().position(|&b| b == b'\n') {
            Some(i) => (i, true),
            None => (avail.len(), false),
        };
        let keep = match cap {
            Some(c) => n.min(c.saturating_sub(buf.len())),
            None => n,
        };
        buf.extend_from_slice(&avail[..keep]);
        total += n;
        input.consume(if done { n + 1 } else { n });
        if done {
            return Ok(Some(total));
        }
    }
}

fn run() -> i32 {
    if std::env::var("CONFORM_ROLE").map(|r| r.trim() == "host").unwrap_or(false) {
        return host::run(); // the host role (docs/host-role.md): src/host.rs
    }
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let stdout = io::stdout();
    let mut agent = Agent {
        out: BufWriter::new(stdout.lock()),
        model: DEFAULT_MODEL.to_string(),
        mode: "default".to_string(),
        v2: v2::V2State::default(),
    };
    let mut mode = pinned_mode(std::env::var("CONFORM_PROTOCOL_VERSION").ok().as_deref());
    let mut buf = Vec::with_capacity(1 << 16);
    loop {
        // v2 bounds its frames; v1 (like the CLI) reads lines of any length.
        let cap = if mode == Mode::V2 { Some(v2::FRAME_LIMIT + 1) } else { None };
        let size = match read_line(&mut input, &mut buf, cap) {
            Ok(Some(n)) => n,
            Ok(None) => break,
            Err(e) => {
                let _ = agent.out.flush();
                eprintln!("Error reading stdin: {}", e);
                return 1;
            }
        };
        if mode == Mode::Unknown && announces_v2(&String::from_utf8_lossy(&buf)) {
            mode = Mode::V2;
        }
        if mode == Mode::V2 {
            match agent.v2_line(&buf, size) {
                v2::Next::Go => continue,
                v2::Next::Exit(code) => {
                    let _ = agent.out.flush();
                    return code;
                }
            }
        }
        let text = String::from_utf8_lossy(&buf);
        match agent.line(&text) {
            Ok(acted) => {
                if acted {
                    mode = Mode::V1;
                }
            }
            Err(f) => {
                let _ = agent.out.flush();
                match f {
                    Fatal::Parse { kind, line } => eprintln!(
                        "Error parsing streaming input line (type={}, {} chars): {}",
                        sniff_type(&line),
                        line.encode_utf16().count(),
                        kind
                    ),
                    Fatal::MissingRequest => eprintln!("Error: Missing request on control_request"),
                }
                return 1;
            }
        }
    }
    if mode == Mode::V2 {
        agent.v2_finish();
    }
    let _ = agent.out.flush();
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_like_javascript() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0"),
            (-0.0, "0"),
            (7.0, "7"),
            (1.5, "1.5"),
            (1000.0, "1000"),
            (12345678901234567890.0, "12345678901234567000"),
            (1e21, "1e+21"),
            (1.5e300, "1.5e+300"),
            (1e-6, "0.000001"),
            (1e-7, "1e-7"),
            (0.1, "0.1"),
            (-42.25, "-42.25"),
            (5e-324, "5e-324"),
            (f64::INFINITY, "Infinity"),
            (697553758971160.25, "697553758971160.2"), // a tie: the even digit
            (9.5, "9.5"),
        ];
        for (x, want) in cases {
            assert_eq!(js_number(*x), *want, "{}", x);
        }
    }

    #[test]
    fn js_string_of_values() {
        let v: Value = serde_json::from_str(r#"[1,null,[2,"a"],{"x":1},true]"#).unwrap();
        assert_eq!(js_string(Some(&v)), "1,,2,a,[object Object],true");
        assert_eq!(js_string(None), "undefined");
    }

    #[test]
    fn mends_lone_surrogates() {
        assert_eq!(mend_lone_surrogates(r#""a\ud800b""#), r#""a\ufffdb""#);
        assert_eq!(mend_lone_surrogates(r#""\udc00""#), r#""\ufffd""#);
        assert_eq!(mend_lone_surrogates(r#""\ud83d\ude00""#), r#""\ud83d\ude00""#);
        assert_eq!(mend_lone_surrogates(r#""\\ud800""#), r#""\\ud800""#);
        assert_eq!(mend_lone_surrogates(r#""\ud800\u0041""#), r#""\ufffd\u0041""#);
        assert_eq!(mend_lone_surrogates(r#""x\u00e9\"""#), r#""x\u00e9\"""#);
    }

    #[test]
    fn strips_invisible_error_text() {
        let s = "a\t\n\r\u{A0}\u{3000}\u{1680}\u{200D}\u{200E}\u{E0041}\u{9F}\u{FEFF}\u{180E}\u{FFF9}\u{AD}\u{202E}\u{2028}\u{2029}b c";
        assert_eq!(strip_invisible(s), "ab c");
        let keep = "\u{E000}\u{378}\u{FFFF}e\u{301}\u{1F600} ";
        assert_eq!(strip_invisible(keep), keep);
    }

    #[test]
    fn pins_version_from_environment() {
        assert_eq!(pinned_mode(Some("1")), Mode::V1);
        assert_eq!(pinned_mode(Some("2")), Mode::V2);
        assert_eq!(pinned_mode(Some(" 2\n")), Mode::V2);
        assert_eq!(pinned_mode(Some("3")), Mode::Unknown);
        assert_eq!(pinned_mode(Some("")), Mode::Unknown);
        assert_eq!(pinned_mode(None), Mode::Unknown);
    }

    #[test]
    fn sniffs_type() {
        assert_eq!(sniff_type(r#"{"type":"control_request","request_id":"x""#), "control_request");
        assert_eq!(sniff_type("not json"), "unknown");
    }
}
