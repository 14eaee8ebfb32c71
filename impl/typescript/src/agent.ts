// conform-typescript-agent: agent-role port of the stream-json control protocol v1.
//
// Written from schemas/control.v1.json, the v1 vectors and golden files,
// COMPATIBILITY.md and impl/claude-code/OBSERVED.md (what the Claude Code CLI
// 2.1.332 does). Node 20, no runtime dependencies.
//
// Reads JSON lines on stdin (raw bytes, split on LF here so that any line
// length works and invalid UTF-8 becomes U+FFFD), writes one control_response
// line per control_request on stdout, exits 0 at end of input. Fatal lines
// (not JSON, the JSON line `null`, a control_request without a request
// object) end the process with status 1 and one message on stderr.

import { writeSync } from "node:fs";

const VERSION = "0.1.0";
const BUILD_TIME = "2026-11-30T00:00:00Z";
const OLDEST_DESKTOP_SDK = "0.0.0";

const DEFAULT_MODEL = "claude-opus-5-5";
const ALIASES: ReadonlyMap<string, string> = new Map([
  ["sonnet", "claude-sonnet-5-5"],
  ["opus", "claude-opus-5-5"],
  ["haiku", "claude-haiku-5-5"],
]);
const CONTEXT_SUFFIX = "[1m]";

const PERMISSION_MODES: ReadonlySet<string> = new Set(["acceptEdits", "auto", "default", "dontAsk", "plan"]);
const INVALID_MODE_TEXT =
  "Cannot set permission mode: must be one of acceptEdits, auto, bypassPermissions, default, dontAsk, plan";
const BYPASS_TEXT =
  "Cannot set permission mode to bypassPermissions because the session was not launched with --dangerously-skip-permissions";
const THINKING_TEXT =
  'set_max_thinking_tokens: max_thinking_tokens must be an integer or null and thinking_display must be "summarized", "omitted", "highlights", or null';
const THINKING_DISPLAYS: ReadonlySet<string> = new Set(["summarized", "omitted", "highlights"]);
const CHECK_UNREACHABLE_TEXT = "Network error. Please check your internet connection \u00b7 model not changed";
const CATALOG_UNKNOWN_TEXT =
  'Model "(unrecognized model name)" is not a recognized model id. Run /model to see available models.';
const REWIND_TEXT = "File rewinding is not enabled.";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** A handler's outcome: a success (payload absent when undefined) or an error text; extra members go beside subtype/request_id. */
type Outcome =
  | { kind: "success"; payload?: JsonObject; extras?: JsonObject }
  | { kind: "error"; error: string; extras?: JsonObject };

class Fatal extends Error {}

// A request_id nested deeper than this is not echoed: the line is fatal
// (see README "Design notes"). Any depth is accepted on input.
const MAX_ECHO_DEPTH = 1000;

/** Levels of arrays/objects in v (a scalar is 0), without recursion. */
function nestingDepth(v: Json): number {
  let deepest = 0;
  const todo: Array<[Json, number]> = [[v, 1]];
  while (todo.length > 0) {
    const [x, d] = todo.pop()!;
    if (typeof x !== "object" || x === null) {
      continue;
    }
    deepest = Math.max(deepest, d);
    for (const e of Array.isArray(x) ? x : Object.values(x)) {
      todo.push([e, d + 1]);
    }
  }
  return deepest;
}

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

function isAbsentOrNull(v: unknown): boolean {
  return v === undefined || v === null;
}

class Session {
  model = DEFAULT_MODEL;
  mode = "default";

  initialize(req: JsonObject): Outcome {
    const body: JsonObject = {
      commands: [],
      agents: [],
      output_style: "default",
      available_output_styles: ["default"],
      models: [
        { value: "default", resolvedModel: DEFAULT_MODEL, displayName: "Default (recommended)" },
        { value: "opus", resolvedModel: ALIASES.get("opus")!, displayName: "Opus" },
        { value: "sonnet", resolvedModel: ALIASES.get("sonnet")!, displayName: "Sonnet" },
        { value: "haiku", resolvedModel: ALIASES.get("haiku")!, displayName: "Haiku" },
      ],
      account: {},
      pid: process.pid,
      claude_code_version: VERSION,
      current_permission_mode: this.mode,
    };
    if (!isAbsentOrNull(member(req, "hooks"))) {
      body.hooks_applied = true;
    }
    body.capabilities = [];
    return {
      kind: "success",
      payload: body,
      extras: { pending_permission_requests: [], pending_user_dialog_requests: [] },
    };
  }

