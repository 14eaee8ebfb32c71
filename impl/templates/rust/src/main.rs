//! Template: a conform host-role adapter for your SDK, in Rust.
//!
//! conform certifies a host (an SDK that drives the Claude Code CLI) in
//! spawned mode: your adapter is started once per vector, with the vector's
//! decisions in the environment variable `CONFORM_POLICY` (docs/host-role.md),
//! and starts "the CLI" the way your SDK always does: the `claude` on PATH
//! (also named by `CONFORM_AGENT`) is conform's agent double, which plays the
//! vector and records what your SDK answers.
//!
//! ```sh
//! cargo build --release && conform run --role host --mode spawned -- "$PWD/target/release/conform-adapter-template"
//! ```
//!
//! Part 1 (keep): the policy functions; each returns the reply body your
//! SDK's callback should produce. Part 2 (replace): a stand-in for an SDK, so
//! that this template runs as it is. In your adapter, delete Part 2, build
//! your SDK's client as its README shows, register Part 1's functions as its
//! callbacks (permission callback, hooks, an in-process MCP server, dialog and
//! elicitation handlers), send one prompt and wait for the result. Never fix
//! up what your SDK writes: the report should show its faults.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{Map, Value, json};

const DENIED: &str = "Denied by policy";

struct Policy(Map<String, Value>);

// ---- Part 1: the policy as callbacks ----

impl Policy {
    fn from_env() -> Self {
        let raw = std::env::var("CONFORM_POLICY").unwrap_or_default();
        match serde_json::from_str(if raw.is_empty() { "{}" } else { &raw }) {
            Ok(Value::Object(m)) => Policy(m),
            _ => panic!("CONFORM_POLICY is not a JSON object"),
        }
    }

    fn get(&self, path: &[&str]) -> Option<&Value> {
        let mut v = self.0.get(path[0])?;
        for k in &path[1..] {
            v = v.get(*k)?;
        }
        Some(v)
    }

