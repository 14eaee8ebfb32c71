// conform host-role driver around @anthropic-ai/claude-agent-sdk (spawned
// mode): the SDK starts the agent double at $CONFORM_AGENT as it would start
// the Claude Code CLI, and this driver answers the agent's requests with the
// SDK's own callbacks, following the vector's policy in $CONFORM_POLICY
// (docs/host-role.md). Everything on the wire is the SDK's doing; the driver
// only maps the policy onto the SDK's public options.
import { query } from "@anthropic-ai/claude-agent-sdk";

const DENIED = "Denied by policy";

function readPolicy() {
  const raw = process.env.CONFORM_POLICY;
  if (!raw) return {};
  const p = JSON.parse(raw);
  if (p === null || typeof p !== "object" || Array.isArray(p)) {
    throw new Error("CONFORM_POLICY is not a JSON object");
  }
  return p;
}

const policy = readPolicy();
const agent = process.env.CONFORM_AGENT;
if (!agent) {
  console.error("driver: CONFORM_AGENT is not set (run me through a spawned-mode profile)");
  process.exit(2);
}

function rule(toolName) {
  const rules = policy.can_use_tool ?? {};
  return Object.hasOwn(rules, toolName) ? rules[toolName] : rules["*"];
}

function deny(r) {
  const out = { behavior: "deny", message: r?.message ?? DENIED };
  if (r && "interrupt" in r) out.interrupt = r.interrupt; // as a user would pass it
  return out;
}

function allow(r, input) {
  const out = { behavior: "allow", updatedInput: r.updatedInput ?? input ?? {} };
  if (r.updatedPermissions !== undefined) out.updatedPermissions = r.updatedPermissions;
  return out;
}

// canUseTool: the policy's rule for the tool; AskUserQuestion gets the
// answers in the shape the SDK documents (sdk-tools.d.ts AskUserQuestionInput:
// answers is question text -> string, multi-select labels joined by ", ").
async function canUseTool(toolName, input) {
  const r = rule(toolName);
  // defer: the user has not decided; the promise never settles.
  if (r?.defer === true) return new Promise(() => {});
  if (r?.behavior === "deny") return deny(r);
  if (toolName === "AskUserQuestion" && Array.isArray(input?.questions) && !(r?.behavior === "allow" && r.updatedInput)) {
    const answers = policy.answers ?? {};
    const out = {};
    for (const q of input.questions) {
      const text = q?.question;
      if (typeof text !== "string" || !Object.hasOwn(answers, text)) return deny(undefined);
      const a = answers[text];
      out[text] = Array.isArray(a) ? a.join(", ") : a;
    }
    return { behavior: "allow", updatedInput: { ...input, answers: out } };
  }
  if (r?.behavior === "allow") return allow(r, input);
  return deny(undefined);
}

// hooks: the SDK names its callbacks hook_0, hook_1, ... in registration
// order, so hook_N of the policy is the N-th callback of one PreToolUse
// matcher. Callbacks in the gaps answer {} (never reached by the vectors).
function hooks() {
  const ids = Object.keys(policy.hooks ?? {})
    .map((k) => /^hook_(\d+)$/.exec(k))
    .filter(Boolean)
    .map((m) => Number(m[1]));
  if (ids.length === 0) return undefined;
  const n = Math.max(...ids) + 1;
  const cbs = [];
  for (let i = 0; i < n; i++) {
    const body = policy.hooks[`hook_${i}`] ?? {};
    cbs.push(async () => body);
  }
  return { PreToolUse: [{ hooks: cbs }] };
}

// An in-process MCP server (the SDK's {type:"sdk", instance} config, what
// createSdkMcpServer returns) whose every JSON-RPC request is answered with
// the policy's result for its method, {} by default. The SDK only calls
// instance.connect(transport); the transport is the SDK's.
class PolicyMcpServer {
  constructor(methods) {
    this.methods = methods ?? {};
  }
  async connect(transport) {
    this.transport = transport;
    transport.onmessage = (msg) => {
      if (msg && typeof msg.method === "string" && msg.id !== undefined && msg.id !== null) {
        const result = Object.hasOwn(this.methods, msg.method) ? this.methods[msg.method] : {};
        transport.send({ jsonrpc: "2.0", id: msg.id, result });
      }
    };
    await transport.start?.();
  }
  async close() {
    await this.transport?.close?.();
  }
}

function mcpServers() {
  const servers = {};
  for (const [name, methods] of Object.entries(policy.mcp ?? {})) {
    servers[name] = { type: "sdk", name, instance: new PolicyMcpServer(methods) };
  }
  return Object.keys(servers).length ? servers : undefined;
}

const options = {
  pathToClaudeCodeExecutable: agent,
  canUseTool,
  onElicitation: async () => policy.elicitation ?? { action: "decline" },
  onUserDialog: async () => policy.dialog ?? { behavior: "cancelled" },
  env: { ...process.env },
  stderr: (s) => process.stderr.write(s),
};
const h = hooks();
if (h) options.hooks = h;
const m = mcpServers();
if (m) options.mcpServers = m;

try {
  for await (const msg of query({ prompt: "conform", options })) {
    if (process.env.CONFORM_DRIVER_DEBUG) console.error("driver:", JSON.stringify(msg).slice(0, 300));
  }
} catch (e) {
  console.error("driver: query failed:", e?.stack ?? e);
  process.exit(1);
}
process.exit(0);