  interrupt(): Outcome {
    return { kind: "success", payload: { still_queued: [] } };
  }

  setModel(req: JsonObject): Outcome {
    const m = member(req, "model");
    if (m === undefined || m === null || m === "default") {
      this.model = DEFAULT_MODEL;
      return { kind: "success", payload: { model: this.model } };
    }
    if (typeof m !== "string") {
      return {
        kind: "error",
        error: "set_model: model must be a string",
        extras: { error_code: "invalid_request", model: this.model },
      };
    }
    if (m === "") {
      return { kind: "error", error: CATALOG_UNKNOWN_TEXT, extras: { error_code: "catalog_unknown", model: this.model } };
    }
    const base = m.endsWith(CONTEXT_SUFFIX) ? m.slice(0, -CONTEXT_SUFFIX.length) : m;
    const resolved = ALIASES.get(base);
    if (resolved !== undefined) {
      this.model = resolved;
      return { kind: "success", payload: { model: this.model } };
    }
    // Any other name (including full ids) would need the network to check.
    return {
      kind: "error",
      error: CHECK_UNREACHABLE_TEXT,
      extras: { error_code: "check_unreachable", model: this.model },
    };
  }

  setPermissionMode(req: JsonObject): Outcome {
    const mode = member(req, "mode");
    if (typeof mode === "string" && PERMISSION_MODES.has(mode)) {
      this.mode = mode;
      return { kind: "success", payload: { mode } };
    }
    if (mode === "bypassPermissions") {
      return { kind: "error", error: BYPASS_TEXT, extras: { error_code: "bypass_not_launched" } };
    }
    return { kind: "error", error: INVALID_MODE_TEXT, extras: { error_code: "invalid_mode" } };
  }

  setMaxThinkingTokens(req: JsonObject): Outcome {
    const n = member(req, "max_thinking_tokens");
    const d = member(req, "thinking_display");
    const nOk = isAbsentOrNull(n) || (typeof n === "number" && Number.isInteger(n));
    const dOk = isAbsentOrNull(d) || (typeof d === "string" && THINKING_DISPLAYS.has(d));
    if (!(nOk && dOk)) {
      return { kind: "error", error: THINKING_TEXT };
    }
    return { kind: "success" }; // acknowledged: no inner response
  }

  getBinaryVersion(): Outcome {
    return {
      kind: "success",
      payload: { version: VERSION, buildTime: BUILD_TIME, oldestDesktopSdk: OLDEST_DESKTOP_SDK },
    };
  }

  mcpStatus(): Outcome {
    return { kind: "success", payload: { mcpServers: [] } };
  }

  getContextUsage(): Outcome {
    const maxTokens = 1000000;
    return {
      kind: "success",
      payload: {
        categories: [
          { id: "system_prompt", name: "System prompt", tokens: 0, color: "promptBorder", kind: "used" },
          { id: "free_space", name: "Free space", tokens: maxTokens, color: "promptBorder", kind: "free" },
        ],
        totalTokens: 0,
        maxTokens,
        rawMaxTokens: maxTokens,
        percentage: 0,
        gridRows: [],
        model: this.model,
      },
    };
  }

  rewindFiles(req: JsonObject): Outcome {
    if (member(req, "dry_run") === true) {
      return { kind: "success", payload: { canRewind: false, error: REWIND_TEXT } };
    }
    return { kind: "error", error: REWIND_TEXT };
  }

  serverNotFound(req: JsonObject): Outcome {
    // No MCP server is ever configured.
    return { kind: "error", error: "Server not found: " + String(member(req, "serverName")) };
  }

  stopTask(): Outcome {
    return { kind: "success", payload: {} }; // an unknown task id is acknowledged
  }