    /// The permission decision: {"behavior": "allow"|"deny", ...}, or None
    /// for "no decision yet" (rule {"defer": true}: the user has not answered).
    fn can_use_tool(&self, tool: &str, input: &Value) -> Option<Value> {
        let rules = self.get(&["can_use_tool"]);
        let rule = rules.and_then(|r| r.get(tool).or_else(|| r.get("*")));
        let field = |k: &str| rule.and_then(|r| r.get(k));
        if field("defer") == Some(&json!(true)) {
            return None;
        }
        if field("behavior") == Some(&json!("deny")) {
            let mut out = json!({"behavior": "deny", "message": field("message").cloned().unwrap_or(json!(DENIED))});
            if field("interrupt") == Some(&json!(true)) {
                out["interrupt"] = json!(true);
            }
            return Some(out);
        }
        if let (true, Some(qs), None) = (
            tool == "AskUserQuestion",
            input.get("questions").and_then(Value::as_array),
            field("updatedInput"),
        ) {
            let mut answers = Map::new();
            for q in qs {
                let text = q
                    .get("question")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let Some(a) = self.get(&["answers", text]) else {
                    return Some(json!({"behavior": "deny", "message": DENIED}));
                };
                let a = match a.as_array() {
                    Some(list) => json!(
                        list.iter()
                            .filter_map(Value::as_str)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    None => a.clone(),
                };
                answers.insert(text.to_string(), a);
            }
            let mut updated = input.clone();
            updated["answers"] = Value::Object(answers);
            return Some(json!({"behavior": "allow", "updatedInput": updated}));
        }
        if field("behavior") == Some(&json!("allow")) {
            let mut out = json!({"behavior": "allow", "updatedInput": field("updatedInput").unwrap_or(input)});
            if let Some(p) = field("updatedPermissions") {
                out["updatedPermissions"] = p.clone();
            }
            return Some(out);
        }
        Some(json!({"behavior": "deny", "message": DENIED}))
    }

    /// The hook output of a registered callback, None for an unknown one.
    fn hook(&self, callback_id: &str) -> Option<Value> {
        self.get(&["hooks", callback_id]).cloned()
    }

    /// The JSON-RPC reply of your SDK's in-process MCP server.
    fn mcp(&self, server: &str, msg: &Value) -> Value {
        let (Some(method), Some(id)) = (
            msg.get("method").and_then(Value::as_str),
            msg.get("id").filter(|i| !i.is_null()),
        ) else {
            return json!({"jsonrpc": "2.0", "result": {}}); // a notification: acknowledged
        };
        match self.get(&["mcp", server]) {
            None => {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": format!("Server '{server}' not found")}})
            }
            Some(methods) => {
                json!({"jsonrpc": "2.0", "id": id, "result": methods.get(method).cloned().unwrap_or(json!({}))})
            }
        }
    }

    fn or(&self, name: &str, default: Value) -> Value {
        self.get(&[name]).cloned().unwrap_or(default)
    }
}

// ---- Part 2: a stand-in for your SDK (replace with your SDK's client) ----

/// The control_response payload for one request, or None: no reply (a
/// permission the user has not decided yet).
fn answer(p: &Policy, body: &Value) -> Option<Value> {
    let s = |k: &str| body.get(k).and_then(Value::as_str).unwrap_or_default();
    let ok = |v: Value| json!({"subtype": "success", "response": v});
    Some(match s("subtype") {
        // None is "no decision yet": a real SDK adapter's permission callback
        // returns a future that is never completed, so the SDK writes nothing,
        // even when the agent cancels the request.
        "can_use_tool" => {
            ok(p.can_use_tool(s("tool_name"), body.get("input").unwrap_or(&json!({})))?)
        }
        "hook_callback" => match p.hook(s("callback_id")) {
            Some(out) => ok(out),
            None => {
                json!({"subtype": "error", "error": format!("No hook callback found for ID: {}", s("callback_id"))})
            }
        },
        "mcp_message" => ok(
            json!({"mcp_response": p.mcp(s("server_name"), body.get("message").unwrap_or(&json!({})))}),
        ),
        "request_user_dialog" => ok(p.or("dialog", json!({"behavior": "cancelled"}))),
        "elicitation" => ok(p.or("elicitation", json!({"action": "decline"}))),
        "side_question" => ok(p.or("side_question", json!({"action": "decline"}))),
        other => {
            json!({"subtype": "error", "error": format!("Unsupported control request subtype: {other}")})
        }
    })
}

fn main() {
    let policy = Policy::from_env();
    let mut agent = Command::new("claude")
        .args([
            "--output-format",
            "stream-json",
            "--verbose",
            "--input-format",
            "stream-json",
        ])
        .args(["--permission-prompt-tool", "stdio"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start claude");
    let mut stdin = agent.stdin.take();
    let send = |stdin: &mut Option<std::process::ChildStdin>, frame: Value| {
        if let Some(w) = stdin.as_mut() {
            writeln!(w, "{frame}").expect("write to the agent");
        }
    };
    send(
        &mut stdin,
        json!({"type": "control_request", "request_id": "init-1", "request": {"subtype": "initialize"}}),
    );
    send(
        &mut stdin,
        json!({"type": "user", "message": {"role": "user", "content": "conform"}, "parent_tool_use_id": null}),
    );
    for line in BufReader::new(agent.stdout.take().expect("stdout")).lines() {
        let Ok(frame) = serde_json::from_str::<Value>(&line.expect("read from the agent")) else {
            continue;
        };
        match frame.get("type").and_then(Value::as_str) {
            Some("result") => drop(stdin.take()),
            Some("control_request") => {
                let Some(mut reply) = answer(&policy, frame.get("request").unwrap_or(&json!({})))
                else {
                    continue; // pending: no reply, ever (v1)
                };
                if let Some(id) = frame.get("request_id") {
                    reply["request_id"] = id.clone();
                }
                send(
                    &mut stdin,
                    json!({"type": "control_response", "response": reply}),
                );
            }
            _ => {}
        }
    }
    std::process::exit(agent.wait().map(|s| s.code().unwrap_or(1)).unwrap_or(1));
}
