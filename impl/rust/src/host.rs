//! Host role of control protocol v1 (docs/host-role.md).
//!
//! `main` hands the process over to [`run`] when `CONFORM_ROLE=host`. The agent
//! writes frames on stdin; this host answers each `control_request` with exactly
//! one `control_response` on stdout, deciding as the policy in `CONFORM_POLICY`
//! (RFC 8785 JSON; unset or empty = `{}`) dictates; a `can_use_tool` the policy
//! defers gets no reply at all. Written from docs/host-role.md,
//! schemas/control.v1.json, vectors/v1/host/ and golden/v1/host/.

use serde_json::{json, Map, Value};
use std::io::{self, BufWriter, Write};

use super::{js_string, js_trim, parse, read_line, write_value};

const POLICY_ENV: &str = "CONFORM_POLICY";
const DENIED: &str = "Denied by policy";
const ASK_TOOL: &str = "AskUserQuestion";

/// `obj[key]` when `obj` is an object that has the member.
fn member<'a>(obj: Option<&'a Value>, key: &str) -> Option<&'a Value> {
    obj.and_then(Value::as_object).and_then(|o| o.get(key))
}

/// `obj[key]` when it is an object.
fn object_member<'a>(obj: Option<&'a Value>, key: &str) -> Option<&'a Map<String, Value>> {
    member(obj, key).and_then(Value::as_object)
}

fn deny_default() -> Value {
    json!({"behavior": "deny", "message": DENIED})
}

/// Whether a `can_use_tool` rule is `{"defer": true}`: the host does not decide
/// yet (a user who has not answered), so the request stays pending, and in v1
/// a pending request gets no reply at all, whether the agent cancels it or
/// input ends.
fn is_defer(rule: Option<&Value>) -> bool {
    member(rule, "defer") == Some(&Value::Bool(true))
}

/// A decision: a success body, an error text, or no reply at all (a deferred
/// request).
enum Decision {
    Body(Value),
    Error(String),
    Defer,
}

struct Host {
    policy: Value,
}

impl Host {
    fn policy_object(&self, key: &str) -> Option<&Map<String, Value>> {
        object_member(Some(&self.policy), key)
    }

    /// The `can_use_tool` rule for `req`: the tool's own, else `"*"`'s.
    fn tool_rule(&self, req: Option<&Value>) -> Option<&Value> {
        let tool = member(req, "tool_name").and_then(Value::as_str);
        let rules = self.policy_object("can_use_tool")?;
        tool.and_then(|t| rules.get(t)).or_else(|| rules.get("*"))
    }

    fn can_use_tool(&self, req: Option<&Value>) -> Value {
        let tool = member(req, "tool_name").and_then(Value::as_str);
        let rule = self.tool_rule(req).filter(|r| r.is_object());
        let behavior = member(rule, "behavior").and_then(Value::as_str);
        let input = match member(req, "input") {
            Some(v @ Value::Object(_)) => v.clone(),
            _ => Value::Object(Map::new()),
        };

        if behavior == Some("deny") {
            return deny(rule);
        }
        let given = match member(rule, "updatedInput") {
            Some(v @ Value::Object(_)) => Some(v.clone()),
            _ => None,
        };
        let questions = member(Some(&input), "questions").and_then(Value::as_array);
        if let (Some(ASK_TOOL), Some(questions)) = (tool, questions) {
            if let (Some("allow"), Some(given)) = (behavior, given) {
                return allow(rule, given);
            }
            let answers = match self.answer(questions) {
                Some(a) => a,
                None => return deny_default(),
            };
            let mut updated = input.as_object().cloned().unwrap_or_default();
            updated.insert("answers".into(), Value::Object(answers));
            let rule = if behavior == Some("allow") { rule } else { None };
            return allow(rule, Value::Object(updated));
        }
        if behavior == Some("allow") {
            return allow(rule, given.unwrap_or(input));
        }
        deny_default()
    }

    /// {question text: answer string} for every question, or None.
    fn answer(&self, questions: &[Value]) -> Option<Map<String, Value>> {
        let empty = Map::new();
        let table = self.policy_object("answers").unwrap_or(&empty);
        let mut out = Map::new();
        for q in questions {
            let text = member(Some(q), "question").and_then(Value::as_str)?;
            let answer = match table.get(text)? {
                Value::String(s) => s.clone(),
                Value::Array(items) => {
                    let labels: Option<Vec<&str>> = items.iter().map(Value::as_str).collect();
                    labels?.join(", ")
                }
                _ => return None,
            };
            out.insert(text.to_string(), Value::String(answer));
        }
        Some(out)
    }

    fn hook(&self, req: Option<&Value>) -> Decision {
        let id = member(req, "callback_id");
        if let Some(out) = id.and_then(Value::as_str).and_then(|i| self.policy_object("hooks")?.get(i)) {
            return Decision::Body(out.clone());
        }
        Decision::Error(format!("No hook callback found for ID: {}", js_string(id)))
    }

