// conform's MCP client for @modelcontextprotocol/sdk 1.32.2, written as the
// SDK's README shows (Client, connect, listTools, callTool, close), except
// that its transport is this process's own stdin and stdout: conform plays
// the server there, so the client is connected to a StdioServerTransport
// (the SDK's bidirectional stdio message pipe) instead of a
// StdioClientTransport that would start a server process.
//
//   node client.mjs [--wait] [TOOL ARGUMENTS-JSON]...
//
// The contract of the suite's client role (docs/mcp-client.md): connect
// (initialize, notifications/initialized: the SDK's connect), list the tools
// page by page, call each TOOL with its ARGUMENTS-JSON in order, report a
// failed call on stderr and go on, close and exit 0; exit 1 when connect
// fails. With --wait, stay connected after the calls until the input ends.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const args = process.argv.slice(2);
const wait = args[0] === '--wait';
if (wait) args.shift();
if (args.length % 2 !== 0) {
  console.error('usage: client.mjs [--wait] [TOOL ARGUMENTS-JSON]...');
  process.exit(2);
}
const calls = [];
for (let i = 0; i < args.length; i += 2) {
  calls.push({ name: args[i], arguments: JSON.parse(args[i + 1]) });
}

const client = new Client({ name: 'conform-mcp-client-typescript', version: '0.1.0' });
const transport = new StdioServerTransport();

try {
  await client.connect(transport);
} catch (err) {
  // connect has closed the client already (it disconnects when the
  // initialization fails).
  console.error(`client.mjs: could not connect: ${err.message}`);
  process.exitCode = 1;
}

if (process.exitCode !== 1) {
  let cursor;
  do {
    const page = await client.listTools(cursor === undefined ? undefined : { cursor });
    cursor = page.nextCursor;
  } while (cursor !== undefined);

  for (const call of calls) {
    try {
      const result = await client.callTool(call);
      if (result.isError) {
        console.error(`client.mjs: ${call.name}: the tool reported an error: ${JSON.stringify(result.content)}`);
      }
    } catch (err) {
      console.error(`client.mjs: ${call.name}: ${err.message}`);
    }
  }

  if (wait) {
    // Stay connected until the session ends (client.onclose, the SDK's
    // signal). StdioServerTransport listens for data and errors only
    // (dist/esm/server/stdio.js:37-38), so nothing in it notices the end of
    // input, where a StdioClientTransport closes when its server process
    // does (dist/esm/client/stdio.js:83-85). The end of input closes the
    // transport here, which is that part.
    const closed = new Promise((resolve) => {
      client.onclose = resolve;
    });
    if (process.stdin.readableEnded) {
      await transport.close();
    } else {
      process.stdin.once('end', () => transport.close());
    }
    await closed;
  } else {
    await client.close();
  }
}
