//! Control protocol v2 (docs/v2.md, schemas/control.v2.json): negotiation,
//! `schemaVersion` on every frame, structured errors, idempotent request ids
//! with `control_diagnostic` receipts, bounded frames, hold/release and
//! cancellation. Written from docs/v2.md and the v2 vectors and golden files.

use super::*;
use std::collections::HashMap;

/// Largest line read, in bytes without its LF (1 MiB).
pub const FRAME_LIMIT: usize = 1 << 20;
/// Bytes of an offending line quoted in a diagnostic.
const EXCERPT_BYTES: usize = 256;
const FRAME_TYPES: [&str; 4] = ["control_request", "control_response", "control_cancel_request", "control_diagnostic"];
const PASS_OVER: [&str; 10] = [
    "system", "assistant", "user", "result", "stream_event", "control_request_progress", "keep_alive",
    "rate_limit_event", "tool_progress", "auth_status",
];

/// One request id that has been read: the canonical bytes of its frame and its
/// terminal reply (None while it is pending).
struct Used {
    canon: String,
    reply: Option<String>,
}

#[derive(Default)]
pub struct V2State {
    initialized: bool,
    used: HashMap<String, Used>,
    /// Pending `hold` requests, oldest first.
    pending: Vec<String>,
}

/// What the main loop does after a line.
pub enum Next {
    Go,
    Exit(i32),
}

// ---------------------------------------------------------------------------
// Strict JSON (RFC 8259 + RFC 7493 I-JSON): no duplicate member names, no lone
// surrogate escapes, no integer that binary64 cannot hold in as many digits.
// ---------------------------------------------------------------------------

struct Strict<'a> {
    s: &'a [u8],
    i: usize,
}

pub fn parse_strict(text: &str) -> Option<Value> {
    let mut p = Strict { s: text.as_bytes(), i: 0 };
    p.ws();
    let v = p.value()?;
    p.ws();
    if p.i != p.s.len() {
        return None;
    }
    Some(v)
}