    fn mcp(&self, req: Option<&Value>) -> Value {
        let server = member(req, "server_name");
        let msg = member(req, "message");
        let id = member(msg, "id").filter(|v| !v.is_null());
        let reply = match (member(msg, "method"), id) {
            (Some(method), Some(id)) => {
                match server.and_then(Value::as_str).and_then(|s| self.policy_object("mcp")?.get(s)) {
                    Some(methods) => {
                        let result = method
                            .as_str()
                            .and_then(|m| member(Some(methods), m))
                            .cloned()
                            .unwrap_or_else(|| Value::Object(Map::new()));
                        json!({"jsonrpc": "2.0", "id": id.clone(), "result": result})
                    }
                    None => json!({"jsonrpc": "2.0", "id": id.clone(), "error": {
                        "code": -32601,
                        "message": format!("Server '{}' not found", js_string(server)),
                    }}),
                }
            }
            _ => json!({"jsonrpc": "2.0", "result": {}}),
        };
        json!({ "mcp_response": reply })
    }

    fn verbatim(&self, key: &str, default: Value) -> Value {
        match self.policy_object(key) {
            Some(body) => Value::Object(body.clone()),
            None => default,
        }
    }

    fn decide(&self, req: Option<&Value>) -> Decision {
        let subtype = member(req, "subtype");
        match subtype.and_then(Value::as_str) {
            Some("can_use_tool") if is_defer(self.tool_rule(req)) => Decision::Defer,
            Some("can_use_tool") => Decision::Body(self.can_use_tool(req)),
            Some("hook_callback") => self.hook(req),
            Some("mcp_message") => Decision::Body(self.mcp(req)),
            Some("request_user_dialog") => Decision::Body(self.verbatim("dialog", json!({"behavior": "cancelled"}))),
            Some("elicitation") => Decision::Body(self.verbatim("elicitation", json!({"action": "decline"}))),
            Some("side_question") => Decision::Body(self.verbatim("side_question", json!({"action": "decline"}))),
            _ => Decision::Error(format!("Unsupported control request subtype: {}", js_string(subtype))),
        }
    }

    /// The reply line to one input line, or None.
    fn reply(&self, line: &str) -> Option<String> {
        let text = js_trim(line);
        if text.is_empty() {
            return None;
        }
        // Not JSON: ignored (the host never exits on bad input); so are frames
        // other than control_request (replies, cancels, system, ...).
        let frame = parse(text)?;
        if frame.get("type").and_then(Value::as_str) != Some("control_request") {
            return None;
        }
        let (subtype, key, value) = match self.decide(frame.get("request")) {
            Decision::Body(b) => ("success", "response", b),
            Decision::Error(e) => ("error", "error", Value::String(e)),
            Decision::Defer => return None, // pending for good: v1 never answers it
        };
        let mut inner = Map::new();
        inner.insert("subtype".into(), Value::String(subtype.into()));
        if let Some(id) = frame.get("request_id") {
            inner.insert("request_id".into(), id.clone());
        }
        inner.insert(key.into(), value);
        let mut out = String::new();
        write_value(&mut out, &json!({"type": "control_response", "response": Value::Object(inner)}));
        Some(out)
    }
}

fn allow(rule: Option<&Value>, updated_input: Value) -> Value {
    let mut body = Map::new();
    body.insert("behavior".into(), Value::String("allow".into()));
    body.insert("updatedInput".into(), updated_input);
    if let Some(perms @ Value::Array(_)) = member(rule, "updatedPermissions") {
        body.insert("updatedPermissions".into(), perms.clone());
    }
    Value::Object(body)
}

fn deny(rule: Option<&Value>) -> Value {
    let message = member(rule, "message").and_then(Value::as_str).unwrap_or(DENIED);
    let mut body = json!({"behavior": "deny", "message": message});
    if member(rule, "interrupt") == Some(&Value::Bool(true)) {
        body["interrupt"] = Value::Bool(true);
    }
    body
}

fn load_policy() -> Result<Value, String> {
    let text = std::env::var_os(POLICY_ENV).map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    let policy = match parse(&text) {
        Some(v @ Value::Object(_)) => v,
        Some(_) => return Err(format!("{} is not a JSON object", POLICY_ENV)),
        None => return Err(format!("{} is not JSON", POLICY_ENV)),
    };
    if let Some(rules) = object_member(Some(&policy), "can_use_tool") {
        for (name, rule) in rules {
            if is_defer(Some(rule)) && rule.as_object().map_or(0, Map::len) > 1 {
                return Err(format!(
                    "{}: can_use_tool {}: a defer rule has no other member",
                    POLICY_ENV,
                    Value::String(name.clone())
                ));
            }
        }
    }
    Ok(policy)
}

/// Plays the host role until end of input; returns the exit status.
pub fn run() -> i32 {
    let host = match load_policy() {
        Ok(policy) => Host { policy },
        Err(e) => {
            eprintln!("conform-agent-rs host: {}", e);
            return 2;
        }
    };
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut buf = Vec::with_capacity(1 << 16);
    loop {
        match read_line(&mut input, &mut buf, None) {
            Ok(Some(_)) => {}
            Ok(None) => break,
            Err(e) => {
                eprintln!("Error reading stdin: {}", e);
                return 1;
            }
        }
        if let Some(reply) = host.reply(&String::from_utf8_lossy(&buf)) {
            let written = out.write_all(reply.as_bytes()).and_then(|_| out.write_all(b"\n")).and_then(|_| out.flush());
            if written.is_err() {
                return 0; // the agent went away
            }
        }
    }
    let _ = out.flush();
    0
}
