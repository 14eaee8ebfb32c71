//! conform's MCP echo/adder server for rmcp 3.11.0, written as the SDK's
//! README shows (`#[tool_router]` and `#[tool_handler]` on a struct,
//! `serve(stdio())`, `waiting()`). The same five tools as every impl/mcp-*
//! server: echo, add, fail, progress, slow.

use std::time::Duration;

use rmcp::{
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    model::{CallToolResult, ContentBlock, ProgressNotificationParam},
    schemars,
    service::RequestContext,
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

#[tool_router]
impl Conform {
    fn new() -> Self {
        Self { tool_router: Self::tool_router() }
    }

    #[tool(description = "Returns its text argument as text content.")]
    fn echo(&self, Parameters(EchoParams { text }): Parameters<EchoParams>) -> String {
        text
    }

    #[tool(description = "Adds two numbers and returns the sum as text content.")]
    fn add(&self, Parameters(AddParams { a, b }): Parameters<AddParams>) -> String {
        number(a + b)
    }

    #[tool(description = "Always ends in a tool execution error (isError: true) carrying its message.")]
    fn fail(&self, Parameters(FailParams { message }): Parameters<FailParams>) -> CallToolResult {
        let text = message.filter(|m| !m.is_empty()).unwrap_or_else(|| "the fail tool always fails".to_string());
        CallToolResult::error(vec![ContentBlock::text(text)])
    }

    #[tool(description = "Sends one notifications/progress per step when the request carries a progressToken, then returns.")]
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

    #[tool(description = "Waits ms milliseconds (at most 60000) before returning; notifications/cancelled ends it without a response.")]
    async fn slow(&self, Parameters(SlowParams { ms }): Parameters<SlowParams>) -> String {
        tokio::time::sleep(Duration::from_millis(ms.min(60000))).await;
        format!("slept {ms} ms")
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
