// Host role of control protocol v1 (docs/host-role.md), for agent.ts.
//
// agent.ts hands the process over to runHost() when CONFORM_ROLE=host. The
// agent writes frames on stdin; this host answers each control_request with
// exactly one control_response on stdout, deciding as the policy in
// CONFORM_POLICY (RFC 8785 JSON; unset or empty = {}) dictates; a can_use_tool
// the policy defers gets no reply at all. Written from docs/host-role.md,
// schemas/control.v1.json, vectors/v1/host/ and golden/v1/host/.

import { writeSync } from "node:fs";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const POLICY_ENV = "CONFORM_POLICY";
const DENIED = "Denied by policy";
const ASK_TOOL = "AskUserQuestion";

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** An own member of a parsed object, or undefined when absent (never an inherited property). */
function member(obj: unknown, key: string): Json | undefined {
  if (isObject(obj) && Object.prototype.hasOwnProperty.call(obj, key)) {
    return obj[key];
  }
  return undefined;
}

function objectMember(obj: unknown, key: string): JsonObject | undefined {
  const v = member(obj, key);
  return isObject(v) ? v : undefined;
}

/** String(v) as JavaScript writes it (undefined for an absent member). */
function text(v: Json | undefined): string {
  return String(v);
}

/** A copy of a parsed object with own data properties only (safe for "__proto__"). */
function copyObject(o: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const k of Object.keys(o)) {
    Object.defineProperty(out, k, { value: o[k], enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function setMember(o: JsonObject, k: string, v: Json): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

/**
 * Whether a can_use_tool rule is {"defer": true}: the host does not decide yet
 * (a user who has not answered), so the request stays pending, and in v1 a
 * pending request gets no reply at all, whether the agent cancels it or input
 * ends.
 */
function isDefer(rule: Json | undefined): rule is JsonObject {
  return member(rule, "defer") === true;
}

/** A success body, an error text, or no reply at all (a deferred request). */
type Decision = { body: Json } | { error: string } | { deferred: true };

class Host {
  constructor(private readonly policy: JsonObject) {}

  /** The can_use_tool rule for req: the tool's own, else "*"'s, else undefined. */
  private toolRule(req: JsonObject): Json | undefined {
    const tool = member(req, "tool_name");
    const rules = objectMember(this.policy, "can_use_tool") ?? {};
    if (typeof tool === "string" && member(rules, tool) !== undefined) {
      return member(rules, tool);
    }
    return member(rules, "*");
  }

  private canUseTool(req: JsonObject): JsonObject {
    const tool = member(req, "tool_name");
    const rule = this.toolRule(req);
    const r = isObject(rule) ? rule : undefined;
    const behavior = member(r, "behavior");
    const rawInput = member(req, "input");
    const input = isObject(rawInput) ? rawInput : {};

    if (behavior === "deny") {
      return this.deny(r!);
    }
    const questions = member(input, "questions");
    if (tool === ASK_TOOL && Array.isArray(questions)) {
      const given = member(r, "updatedInput");
      if (behavior === "allow" && isObject(given)) {
        return this.allow(r, given);
      }
      const answers = this.answer(questions);
      if (answers === null) {
        return { behavior: "deny", message: DENIED };
      }
      const updated = copyObject(input);
      setMember(updated, "answers", answers);
      return this.allow(behavior === "allow" ? r : undefined, updated);
    }
    if (behavior === "allow") {
      const given = member(r, "updatedInput");
      return this.allow(r, isObject(given) ? given : input);
    }
    return { behavior: "deny", message: DENIED };
  }

  private allow(rule: JsonObject | undefined, updatedInput: JsonObject): JsonObject {
    const body: JsonObject = { behavior: "allow", updatedInput };
    const perms = member(rule, "updatedPermissions");
    if (Array.isArray(perms)) {
      body.updatedPermissions = perms;
    }
    return body;
  }

  private deny(rule: JsonObject): JsonObject {
    const message = member(rule, "message");
    const body: JsonObject = { behavior: "deny", message: typeof message === "string" ? message : DENIED };
    if (member(rule, "interrupt") === true) {
      body.interrupt = true;
    }
    return body;
  }

  /** {question text: answer string} for every question, or null. */
  private answer(questions: Json[]): JsonObject | null {
    const table = objectMember(this.policy, "answers") ?? {};
    const out: JsonObject = {};
    for (const q of questions) {
      const t = member(q, "question");
      if (typeof t !== "string") return null;
      let a = member(table, t);
      if (Array.isArray(a) && a.every((s) => typeof s === "string")) {
        a = a.join(", ");
      }
      if (typeof a !== "string") return null;
      setMember(out, t, a);
    }
    return out;
  }

  private hook(req: JsonObject): Decision {
    const id = member(req, "callback_id");
    const hooks = objectMember(this.policy, "hooks") ?? {};
    if (typeof id === "string") {
      const out = member(hooks, id);
      if (out !== undefined) return { body: out };
    }
    return { error: `No hook callback found for ID: ${text(id)}` };
  }

  private mcp(req: JsonObject): JsonObject {
    const server = member(req, "server_name");
    const msg = member(req, "message");
    const servers = objectMember(this.policy, "mcp") ?? {};
    const id = member(msg, "id");
    let reply: JsonObject;
    if (member(msg, "method") !== undefined && id !== undefined && id !== null) {
      const methods = typeof server === "string" ? member(servers, server) : undefined;
      if (methods !== undefined) {
        const method = member(msg, "method");
        const result = typeof method === "string" ? member(methods, method) : undefined;
        reply = { jsonrpc: "2.0", id, result: result === undefined ? {} : result };
      } else {
        reply = { jsonrpc: "2.0", id, error: { code: -32601, message: `Server '${text(server)}' not found` } };
      }
    } else {
      reply = { jsonrpc: "2.0", result: {} };
    }
    return { mcp_response: reply };
  }

  private verbatim(key: string, fallback: JsonObject): JsonObject {
    return objectMember(this.policy, key) ?? fallback;
  }

  decide(request: Json | undefined): Decision {
    const req = isObject(request) ? request : {};
    const subtype = member(request, "subtype");
    switch (subtype) {
      case "can_use_tool":
        return isDefer(this.toolRule(req)) ? { deferred: true } : { body: this.canUseTool(req) };
      case "hook_callback":
        return this.hook(req);
      case "mcp_message":
        return { body: this.mcp(req) };
      case "request_user_dialog":
        return { body: this.verbatim("dialog", { behavior: "cancelled" }) };
      case "elicitation":
        return { body: this.verbatim("elicitation", { action: "decline" }) };
      case "side_question":
        return { body: this.verbatim("side_question", { action: "decline" }) };
      default:
        return { error: `Unsupported control request subtype: ${text(subtype)}` };
    }
  }

  /** The reply line to one input line, or null. */
  reply(line: string): string | null {
    const t = line.trim();
    if (t === "") return null;
    let frame: Json;
    try {
      frame = JSON.parse(t) as Json;
    } catch {
      return null; // not JSON: ignored, the host never exits on bad input
    }
    if (!isObject(frame) || member(frame, "type") !== "control_request") {
      return null; // other frames, replies and cancels get nothing
    }
    const d = this.decide(member(frame, "request"));
    if ("deferred" in d) return null; // pending for good: v1 never answers it
    const inner: JsonObject = { subtype: "error" in d ? "error" : "success" };
    const id = member(frame, "request_id");
    if (id !== undefined) inner.request_id = id;
    if ("error" in d) {
      inner.error = d.error;
    } else {
      inner.response = d.body;
    }
    return JSON.stringify({ type: "control_response", response: inner });
  }
}

function writeAll(fd: number, data: string): void {
  const buf = Buffer.from(data, "utf8");
  let off = 0;
  while (off < buf.length) {
    try {
      off += writeSync(fd, buf, off, buf.length - off);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "EAGAIN") continue; // non-blocking pipe momentarily full
      if (code === "EPIPE") process.exit(0); // the agent went away
      throw e;
    }
  }
}

function loadPolicy(): JsonObject {
  const raw = process.env[POLICY_ENV] ?? "";
  if (raw.trim() === "") return {};
  let policy: Json;
  try {
    policy = JSON.parse(raw) as Json;
  } catch (e) {
    throw new Error(`${POLICY_ENV} is not JSON: ${(e as Error).message}`);
  }
  if (!isObject(policy)) throw new Error(`${POLICY_ENV} is not a JSON object`);
  const rules = objectMember(policy, "can_use_tool") ?? {};
  for (const name of Object.keys(rules)) {
    const rule = member(rules, name);
    if (isDefer(rule) && Object.keys(rule).length > 1) {
      throw new Error(`${POLICY_ENV}: can_use_tool ${JSON.stringify(name)}: a defer rule has no other member`);
    }
  }
  return policy;
}

/** Plays the host role until end of input, then exits 0 (2 on an unreadable policy). */
export function runHost(): void {
  let host: Host;
  try {
    host = new Host(loadPolicy());
  } catch (e) {
    writeAll(2, `conform-typescript host: ${(e as Error).message}\n`);
    process.exit(2);
  }
  const decoder = new TextDecoder("utf-8"); // non-fatal: invalid UTF-8 becomes U+FFFD
  let parts: Buffer[] = [];
  let size = 0;
  const flushLine = (): void => {
    const raw = parts.length === 1 ? parts[0] : Buffer.concat(parts);
    parts = [];
    size = 0;
    const out = host.reply(decoder.decode(raw));
    if (out !== null) writeAll(1, out + "\n");
  };
  process.stdin.on("data", (chunk: Buffer) => {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      const piece = nl < 0 ? chunk.subarray(start) : chunk.subarray(start, nl);
      parts.push(Buffer.from(piece)); // copy: keep no view of the stream chunk
      size += piece.length;
      if (nl < 0) break;
      start = nl + 1;
      flushLine();
    }
  });
  process.stdin.on("end", () => {
    if (size > 0) flushLine(); // last line without LF
    process.exit(0);
  });
  process.stdin.on("error", () => process.exit(0));
}
