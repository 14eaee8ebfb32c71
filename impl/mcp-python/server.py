"""conform's MCP echo/adder server for the Python SDK (PyPI mcp 2.3.0).

Written as the SDK's README shows (MCPServer, @mcp.tool() on type-hinted
functions, mcp.run() on stdio). The same five tools as every impl/mcp-*
server: echo, add, fail, progress, slow; and the three that ask the client
(roots, sample, elicit), written as the SDK's examples show:
ctx.session.list_roots(), ctx.session.create_message(...) and
ctx.elicit(message, schema=<pydantic model>) from inside a tool. The server
does not check the client's capabilities itself: whatever the SDK does is
what the suite sees.
"""

import json

import anyio
from pydantic import BaseModel

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, SamplingMessage, TextContent

mcp = MCPServer("conform-mcp-python", version="0.1.0")


def _number(x: float) -> str:
    """The sum as the other SDK servers write it (ECMAScript Number::toString for these magnitudes): 3, not 3.0."""
    if x.is_integer() and abs(x) < 1e21:
        return str(int(x))
    return repr(x)


@mcp.tool()
def echo(text: str) -> str:
    """Returns its text argument as text content."""
    return text


@mcp.tool()
def add(a: float, b: float) -> str:
    """Adds two numbers and returns the sum as text content."""
    return _number(a + b)


@mcp.tool()
def fail(message: str = "") -> CallToolResult:
    """Always ends in a tool execution error (isError: true) carrying its message."""
    return CallToolResult(content=[TextContent(type="text", text=message or "the fail tool always fails")], is_error=True)


@mcp.tool()
async def progress(steps: int, ctx: Context) -> str:
    """Sends one notifications/progress per step when the request carries a progressToken, then returns."""
    for i in range(1, steps + 1):
        await ctx.report_progress(i, steps, f"step {i} of {steps}")
    return f"done after {steps} steps"


@mcp.tool()
async def slow(ms: int) -> str:
    """Waits ms milliseconds (at most 60000) before returning; notifications/cancelled ends it without a response."""
    await anyio.sleep(min(ms, 60000) / 1000)
    return f"slept {ms} ms"


def _text(text: str, is_error: bool = False) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=is_error)


def _client_error(method: str, e: MCPError) -> CallToolResult:
    """The client answered the server's request with a JSON-RPC error."""
    return _text(f"the client answered {method} with error {e.code}: {e.message}", is_error=True)


@mcp.tool()
async def roots(ctx: Context) -> CallToolResult:
    """Asks the client for roots/list and returns the root URIs, one per line."""
    try:
        result = await ctx.session.list_roots()
    except MCPError as e:
        return _client_error("roots/list", e)
    return _text("\n".join(str(root.uri) for root in result.roots))


@mcp.tool()
async def sample(prompt: str, ctx: Context) -> CallToolResult:
    """Asks the client for sampling/createMessage with the prompt and returns the model's text."""
    try:
        result = await ctx.session.create_message(
            messages=[SamplingMessage(role="user", content=TextContent(type="text", text=prompt))],
            max_tokens=100,
        )
    except MCPError as e:
        return _client_error("sampling/createMessage", e)
    if result.content.type != "text":
        return _text("the client's sampling result has no text content", is_error=True)
    return _text(f"{result.content.text} (model {result.model})")


class NameForm(BaseModel):
    name: str


@mcp.tool()
async def elicit(message: str, ctx: Context) -> CallToolResult:
    """Asks the client for elicitation/create (a form with one string field, name) and returns the action and content."""
    try:
        result = await ctx.elicit(message, schema=NameForm)
    except MCPError as e:
        return _client_error("elicitation/create", e)
    if result.action == "accept":
        return _text("accept " + json.dumps(result.data.model_dump(), separators=(",", ":")))
    return _text(result.action)


if __name__ == "__main__":
    mcp.run()