impl<'a> Strict<'a> {
    fn ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }
    fn lit(&mut self, w: &[u8], v: Value) -> Option<Value> {
        if self.s[self.i..].starts_with(w) {
            self.i += w.len();
            Some(v)
        } else {
            None
        }
    }
    fn value(&mut self) -> Option<Value> {
        match *self.s.get(self.i)? {
            b'{' => {
                self.i += 1;
                let mut m = Map::new();
                self.ws();
                if self.s.get(self.i) == Some(&b'}') {
                    self.i += 1;
                    return Some(Value::Object(m));
                }
                loop {
                    self.ws();
                    if self.s.get(self.i) != Some(&b'"') {
                        return None;
                    }
                    let k = self.string()?;
                    self.ws();
                    if self.s.get(self.i) != Some(&b':') {
                        return None;
                    }
                    self.i += 1;
                    self.ws();
                    let v = self.value()?;
                    if m.insert(k, v).is_some() {
                        return None; // duplicate member name
                    }
                    self.ws();
                    match self.s.get(self.i)? {
                        b',' => self.i += 1,
                        b'}' => {
                            self.i += 1;
                            return Some(Value::Object(m));
                        }
                        _ => return None,
                    }
                }
            }
            b'[' => {
                self.i += 1;
                let mut a = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b']') {
                    self.i += 1;
                    return Some(Value::Array(a));
                }
                loop {
                    self.ws();
                    a.push(self.value()?);
                    self.ws();
                    match self.s.get(self.i)? {
                        b',' => self.i += 1,
                        b']' => {
                            self.i += 1;
                            return Some(Value::Array(a));
                        }
                        _ => return None,
                    }
                }
            }
            b'"' => self.string().map(Value::String),
            b't' => self.lit(b"true", Value::Bool(true)),
            b'f' => self.lit(b"false", Value::Bool(false)),
            b'n' => self.lit(b"null", Value::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }
    fn digits(&mut self) -> usize {
        let st = self.i;
        while self.i < self.s.len() && self.s[self.i].is_ascii_digit() {
            self.i += 1;
        }
        self.i - st
    }
    fn number(&mut self) -> Option<Value> {
        let st = self.i;
        if self.s[self.i] == b'-' {
            self.i += 1;
        }
        let ist = self.i;
        let n = self.digits();
        if n == 0 || (n > 1 && self.s[ist] == b'0') {
            return None;
        }
        let mut integer = true;
        if self.s.get(self.i) == Some(&b'.') {
            self.i += 1;
            integer = false;
            if self.digits() == 0 {
                return None;
            }
        }
        if matches!(self.s.get(self.i), Some(b'e') | Some(b'E')) {
            self.i += 1;
            integer = false;
            if matches!(self.s.get(self.i), Some(b'+') | Some(b'-')) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return None;
            }
        }
        let text = std::str::from_utf8(&self.s[st..self.i]).ok()?;
        if integer {
            let lit = &self.s[ist..self.i];
            let x: f64 = text.parse().ok()?;
            if x.abs() > 9007199254740992.0 {
                // More significant digits than binary64 holds for this value?
                let (d, e) = shortest_digits(x.abs());
                let lit = std::str::from_utf8(lit).ok()?;
                if lit.len() as i32 != e + 1 || lit.trim_end_matches('0') != d.trim_end_matches('0') {
                    return None;
                }
            }
        }
        let n: serde_json::Number = text.parse().ok()?;
        Some(Value::Number(n))
    }
    fn hex4(&mut self) -> Option<u32> {
        let h = self.s.get(self.i..self.i + 4)?;
        let h = std::str::from_utf8(h).ok()?;
        if !h.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        self.i += 4;
        u32::from_str_radix(h, 16).ok()
    }
    fn string(&mut self) -> Option<String> {
        self.i += 1; // opening quote
        let mut out = String::new();
        loop {
            let st = self.i;
            while self.i < self.s.len() && !matches!(self.s[self.i], b'"' | b'\\') && self.s[self.i] >= 0x20 {
                self.i += 1;
            }
            // The text is valid UTF-8 and the stops are ASCII, so this slice is too.
            out.push_str(std::str::from_utf8(&self.s[st..self.i]).ok()?);
            match *self.s.get(self.i)? {
                b'"' => {
                    self.i += 1;
                    return Some(out);
                }
                b'\\' => {
                    self.i += 1;
                    let c = *self.s.get(self.i)?;
                    self.i += 1;
                    match c {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let cu = self.hex4()?;
                            let cp = if (0xD800..0xDC00).contains(&cu) {
                                if self.s.get(self.i..self.i + 2) != Some(b"\\u") {
                                    return None; // lone high surrogate
                                }
                                self.i += 2;
                                let lo = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return None;
                                }
                                0x10000 + ((cu - 0xD800) << 10) + (lo - 0xDC00)
                            } else if (0xDC00..0xE000).contains(&cu) {
                                return None; // lone low surrogate
                            } else {
                                cu
                            };
                            out.push(char::from_u32(cp)?);
                        }
                        _ => return None,
                    }
                }
                _ => return None, // raw control character
            }
        }
    }
}

/// A deterministic canonical text of a value (members sorted, numbers as their
/// binary64 value in ECMAScript form): equal exactly when the RFC 8785 forms are.
fn canonical(v: &Value) -> String {
    let mut s = String::new();
    write_value(&mut s, v); // serde_json::Map is a BTreeMap here: sorted members
    s
}

// ---------------------------------------------------------------------------
// Excerpts
// ---------------------------------------------------------------------------

/// Length of the valid UTF-8 sequence starting at b[0], or None.
fn utf8_seq(b: &[u8]) -> Option<usize> {
    let c = *b.first()?;
    let (n, lo, hi) = match c {
        0x00..=0x7F => return Some(1),
        0xC2..=0xDF => (2, 0x80, 0xBF),
        0xE0 => (3, 0xA0, 0xBF),
        0xED => (3, 0x80, 0x9F),
        0xE1..=0xEC | 0xEE..=0xEF => (3, 0x80, 0xBF),
        0xF0 => (4, 0x90, 0xBF),
        0xF1..=0xF3 => (4, 0x80, 0xBF),
        0xF4 => (4, 0x80, 0x8F),
        _ => return None,
    };
    let b1 = *b.get(1)?;
    if b1 < lo || b1 > hi {
        return None;
    }
    for k in 2..n {
        if !(0x80..=0xBF).contains(b.get(k)?) {
            return None;
        }
    }
    Some(n)
}

