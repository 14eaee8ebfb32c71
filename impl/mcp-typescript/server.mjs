// conform's MCP echo/adder server for @modelcontextprotocol/sdk 1.32.2,
// written as the SDK's docs/server.md shows (McpServer, registerTool with
// zod shapes, StdioServerTransport). The same five tools as every
// impl/mcp-* server: echo, add, fail, progress, slow.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as z from 'zod/v4';

const server = new McpServer({ name: 'conform-mcp-typescript', version: '0.1.0' });

server.registerTool(
  'echo',
  { description: 'Returns its text argument as text content.', inputSchema: { text: z.string() } },
  async ({ text }) => ({ content: [{ type: 'text', text }] }),
);

server.registerTool(
  'add',
  { description: 'Adds two numbers and returns the sum as text content.', inputSchema: { a: z.number(), b: z.number() } },
  async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
);

server.registerTool(
  'fail',
  { description: 'Always ends in a tool execution error (isError: true) carrying its message.', inputSchema: { message: z.string().optional() } },
  async ({ message }) => ({ content: [{ type: 'text', text: message || 'the fail tool always fails' }], isError: true }),
);

server.registerTool(
  'progress',
  { description: 'Sends one notifications/progress per step when the request carries a progressToken, then returns.', inputSchema: { steps: z.number().int().min(1).max(100) } },
  async ({ steps }, extra) => {
    const progressToken = extra._meta?.progressToken;
    if (progressToken !== undefined) {
      for (let i = 1; i <= steps; i++) {
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress: i, total: steps, message: `step ${i} of ${steps}` },
        });
      }
    }
    return { content: [{ type: 'text', text: `done after ${steps} steps` }] };
  },
);

server.registerTool(
  'slow',
  { description: 'Waits ms milliseconds (at most 60000) before returning; notifications/cancelled ends it without a response.', inputSchema: { ms: z.number().int().min(0).max(60000) } },
  async ({ ms }, extra) => {
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      extra.signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); });
    });
    return { content: [{ type: 'text', text: `slept ${ms} ms` }] };
  },
);

await server.connect(new StdioServerTransport());
