"""conform's MCP echo/adder server for the Python SDK (PyPI mcp 2.3.0).

Written as the SDK's README shows (MCPServer, @mcp.tool() on type-hinted
functions, mcp.run() on stdio). The same five tools as every impl/mcp-*
server: echo, add, fail, progress, slow.
"""

import anyio

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, TextContent

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


if __name__ == "__main__":
    mcp.run()