/// The line's first 256 bytes, less a multi-byte sequence the cut splits, with
/// each byte outside a valid UTF-8 sequence as U+FFFD. `line` may hold more
/// than 256 bytes (it is used to tell a split sequence from an invalid one).
pub fn excerpt(line: &[u8]) -> String {
    let end = line.len().min(EXCERPT_BYTES);
    let mut out = String::new();
    let mut i = 0;
    while i < end {
        match utf8_seq(&line[i..]) {
            Some(n) if i + n <= end => {
                out.push_str(std::str::from_utf8(&line[i..i + n]).expect("valid sequence"));
                i += n;
            }
            Some(_) => break, // a valid sequence split by the cut
            None => {
                out.push('\u{FFFD}');
                i += 1;
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------
// The v2 agent
// ---------------------------------------------------------------------------

fn is_usable_id(v: Option<&Value>) -> Option<&str> {
    match v {
        Some(Value::String(s)) if !s.is_empty() => Some(s.as_str()),
        _ => None,
    }
}

fn is_version_2(v: Option<&Value>) -> bool {
    matches!(v, Some(Value::Number(n)) if num_value(n) == 2.0)
}

/// An error outcome of a request: (code, message).
type Err2 = (&'static str, String);

fn bad(msg: &str) -> Err2 {
    ("invalid_request", msg.to_string())
}

impl<W: Write> Agent<W> {
    /// Writes one frame and returns its text (without LF).
    fn emit_text(&mut self, frame: Obj) -> String {
        let mut s = String::new();
        write_out(&mut s, &Out::Obj(frame));
        let _ = self.out.write_all(s.as_bytes());
        let _ = self.out.write_all(b"\n");
        let _ = self.out.flush();
        s
    }

    fn v2_reply_ok(&mut self, rid: &str, body: Obj) {
        let f = Obj::new().set("type", "control_response").set("schemaVersion", 2u64).set(
            "response",
            Obj::new().set("subtype", "success").set("request_id", rid).set("response", body),
        );
        self.v2_terminal(rid, f);
    }

    fn v2_reply_err(&mut self, rid: &str, code: &str, msg: &str) {
        let f = Obj::new().set("type", "control_response").set("schemaVersion", 2u64).set(
            "response",
            Obj::new()
                .set("subtype", "error")
                .set("request_id", rid)
                .set("error", Obj::new().set("code", code).set("message", msg)),
        );
        self.v2_terminal(rid, f);
    }

    /// Writes the one terminal reply of `rid` and stores it for replays.
    fn v2_terminal(&mut self, rid: &str, frame: Obj) {
        let text = self.emit_text(frame);
        if let Some(u) = self.v2.used.get_mut(rid) {
            u.reply = Some(text);
        }
        self.v2.pending.retain(|p| p != rid);
    }

    fn v2_diag(&mut self, code: &str, msg: &str, rid: Option<&str>, line: &[u8], size: usize, reply: Option<String>) {
        let mut f = Obj::new()
            .set("type", "control_diagnostic")
            .set("schemaVersion", 2u64)
            .set("code", code)
            .set("message", msg);
        if let Some(r) = rid {
            f = f.set("request_id", r);
        }
        f = f.set("excerpt", excerpt(line)).set("size", size as u64);
        if let Some(r) = reply {
            f = f.set("reply", Out::Raw(r));
        }
        self.emit_text(f);
    }

    /// Judges one line in the order of docs/v2.md §7. `line` holds at most
    /// FRAME_LIMIT+1 bytes; `size` is the whole line's length without LF.
    pub fn v2_line(&mut self, line: &[u8], size: usize) -> Next {
        // 1. over the limit
        if size > FRAME_LIMIT {
            self.v2_diag("frame_too_large", &format!("line of {} bytes exceeds the 1 MiB frame limit", size), None, line, size, None);
            return Next::Go;
        }
        // 2. blank
        if line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r')) {
            return Next::Go;
        }
        // 3. strict JSON object
        let obj = match std::str::from_utf8(line).ok().and_then(parse_strict) {
            Some(Value::Object(o)) => o,
            Some(_) => {
                self.v2_diag("malformed_frame", "the line is not a JSON object", None, line, size, None);
                return Next::Go;
            }
            None => {
                self.v2_diag("malformed_frame", "the line is not strict JSON", None, line, size, None);
                return Next::Go;
            }
        };
        let ftype = match obj.get("type") {
            Some(Value::String(t)) => Some(t.as_str()),
            _ => None,
        };
        // 4. outside the control channel
        if let Some(t) = ftype {
            if PASS_OVER.contains(&t) {
                return Next::Go;
            }
        }
        let is_request = ftype == Some("control_request");
        let rid = is_usable_id(obj.get("request_id")).map(str::to_string);
        // 5. a used request id
        if is_request {
            if let Some(id) = &rid {
                let canon = canonical(&Value::Object(obj.clone()));
                if let Some(u) = self.v2.used.get(id) {
                    if u.canon == canon {
                        let reply = u.reply.clone();
                        self.v2_diag("request_replayed", "retransmission of a request already read; not run again", Some(id), line, size, reply);
                    } else {
                        self.v2_diag("duplicate_request_id", "request_id already used by a different request; not run", Some(id), line, size, None);
                    }
                    return Next::Go;
                }
                // From here on the id is used, whatever the outcome.
                self.v2.used.insert(id.clone(), Used { canon, reply: None });
            }
        }
        // 6. schemaVersion
        if !is_version_2(obj.get("schemaVersion")) {
            let msg = "schemaVersion must be 2";
            match (is_request, &rid) {
                (true, Some(id)) => self.v2_reply_err(id, "unsupported_schema_version", msg),
                _ => {
                    let named = match obj.get("type") {
                        Some(Value::String(t)) if t == "control_response" => match obj.get("response") {
                            Some(Value::Object(r)) => is_usable_id(r.get("request_id")).map(str::to_string),
                            _ => None,
                        },
                        _ => rid.clone(),
                    };
                    self.v2_diag("unsupported_schema_version", msg, named.as_deref(), line, size, None)
                }
            }
            return Next::Go;
        }
        // 7. frame type
        let ftype = match ftype {
            Some(t) if FRAME_TYPES.contains(&t) => t,
            _ => {
                self.v2_diag("unsupported_frame_type", "unknown or missing frame type", None, line, size, None);
                return Next::Go;
            }
        };
        match ftype {
            "control_diagnostic" => Next::Go, // never answered
            "control_response" => {
                // We never send requests: a valid reply names nothing.
                let ok = matches!(obj.get("response"), Some(Value::Object(r)) if is_usable_id(r.get("request_id")).is_some());
                if !ok {
                    self.v2_diag("invalid_request", "control_response without a usable request_id", None, line, size, None);
                }
                Next::Go
            }
            "control_cancel_request" => {
                match &rid {
                    None => self.v2_diag("invalid_request", "control_cancel_request without a usable request_id", None, line, size, None),
                    Some(id) => {
                        if self.v2.pending.iter().any(|p| p == id) {
                            self.v2_reply_err(id, "cancelled", "cancelled by control_cancel_request");
                        }
                    }
                }
                Next::Go
            }
            _ => {
                // 8. request_id
                let id = match rid {
                    Some(id) => id,
                    None => {
                        self.v2_diag("invalid_request", "control_request without a usable request_id (a non-empty string)", None, line, size, None);
                        return Next::Go;
                    }
                };
                self.v2_request(&id, obj.get("request"))
            }
        }
    }

    fn v2_request(&mut self, id: &str, request: Option<&Value>) -> Next {
        // 9. request body and subtype
        let req = match request {
            Some(Value::Object(r)) => r,
            _ => {
                self.v2_reply_err(id, "invalid_request", "request must be an object");
                return Next::Go;
            }
        };
        let subtype = match req.get("subtype") {
            Some(Value::String(s)) if !s.is_empty() => s.as_str(),
            _ => {
                self.v2_reply_err(id, "invalid_request", "request.subtype must be a non-empty string");
                return Next::Go;
            }
        };
        // 10. initialize first
        if subtype == "initialize" {
            return self.v2_initialize(id, req);
        }
        if !self.v2.initialized {
            self.v2_reply_err(id, "not_initialized", "the session is not initialized: send initialize first");
            return Next::Go;
        }
        // 11. the subtype's own rules
        let result: Result<Option<Obj>, Err2> = match subtype {
            "interrupt" => match req.get("cancel_queued") {
                None | Some(Value::Bool(_)) => Ok(Some(Obj::new().set("still_queued", Value::Array(vec![])))),
                _ => Err(bad("interrupt: cancel_queued must be a boolean")),
            },
            "set_model" => self.v2_set_model(req).map(Some),
            "set_permission_mode" => self.v2_set_permission_mode(req).map(Some),
            "set_max_thinking_tokens" => {
                let tokens_ok = match req.get("max_thinking_tokens") {
                    None | Some(Value::Null) => true,
                    Some(Value::Number(n)) => {
                        let x = num_value(n);
                        x.is_finite() && x.fract() == 0.0 && x >= 0.0
                    }
                    _ => false,
                };
                let display_ok = match req.get("thinking_display") {
                    None | Some(Value::Null) => true,
                    Some(Value::String(s)) => matches!(s.as_str(), "summarized" | "omitted" | "highlights"),
                    _ => false,
                };
                if tokens_ok && display_ok {
                    Ok(Some(Obj::new()))
                } else {
                    Err(bad("set_max_thinking_tokens: max_thinking_tokens must be an integer >= 0 or null, thinking_display one of summarized, omitted, highlights or null"))
                }
            }
            "get_binary_version" => Ok(Some(
                Obj::new()
                    .set("version", VERSION)
                    .set("buildTime", BUILD_TIME)
                    .set("oldestDesktopSdk", OLDEST_DESKTOP_SDK),
            )),
            "mcp_status" => Ok(Some(Obj::new().set("mcpServers", Value::Array(vec![])))),
            "get_context_usage" => Ok(Some(self.context_usage_body())),
            "rewind_files" => match (req.get("dry_run"), req.get("user_message_id")) {
                (Some(d), _) if !d.is_boolean() => Err(bad("rewind_files: dry_run must be a boolean")),
                (_, Some(u)) if !u.is_string() => Err(bad("rewind_files: user_message_id must be a string")),
                (Some(Value::Bool(true)), _) => Ok(Some(
                    Obj::new().set("canRewind", false).set("reason", "File rewinding is not enabled."),
                )),
                _ => Err(("rewind_unavailable", "File rewinding is not enabled.".to_string())),
            },
            "mcp_reconnect" | "mcp_toggle" => match (req.get("serverName"), req.get("enabled")) {
                (Some(s), _) if !s.is_string() => Err(bad("serverName must be a string")),
                (_, Some(e)) if subtype == "mcp_toggle" && !e.is_boolean() => Err(bad("mcp_toggle: enabled must be a boolean")),
                (s, _) => Err(("unknown_server", strip_invisible(&format!("Server not found: {}", js_string(s))))),
            },
            "stop_task" => match req.get("task_id") {
                Some(t) if !t.is_string() => Err(bad("stop_task: task_id must be a string")),
                _ => Ok(Some(Obj::new())),
            },
            "hold" => {
                self.v2.pending.push(id.to_string());
                Ok(None)
            }
            "release" => match req.get("target") {
                Some(Value::String(t)) if !t.is_empty() => {
                    let t = t.clone();
                    if self.v2.pending.iter().any(|p| *p == t) {
                        self.v2_reply_ok(&t, Obj::new().set("releasedBy", id));
                        Ok(Some(Obj::new().set("released", true)))
                    } else {
                        Ok(Some(Obj::new().set("released", false)))
                    }
                }
                _ => Err(bad("release: target must be a non-empty string")),
            },
            other => Err((
                "unsupported_request",
                strip_invisible(&format!("Unsupported control request subtype: {}", other)),
            )),
        };
        match result {
            Ok(Some(body)) => self.v2_reply_ok(id, body),
            Ok(None) => {} // pending
            Err((code, msg)) => self.v2_reply_err(id, code, &msg),
        }
        Next::Go
    }

    fn v2_initialize(&mut self, id: &str, req: &Map<String, Value>) -> Next {
        if self.v2.initialized {
            self.v2_reply_err(id, "already_initialized", "the session is already initialized");
            return Next::Go;
        }
        let mut versions: Vec<f64> = Vec::new();
        let valid = match req.get("protocolVersions") {
            Some(Value::Array(a)) if !a.is_empty() => a.iter().all(|v| match v {
                Value::Number(n) => {
                    let x = num_value(n);
                    let ok = x.is_finite() && x.fract() == 0.0 && x >= 1.0 && !versions.contains(&x);
                    versions.push(x);
                    ok
                }
                _ => false,
            }),
            _ => false,
        };
        if !valid {
            self.v2_reply_err(id, "invalid_request", "initialize: protocolVersions must be a non-empty array of distinct positive integers");
            return Next::Go;
        }
        if !versions.contains(&2.0) {
            // A v2-framed session speaks 2 only (v1 hosts speak v1 framing from their first line).
            self.v2_reply_err(id, "version_mismatch", "no shared protocol version: this agent speaks 2 in a v2 session");
            let _ = self.out.flush();
            return Next::Exit(1);
        }
        self.v2.initialized = true;
        let session = self.session_body(req);
        self.v2_reply_ok(id, Obj::new().set("protocolVersion", 2u64).set("session", session));
        Next::Go
    }

    fn v2_set_model(&mut self, req: &Map<String, Value>) -> Result<Obj, Err2> {
        let resolved = match req.get("model") {
            None | Some(Value::Null) => DEFAULT_MODEL.to_string(),
            Some(Value::String(s)) if s.is_empty() => return Err(bad("set_model: model must not be empty")),
            Some(Value::String(s)) => {
                // An alias with an optional context suffix such as "[1m]", or a catalog id.
                let base = match (s.find('['), s.ends_with(']')) {
                    (Some(i), true) if i > 0 => &s[..i],
                    _ => s.as_str(),
                };
                match base {
                    "default" => DEFAULT_MODEL.to_string(),
                    "opus" | "sonnet" | "haiku" => format!("claude-{}-5-5", base),
                    "claude-opus-5-5" | "claude-sonnet-5-5" | "claude-haiku-5-5" if base == s => s.clone(),
                    _ => return Err(("unknown_model", "set_model: the model is not in this agent's catalog".to_string())),
                }
            }
            Some(_) => return Err(bad("set_model: model must be a string or null")),
        };
        self.model = resolved.clone();
        Ok(Obj::new().set("model", resolved))
    }

    fn v2_set_permission_mode(&mut self, req: &Map<String, Value>) -> Result<Obj, Err2> {
        match req.get("mode") {
            Some(Value::String(m)) if matches!(m.as_str(), "acceptEdits" | "auto" | "default" | "dontAsk" | "plan") => {
                self.mode = m.clone();
                Ok(Obj::new().set("mode", m.clone()))
            }
            Some(Value::String(m)) if m == "bypassPermissions" => Err((
                "bypass_not_launched",
                "Cannot set permission mode to bypassPermissions because the session was not launched with --dangerously-skip-permissions".to_string(),
            )),
            Some(Value::String(_)) => Err(("invalid_mode", format!("Cannot set permission mode: must be one of {}", PERMISSION_MODES))),
            _ => Err(bad("set_permission_mode: mode must be a string")),
        }
    }

    /// End of input: every pending request gets its terminal reply.
    pub fn v2_finish(&mut self) {
        let pending = std::mem::take(&mut self.v2.pending);
        for id in pending {
            self.v2_reply_err(&id, "cancelled", "input ended while the request was pending");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_rejects() {
        for bad in [
            r#"{"a":1,"a":2}"#,
            r#"{"a":{"b":1,"b":1}}"#,
            r#""\ud800""#,
            r#""\udc00x""#,
            "12345678901234567890",
            "01",
            "1.",
            "[1,]",
            "{} x",
            "\"a\u{1}\"",
        ] {
            assert!(parse_strict(bad).is_none(), "{}", bad);
        }
        for good in ["12345678901234567000", "9007199254740993.5", "1e400", r#"{"a":[1,{"b":"\ud83d\ude00"}]}"#, " null "] {
            assert!(parse_strict(good).is_some(), "{}", good);
        }
    }

    #[test]
    fn canonical_equal() {
        let a = parse_strict(r#"{"b":1000,"a":"dup"}"#).unwrap();
        let b = parse_strict(r#"{ "a":"d\u0075p", "b":1e3 }"#).unwrap();
        assert_eq!(canonical(&a), canonical(&b));
    }

    #[test]
    fn excerpts() {
        assert_eq!(excerpt(b"ab\xff\xfecd"), "ab\u{FFFD}\u{FFFD}cd");
        let mut l = vec![b'x'; 255];
        l.extend_from_slice("é tail".as_bytes());
        assert_eq!(excerpt(&l), "x".repeat(255));
        let mut l = vec![b'x'; 255];
        l.extend_from_slice(b"\xc3");
        assert_eq!(excerpt(&l), format!("{}\u{FFFD}", "x".repeat(255)));
    }
}
