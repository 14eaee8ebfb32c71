//! conform host-role adapter around the community crate `claude-agent-sdk-rs`
//! (spawned mode): the SDK starts "the Claude Code CLI", which is conform's
//! agent double (`claude` on PATH), and this program answers the agent's
//! requests through the SDK's own callbacks, following the vector's policy in
//! `CONFORM_POLICY` (docs/host-role.md). It uses the SDK as its README shows:
//! `ClaudeClient::new(options)`, `connect`, `query`, `receive_response` until
//! `Message::Result`, `disconnect`; options `can_use_tool`, `hooks` (built
//! with `Hooks`) and `mcp_servers` (an `SdkMcpServer`). Everything on the
//! wire is the SDK's doing.

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use claude_agent_sdk_rs::types::mcp::McpSdkServerConfig;
use claude_agent_sdk_rs::{
    ClaudeAgentOptions, ClaudeClient, HookJsonOutput, Hooks, McpServerConfig, McpServers, Message,
    PermissionResult, PermissionResultAllow, PermissionResultDeny, PermissionUpdate, SdkMcpServer,
    ToolPermissionContext,
};
use futures::StreamExt;
use futures::future::BoxFuture;
use serde_json::{Map, Value, json};

const DENIED: &str = "Denied by policy";

fn read_policy() -> anyhow::Result<Map<String, Value>> {
    match std::env::var("CONFORM_POLICY") {
        Ok(raw) if !raw.is_empty() => match serde_json::from_str(&raw)? {
            Value::Object(m) => Ok(m),
            _ => anyhow::bail!("CONFORM_POLICY is not a JSON object"),
        },
        _ => Ok(Map::new()),
    }
}

fn deny(rule: Option<&Value>) -> PermissionResult {
    let message = rule
        .and_then(|r| r.get("message"))
        .and_then(Value::as_str)
        .unwrap_or(DENIED)
        .to_string();
    let interrupt = rule
        .and_then(|r| r.get("interrupt"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    PermissionResult::Deny(PermissionResultDeny { message, interrupt })
}

/// The policy's decision for one can_use_tool request.
fn decide(policy: &Map<String, Value>, tool: &str, input: Value) -> PermissionResult {
    let rules = policy.get("can_use_tool").and_then(Value::as_object);
    let rule = rules.and_then(|r| r.get(tool).or_else(|| r.get("*")));
    let behavior = rule.and_then(|r| r.get("behavior")).and_then(Value::as_str);
    if behavior == Some("deny") {
        return deny(rule);
    }
    let rule_input = rule.and_then(|r| r.get("updatedInput")).cloned();
    let questions = input.get("questions").and_then(Value::as_array);
    if let (true, Some(questions), None) = (tool == "AskUserQuestion", questions, &rule_input) {
        let answers = policy.get("answers").and_then(Value::as_object);
        let mut out = Map::new();
        for q in questions {
            let text = q
                .get("question")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let Some(a) = answers.and_then(|a| a.get(text)) else {
                return deny(None);
            };
            let a = match a {
                Value::Array(labels) => Value::String(
                    labels
                        .iter()
                        .map(|l| l.as_str().unwrap_or_default())
                        .collect::<Vec<_>>()
                        .join(", "),
                ),
                other => other.clone(),
            };
            out.insert(text.to_string(), a);
        }
        let mut updated = input.as_object().cloned().unwrap_or_default();
        updated.insert("answers".into(), Value::Object(out));
        return PermissionResult::Allow(PermissionResultAllow {
            updated_input: Some(Value::Object(updated)),
            updated_permissions: None,
        });
    }
    if behavior == Some("allow") {
        let perms = rule
            .and_then(|r| r.get("updatedPermissions"))
            .and_then(|p| serde_json::from_value::<Vec<PermissionUpdate>>(p.clone()).ok());
        // A rule without updatedInput allows the tool with its input unchanged.
        return PermissionResult::Allow(PermissionResultAllow {
            updated_input: Some(rule_input.unwrap_or(input)),
            updated_permissions: perms,
        });
    }
    deny(None)
}

/// hook_N of the policy is the SDK's N-th registered callback (the SDK names
/// them hook_0, hook_1, ... in registration order): one PreToolUse hook per
/// number up to the highest; numbers the policy skips answer {}.
fn hooks(policy: &Map<String, Value>) -> Option<Hooks> {
    let bodies = policy.get("hooks").and_then(Value::as_object)?;
    let n = bodies
        .keys()
        .filter_map(|k| k.strip_prefix("hook_")?.parse::<usize>().ok())
        .max()?;
    let mut hooks = Hooks::new();
    for i in 0..=n {
        let body = bodies
            .get(&format!("hook_{i}"))
            .cloned()
            .unwrap_or(json!({}));
        hooks.add_pre_tool_use(
            move |_input, _tool_use_id, _ctx| -> BoxFuture<'static, HookJsonOutput> {
                let body = body.clone();
                Box::pin(async move {
                    // The SDK's hook output is typed: members it has no field for are lost.
                    serde_json::from_value(body)
                        .unwrap_or_else(|_| HookJsonOutput::Sync(Default::default()))
                })
            },
        );
    }
    Some(hooks)
}

/// An in-process MCP server that answers each JSON-RPC request with the
/// policy's result for its method ({} by default).
struct PolicyMcpServer {
    methods: Map<String, Value>,
}

#[async_trait]
impl SdkMcpServer for PolicyMcpServer {
    async fn handle_message(&self, message: Value) -> claude_agent_sdk_rs::Result<Value> {
        let method = message
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let result = self.methods.get(method).cloned().unwrap_or(json!({}));
        Ok(match message.get("id") {
            Some(id) if !id.is_null() => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            _ => json!({"jsonrpc": "2.0", "result": {}}),
        })
    }
}

fn mcp_servers(policy: &Map<String, Value>) -> McpServers {
    let mut servers = HashMap::new();
    for (name, methods) in policy
        .get("mcp")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let instance = Arc::new(PolicyMcpServer {
            methods: methods.as_object().cloned().unwrap_or_default(),
        });
        servers.insert(
            name.clone(),
            McpServerConfig::Sdk(McpSdkServerConfig {
                name: name.clone(),
                instance,
            }),
        );
    }
    if servers.is_empty() {
        McpServers::default()
    } else {
        McpServers::Dict(servers)
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let policy = Arc::new(read_policy()?);
    let p = Arc::clone(&policy);
    let can_use_tool = Arc::new(
        move |tool: String,
              input: Value,
              _ctx: ToolPermissionContext|
              -> BoxFuture<'static, PermissionResult> {
            let decision = decide(&p, &tool, input);
            Box::pin(async move { decision })
        },
    );
    let mut options = ClaudeAgentOptions::builder()
        .can_use_tool(can_use_tool)
        .mcp_servers(mcp_servers(&policy))
        .build();
    options.hooks = hooks(&policy).map(Hooks::build);

    let mut client = ClaudeClient::new(options);
    client.connect().await?;
    client.query("conform").await?;
    let mut stream = client.receive_response();
    while let Some(message) = stream.next().await {
        if let Message::Result(_) = message? {
            break;
        }
    }
    drop(stream);
    client.disconnect().await?;
    Ok(())
}
