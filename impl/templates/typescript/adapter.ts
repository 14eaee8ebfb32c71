// Template: a conform host-role adapter for your SDK, in TypeScript.
//
// conform certifies a host (an SDK that drives the Claude Code CLI) in
// spawned mode: your adapter is started once per vector, with the vector's
// decisions in the environment variable CONFORM_POLICY (docs/host-role.md),
// and starts "the CLI" the way your SDK always does: the `claude` on PATH
// (also named by CONFORM_AGENT) is conform's agent double, which plays the
// vector and records what your SDK answers.
//
//   ./build.sh && conform run --role host --mode spawned -- node /abs/path/dist/adapter.js
//
// Part 1 (keep): the policy functions; each returns the reply body your
// SDK's callback should produce. Part 2 (replace): a stand-in for an SDK, so
// that this template runs as it is. In your adapter, delete Part 2, build
// your SDK's client as its README shows, register Part 1's functions as its
// callbacks (canUseTool, hooks, an in-process MCP server, dialog and
// elicitation handlers), send one prompt and wait for the result. Never fix
// up what your SDK writes: the report should show its faults.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

const DENIED = "Denied by policy";
const policy: Obj = JSON.parse(process.env.CONFORM_POLICY || "{}");

const obj = (v: Json | undefined): Obj | undefined =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? v : undefined;

// ---- Part 1: the policy as callbacks ----

/** The permission decision, or null for "no decision yet" (rule {"defer": true}: the user has not answered). */
export function canUseTool(tool: string, input: Obj): Obj | null {
  const rules = obj(policy.can_use_tool) ?? {};
  const rule = obj(Object.hasOwn(rules, tool) ? rules[tool] : rules["*"]);
  if (rule?.defer === true) return null;
  if (rule?.behavior === "deny") {
    const out: Obj = { behavior: "deny", message: rule.message ?? DENIED };
    if (rule.interrupt === true) out.interrupt = true;
    return out;
  }
  const questions = input.questions;
  if (tool === "AskUserQuestion" && Array.isArray(questions) && !(rule && "updatedInput" in rule)) {
    const answers = obj(policy.answers) ?? {};
    const out: Obj = {};
    for (const q of questions) {
      const text = obj(q)?.question;
      if (typeof text !== "string" || !Object.hasOwn(answers, text)) return { behavior: "deny", message: DENIED };
      const a = answers[text];
      out[text] = Array.isArray(a) ? a.join(", ") : a;
    }
    return { behavior: "allow", updatedInput: { ...input, answers: out } };
  }
  if (rule?.behavior === "allow") {
    const out: Obj = { behavior: "allow", updatedInput: rule.updatedInput ?? input };
    if ("updatedPermissions" in rule) out.updatedPermissions = rule.updatedPermissions;
    return out;
  }
  return { behavior: "deny", message: DENIED };
}

/** The hook output of a registered callback, undefined for an unknown one. */
export const hook = (callbackId: string): Obj | undefined => obj(obj(policy.hooks)?.[callbackId]);

/** The JSON-RPC reply of your SDK's in-process MCP server. */
export function mcp(server: string, message: Obj): Obj {
  const methods = obj(obj(policy.mcp)?.[server]);
  if (typeof message.method !== "string" || message.id === undefined || message.id === null) {
    return { jsonrpc: "2.0", result: {} }; // a notification: acknowledged
  }
  if (!methods) return { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: `Server '${server}' not found` } };
  return { jsonrpc: "2.0", id: message.id, result: methods[message.method] ?? {} };
}

export const dialog = (): Json => policy.dialog ?? { behavior: "cancelled" };
export const elicitation = (): Json => policy.elicitation ?? { action: "decline" };
export const sideQuestion = (): Json => policy.side_question ?? { action: "decline" };

// ---- Part 2: a stand-in for your SDK (replace with your SDK's client) ----

/** The control_response payload for one request, or null: no reply (a permission the user has not decided yet). */
function answer(body: Obj): Obj | null {
  const str = (v: Json | undefined) => (typeof v === "string" ? v : "");
  switch (body.subtype) {
    case "can_use_tool": {
      const decision = canUseTool(str(body.tool_name), obj(body.input) ?? {});
      // No decision yet: a real SDK adapter returns a Promise from canUseTool
      // that never settles, so the SDK writes nothing, even after a cancel.
      return decision === null ? null : { subtype: "success", response: decision };
    }
    case "hook_callback": {
      const out = hook(str(body.callback_id));
      return out
        ? { subtype: "success", response: out }
        : { subtype: "error", error: `No hook callback found for ID: ${str(body.callback_id)}` };
    }
    case "mcp_message":
      return { subtype: "success", response: { mcp_response: mcp(str(body.server_name), obj(body.message) ?? {}) } };
    case "request_user_dialog":
      return { subtype: "success", response: dialog() };
    case "elicitation":
      return { subtype: "success", response: elicitation() };
    case "side_question":
      return { subtype: "success", response: sideQuestion() };
  }
  return { subtype: "error", error: `Unsupported control request subtype: ${String(body.subtype)}` };
}

const flags = ["--output-format", "stream-json", "--verbose", "--input-format", "stream-json"];
const agent = spawn("claude", [...flags, "--permission-prompt-tool", "stdio"], { stdio: ["pipe", "pipe", "inherit"] });
const send = (frame: Obj) => agent.stdin.write(JSON.stringify(frame) + "\n");
send({ type: "control_request", request_id: "init-1", request: { subtype: "initialize" } });
send({ type: "user", message: { role: "user", content: "conform" }, parent_tool_use_id: null });
for await (const line of createInterface({ input: agent.stdout })) {
  const frame: Obj = JSON.parse(line);
  if (frame.type === "result") agent.stdin.end();
  if (frame.type !== "control_request") continue;
  const reply = answer(obj(frame.request) ?? {});
  if (reply === null) continue; // pending: no reply, ever (v1)
  if ("request_id" in frame) reply.request_id = frame.request_id;
  send({ type: "control_response", response: reply });
}
agent.on("exit", (code) => process.exit(code ?? 1));
