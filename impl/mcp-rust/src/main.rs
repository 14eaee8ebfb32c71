//! conform's MCP echo/adder server for rmcp 3.11.0, written as the SDK's
//! README shows (`#[tool_router]` and `#[tool_handler]` on a struct,
//! `serve(stdio())`, `waiting()`). The same five tools as every impl/mcp-*
//! server: echo, add, fail, progress, slow; and the three that ask the client
//! (roots, sample, elicit), through the request context's `Peer<RoleServer>`:
//! `list_roots`, `create_message` and `create_elicitation` (crate feature
//! `elicitation`). The server does not check the client's capabilities
//! itself: whatever the SDK does is what the suite sees.

use std::time::Duration;

#[allow(
    deprecated,
    reason = "sampling is deprecated as of 2026-07-28 (SEP-2577); the suite speaks 2025-11-25"
)]
use rmcp::model::{CreateMessageRequestParams, SamplingMessage};
use rmcp::{
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    model::{
        CallToolResult, ContentBlock, ElicitRequestParams, ElicitationAction, ElicitationSchema,
        ProgressNotificationParam,
    },
    schemars, serde_json,
    service::{RequestContext, ServiceError},
    tool, tool_handler, tool_router,
    transport::stdio,
    ErrorData, RoleServer, ServerHandler, ServiceExt,
};

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct EchoParams {
    text: String,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct AddParams {
    a: f64,
    b: f64,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct FailParams {
    message: Option<String>,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct ProgressParams {
    /// from 1 to 100
    steps: u32,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct SlowParams {
    /// milliseconds, at most 60000
    ms: u64,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct SampleParams {
    prompt: String,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct ElicitParams {
    message: String,
}

#[derive(Clone)]
struct Conform {
    #[allow(dead_code, reason = "read by the code #[tool_handler] generates")]
    tool_router: ToolRouter<Self>,
}

/// The sum as the other SDK servers write it (ECMAScript Number::toString
/// for these magnitudes): Rust's Display for f64 already writes 3, not 3.0.
fn number(x: f64) -> String {
    format!("{x}")
}

fn text(s: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s)])
}

fn tool_error(s: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(s)])
}

/// The isError result of a request the client answered with a JSON-RPC
/// error, or that failed in the SDK.
fn client_failed(method: &str, err: ServiceError) -> CallToolResult {
    match err {
        ServiceError::McpError(e) => tool_error(format!(
            "the client answered {method} with error {}: {}",
            e.code.0, e.message
        )),
        other => tool_error(other.to_string()),
    }
}

#[tool_router]
impl Conform {
    fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }

    #[tool(description = "Returns its text argument as text content.")]
    fn echo(&self, Parameters(EchoParams { text }): Parameters<EchoParams>) -> String {
        text
    }

    #[tool(description = "Adds two numbers and returns the sum as text content.")]
    fn add(&self, Parameters(AddParams { a, b }): Parameters<AddParams>) -> String {
        number(a + b)
    }

    #[tool(
        description = "Always ends in a tool execution error (isError: true) carrying its message."
    )]
    fn fail(&self, Parameters(FailParams { message }): Parameters<FailParams>) -> CallToolResult {
        let text = message
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| "the fail tool always fails".to_string());
        CallToolResult::error(vec![ContentBlock::text(text)])
    }

    #[tool(
        description = "Sends one notifications/progress per step when the request carries a progressToken, then returns."
    )]
    async fn progress(
        &self,
        Parameters(ProgressParams { steps }): Parameters<ProgressParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<String, ErrorData> {
        if let Some(token) = ctx.meta.get_progress_token() {
            for i in 1..=steps {
                let param = ProgressNotificationParam::new(token.clone(), i as f64)
                    .with_total(steps as f64)
                    .with_message(format!("step {i} of {steps}"));
                ctx.peer
                    .notify_progress(param)
                    .await
                    .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
            }
        }
        Ok(format!("done after {steps} steps"))
    }

    #[tool(
        description = "Waits ms milliseconds (at most 60000) before returning; notifications/cancelled ends it without a response."
    )]
    async fn slow(&self, Parameters(SlowParams { ms }): Parameters<SlowParams>) -> String {
        tokio::time::sleep(Duration::from_millis(ms.min(60000))).await;
        format!("slept {ms} ms")
    }

    #[tool(description = "Asks the client for roots/list and returns the root URIs, one per line.")]
    #[allow(
        deprecated,
        reason = "roots is deprecated as of 2026-07-28 (SEP-2577); the suite speaks 2025-11-25"
    )]
    async fn roots(&self, ctx: RequestContext<RoleServer>) -> CallToolResult {
        let res = ctx.peer.list_roots().await;
        match res {
            Ok(res) => text(
                res.roots
                    .iter()
                    .map(|r| r.uri.as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            Err(e) => client_failed("roots/list", e),
        }
    }

    #[tool(
        description = "Asks the client for sampling/createMessage with the prompt and returns the model's text."
    )]
    #[allow(
        deprecated,
        reason = "sampling is deprecated as of 2026-07-28 (SEP-2577); the suite speaks 2025-11-25"
    )]
    async fn sample(
        &self,
        Parameters(SampleParams { prompt }): Parameters<SampleParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let res = ctx
            .peer
            .create_message(CreateMessageRequestParams::new(
                vec![SamplingMessage::user_text(prompt)],
                100,
            ))
            .await;
        match res {
            Ok(res) => match res.message.content.first().and_then(|c| c.as_text()) {
                Some(t) => text(format!("{} (model {})", t.text, res.model)),
                None => tool_error("the client's sampling result has no text content"),
            },
            Err(e) => client_failed("sampling/createMessage", e),
        }
    }

    #[tool(
        description = "Asks the client for elicitation/create (a form with one string field, name) and returns the action and content."
    )]
    async fn elicit(
        &self,
        Parameters(ElicitParams { message }): Parameters<ElicitParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let schema = ElicitationSchema::builder()
            .required_string_property("name", |s| s.title("Name"))
            .build_unchecked();
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message,
            requested_schema: schema,
        };
        match ctx.peer.create_elicitation(params).await {
            Ok(res) => match (res.action, res.content) {
                (ElicitationAction::Accept, Some(content)) => text(format!("accept {content}")),
                (action, _) => text(
                    serde_json::to_value(action)
                        .ok()
                        .and_then(|v| v.as_str().map(String::from))
                        .unwrap_or_default(),
                ),
            },
            Err(e) => client_failed("elicitation/create", e),
        }
    }
}

#[tool_handler(name = "conform-mcp-rust", version = "0.1.0")]
impl ServerHandler for Conform {}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let service = Conform::new().serve(stdio()).await?;
    service.waiting().await?;
    Ok(())
}
