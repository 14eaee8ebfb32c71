"""conform's MCP client for the Python SDK (PyPI mcp 2.3.0).

Written as the SDK's client docs show (ClientSession: initialize, list_tools,
call_tool), except that its streams are this process's own stdin and stdout
(mcp.server.stdio.stdio_server, the SDK's stdio message pipe): conform plays
the server there, where stdio_client would start a server process.

    python client.py [--wait] [TOOL ARGUMENTS-JSON]...

The contract of the suite's client role (docs/mcp-client.md): connect
(initialize, notifications/initialized), list the tools page by page, call
each TOOL with its ARGUMENTS-JSON in order, report a failed call on stderr
and go on, then leave the session and exit 0; exit 1 when the session could
not be initialized. With --wait, stay connected after the calls until the
session ends.

One difference from stdio_server's defaults: the adapter hands it a stdin it
can end. stdio_server joins its reader and writer tasks when its context is
left, and its reader (`async for line in stdin` over anyio.wrap_file, a
readline in a worker thread that cancellation waits for) ends only at the end
of input (mcp/server/stdio.py stdin_reader; anyio 4.16 _core/_fileio.py
AsyncFile.readline), so a process cannot leave stdio_server() while its peer
keeps the pipe open. A server is told to stop by the end of its input and
never meets this; a client that has done its work must leave first. So stdin
is read here by asyncio's pipe reader, which the adapter closes once the
session is over, as the end of input would; stdio_server(stdin=...) is its
documented way to take other streams, and everything else (parsing,
validation, writing) is the SDK's.
"""

import asyncio
import json
import sys
from collections.abc import AsyncIterator

import anyio

from mcp import ClientSession, MCPError, stdio_server
from mcp import types


def report(message: str) -> None:
    print(f"client.py: {message}", file=sys.stderr, flush=True)


class Stdin:
    """This process's stdin as lines, read by asyncio's pipe reader; close() ends them as end of input would."""

    def __init__(self) -> None:
        self._transport: asyncio.ReadTransport | None = None
        self._closed = False

    async def lines(self) -> AsyncIterator[str]:
        reader = asyncio.StreamReader(limit=64 << 20)
        loop = asyncio.get_running_loop()
        self._transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        while (line := await reader.readline()) and not self._closed:
            yield line.decode("utf-8", errors="replace")

    def close(self) -> None:
        # Lines read but not yet handed on are dropped: the session that
        # would take them is over (stdio_server's reader would otherwise
        # hand one to a closed stream, mcp/server/stdio.py:184-196).
        self._closed = True
        if self._transport is not None:
            self._transport.close()


async def main(argv: list[str]) -> int:
    wait = argv[:1] == ["--wait"]
    if wait:
        argv = argv[1:]
    if len(argv) % 2:
        report("usage: client.py [--wait] [TOOL ARGUMENTS-JSON]...")
        return 2
    calls = [(argv[i], json.loads(argv[i + 1])) for i in range(0, len(argv), 2)]

    stdin = Stdin()
    async with stdio_server(stdin=stdin.lines()) as (read_stream, write_stream):
        try:
            async with ClientSession(
                read_stream,
                write_stream,
                client_info=types.Implementation(name="conform-mcp-client-python", version="0.1.0"),
            ) as session:
                return await work(session, calls, wait)
        finally:
            stdin.close()


async def work(session: ClientSession, calls: list[tuple[str, dict]], wait: bool) -> int:
    """The client's work in an open session: its exit status."""
    try:
        await session.initialize()
    except (MCPError, RuntimeError) as exc:
        report(f"could not initialize: {exc}")
        return 1

    cursor = None
    while True:
        params = types.PaginatedRequestParams(cursor=cursor) if cursor is not None else None
        page = await session.list_tools(params=params)
        cursor = page.next_cursor
        if cursor is None:
            break

    for name, arguments in calls:
        try:
            result = await session.call_tool(name, arguments)
        except MCPError as exc:
            report(f"{name}: {exc}")
            continue
        if result.is_error:
            report(f"{name}: the tool reported an error: {result.content}")

    if wait:
        # ClientSession has no event for the end of the session: its
        # dispatcher stops reading at end of input and wakes only the
        # requests still waiting (mcp/shared/jsonrpc_dispatcher.py run). A
        # client with nothing in flight waits here.
        await anyio.sleep_forever()
    return 0


if __name__ == "__main__":
    sys.exit(anyio.run(main, sys.argv[1:]))