  dispatch(subtype: Json | undefined, req: JsonObject): Outcome {
    if (typeof subtype === "string") {
      switch (subtype) {
        case "initialize":
          return this.initialize(req);
        case "interrupt":
          return this.interrupt();
        case "set_model":
          return this.setModel(req);
        case "set_permission_mode":
          return this.setPermissionMode(req);
        case "set_max_thinking_tokens":
          return this.setMaxThinkingTokens(req);
        case "get_binary_version":
          return this.getBinaryVersion();
        case "mcp_status":
          return this.mcpStatus();
        case "get_context_usage":
          return this.getContextUsage();
        case "rewind_files":
          return this.rewindFiles(req);
        case "mcp_reconnect":
        case "mcp_toggle":
          return this.serverNotFound(req);
        case "stop_task":
          return this.stopTask();
      }
    }
    return {
      kind: "error",
      error: "Unsupported control request subtype: " + String(subtype),
      extras: { error_code: "unsupported_request" },
    };
  }

  /** Returns the reply line, or null when the line gets no reply; throws Fatal. */
  handleLine(text: string): string | null {
    const body = text.trim(); // also drops a BOM and a trailing CR
    if (body === "") {
      return null; // blank, spaces-only, CR-only lines
    }
    let msg: unknown;
    try {
      msg = JSON.parse(body);
    } catch {
      const m = /"type"\s*:\s*"([^"\\]*)"/.exec(text);
      throw new Fatal(`Error parsing streaming input line (type=${m ? m[1] : "unknown"}, ${text.length} chars): SyntaxError`);
    }
    if (msg === null) {
      throw new Fatal(`Error parsing streaming input line (type=unknown, ${text.length} chars): TypeError`);
    }
    if (!isObject(msg)) {
      return null; // other JSON values are ignored
    }
    if (member(msg, "type") !== "control_request") {
      return null; // control_response, control_cancel_request, unknown types
    }
    const request = member(msg, "request");
    if (request === undefined || request === null) {
      throw new Fatal("Error: Missing request on control_request");
    }
    const req: JsonObject = isObject(request) ? request : {};
    const out = this.dispatch(member(req, "subtype"), req);
    const inner: { [key: string]: Json | undefined } = { subtype: out.kind };
    if (Object.prototype.hasOwnProperty.call(msg, "request_id")) {
      const rid = msg.request_id; // echoed whatever its type
      if (nestingDepth(rid) > MAX_ECHO_DEPTH) {
        // JSON.stringify would overflow the stack (about 1000 to 5000 levels on Node 20): make it deterministic.
        throw new Fatal("RangeError: Maximum call stack size exceeded");
      }
      inner.request_id = rid;
    }
    if (out.kind === "success") {
      if (out.payload !== undefined) {
        inner.response = out.payload;
      }
    } else {
      inner.error = out.error;
    }
    Object.assign(inner, out.extras ?? {});
    return JSON.stringify({ type: "control_response", response: inner });
  }
}

// ---------------------------------------------------------------------- I/O

function writeAll(fd: number, data: string): void {
  const buf = Buffer.from(data, "utf8");
  let off = 0;
  while (off < buf.length) {
    try {
      off += writeSync(fd, buf, off, buf.length - off);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "EAGAIN") {
        continue; // non-blocking pipe momentarily full
      }
      if (code === "EPIPE") {
        process.exit(0); // the host went away
      }
      throw e;
    }
  }
}

function main(): void {
  const session = new Session();
  const decoder = new TextDecoder("utf-8"); // non-fatal: bad bytes become U+FFFD
  let pending: Buffer[] = [];
  let done = false;

  const handle = (line: Buffer): void => {
    const text = decoder.decode(line);
    let reply: string | null;
    try {
      reply = session.handleLine(text);
    } catch (e) {
      if (e instanceof Fatal) {
        done = true;
        writeAll(2, e.message + "\n");
        process.exit(1);
      }
      throw e;
    }
    if (reply !== null) {
      writeAll(1, reply + "\n");
    }
  };

  process.stdin.on("data", (chunk: Buffer) => {
    let start = 0;
    while (!done) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl < 0) {
        break;
      }
      const piece = chunk.subarray(start, nl);
      let line: Buffer;
      if (pending.length > 0) {
        pending.push(piece);
        line = Buffer.concat(pending);
        pending = [];
      } else {
        line = piece;
      }
      start = nl + 1;
      handle(line);
    }
    if (!done && start < chunk.length) {
      pending.push(Buffer.from(chunk.subarray(start))); // copy: keep no view of the stream chunk
    }
  });
  process.stdin.on("end", () => {
    if (!done && pending.length > 0) {
      handle(Buffer.concat(pending)); // last line without LF
      pending = [];
    }
    process.exit(0);
  });
  process.stdin.on("error", () => process.exit(0));
}

main();
