// conform's MCP echo/adder server for @modelcontextprotocol/sdk 1.32.2,
// written as the SDK's docs/server.md shows (McpServer, registerTool with
// zod shapes, StdioServerTransport). The same five tools as every
// impl/mcp-* server: echo, add, fail, progress, slow; and the three that ask
// the client (roots, sample, elicit), written as the SDK's
// docs/capabilities.md shows: server.server.listRoots, createMessage and
// elicitInput from inside a tool handler. The server does not check the
// client's capabilities itself: whatever the SDK does is what the suite sees.
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

// A request the SDK refused to send, or that the client answered with an
// error (McpError 'MCP error <code>: <message>'): an isError result with the
// SDK's message.
const failed = (err) => ({ content: [{ type: 'text', text: err instanceof Error ? err.message : String(err) }], isError: true });

server.registerTool(
  'roots',
  { description: 'Asks the client for roots/list and returns the root URIs, one per line.' },
  async () => {
    try {
      const { roots } = await server.server.listRoots();
      return { content: [{ type: 'text', text: roots.map((r) => r.uri).join('\n') }] };
    } catch (err) {
      return failed(err);
    }
  },
);

server.registerTool(
  'sample',
  { description: "Asks the client for sampling/createMessage with the prompt and returns the model's text.", inputSchema: { prompt: z.string() } },
  async ({ prompt }) => {
    try {
      const result = await server.server.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
        maxTokens: 100,
      });
      const content = Array.isArray(result.content) ? result.content[0] : result.content;
      if (content?.type !== 'text') {
        return { content: [{ type: 'text', text: "the client's sampling result has no text content" }], isError: true };
      }
      return { content: [{ type: 'text', text: `${content.text} (model ${result.model})` }] };
    } catch (err) {
      return failed(err);
    }
  },
);

server.registerTool(
  'elicit',
  { description: 'Asks the client for elicitation/create (a form with one string field, name) and returns the action and content.', inputSchema: { message: z.string() } },
  async ({ message }) => {
    try {
      const result = await server.server.elicitInput({
        mode: 'form',
        message,
        requestedSchema: { type: 'object', properties: { name: { type: 'string', title: 'Name' } }, required: ['name'] },
      });
      const text = result.action === 'accept' && result.content ? `accept ${JSON.stringify(result.content)}` : result.action;
      return { content: [{ type: 'text', text }] };
    } catch (err) {
      return failed(err);
    }
  },
);

await server.connect(new StdioServerTransport());
