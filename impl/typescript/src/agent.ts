// conform-typescript-agent: agent-role port of the stream-json control protocol v1 and v2.
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
import { runHost } from "./host.js";

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

// Code points the CLI 2.1.332 removes from error text: general categories Cc,
// Cf, Cs (lone surrogates), Zl, Zp and Zs, except U+0020 SPACE (observed
// 2026-11-30; vectors canon-echo-server-name, canon-echo-subtype). A fixed
// table (Unicode 17.0) so the result does not depend on the Node/ICU build;
// identical to the table in impl/python/agent.py.
const STRIPPED_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x0000, 0x001f], [0x007f, 0x00a0], [0x00ad, 0x00ad], [0x0600, 0x0605],
  [0x061c, 0x061c], [0x06dd, 0x06dd], [0x070f, 0x070f], [0x0890, 0x0891],
  [0x08e2, 0x08e2], [0x1680, 0x1680], [0x180e, 0x180e], [0x2000, 0x200f],
  [0x2028, 0x202f], [0x205f, 0x2064], [0x2066, 0x206f], [0x3000, 0x3000],
  [0xd800, 0xdfff], [0xfeff, 0xfeff], [0xfff9, 0xfffb], [0x110bd, 0x110bd],
  [0x110cd, 0x110cd], [0x13430, 0x1343f], [0x1bca0, 0x1bca3],
  [0x1d173, 0x1d17a], [0xe0001, 0xe0001], [0xe0020, 0xe007f],
];

/** Error text as the CLI writes it: Cc/Cf/Cs/Zl/Zp/Zs removed, U+0020 kept. */
function cleanErrorText(text: string): string {
  let out = "";
  for (const ch of text) {
    // for..of yields whole code points, and a lone surrogate as itself
    const cp = ch.codePointAt(0)!;
    if (!STRIPPED_RANGES.some(([lo, hi]) => lo <= cp && cp <= hi)) {
      out += ch;
    }
  }
  return out;
}

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
      inner.error = cleanErrorText(out.error);
    }
    Object.assign(inner, out.extras ?? {});
    return JSON.stringify({ type: "control_response", response: inner });
  }
}

// ------------------------------------------------------------ protocol v2
//
// Written from docs/v2.md, schemas/control.v2.json, vectors/v2/agent/ and
// golden/v2/. Frames are judged in the order of docs/v2.md section 7.

const FRAME_LIMIT = 1048576; // bytes per input line, without its LF
const EXCERPT_BYTES = 256;
const KEEP_BYTES = EXCERPT_BYTES + 4; // enough to see any sequence that starts before the cut
const PASS_OVER: ReadonlySet<string> = new Set([
  "system", "assistant", "user", "result", "stream_event",
  "control_request_progress", "keep_alive", "rate_limit_event", "tool_progress", "auth_status",
]);
const CONTROL_TYPES: ReadonlySet<string> = new Set([
  "control_request", "control_response", "control_cancel_request", "control_diagnostic",
]);
const SPOKEN_VERSIONS = [2, 1]; // highest first
const CATALOG: ReadonlySet<string> = new Set(ALIASES.values());
const MODEL_SUFFIX = /\[[^[\]]*\]$/;
const MAX_EXACT = 2 ** 53;

class Malformed extends Error {}

/** version_mismatch: stop reading and exit with this status. */
class EndSession extends Error {
  constructor(readonly status: number) {
    super(`end session (${status})`);
  }
}

/** Length of the valid UTF-8 sequence starting at raw[i], or 0. */
function utf8Len(raw: Uint8Array, i: number): number {
  const b = raw[i];
  let n: number, lo: number, hi: number;
  if (b < 0x80) return 1;
  if (b >= 0xc2 && b <= 0xdf) [n, lo, hi] = [2, 0x80, 0xbf];
  else if (b === 0xe0) [n, lo, hi] = [3, 0xa0, 0xbf];
  else if ((b >= 0xe1 && b <= 0xec) || b === 0xee || b === 0xef) [n, lo, hi] = [3, 0x80, 0xbf];
  else if (b === 0xed) [n, lo, hi] = [3, 0x80, 0x9f]; // no UTF-16 surrogates
  else if (b === 0xf0) [n, lo, hi] = [4, 0x90, 0xbf];
  else if (b >= 0xf1 && b <= 0xf3) [n, lo, hi] = [4, 0x80, 0xbf];
  else if (b === 0xf4) [n, lo, hi] = [4, 0x80, 0x8f];
  else return 0;
  if (i + n > raw.length || raw[i + 1] < lo || raw[i + 1] > hi) return 0;
  for (let k = i + 2; k < i + n; k++) {
    if (raw[k] < 0x80 || raw[k] > 0xbf) return 0;
  }
  return n;
}

/** The line's first 256 bytes, less a sequence the cut splits; each byte outside a valid UTF-8 sequence becomes U+FFFD. */
function excerpt(raw: Uint8Array): string {
  let out = "";
  let i = 0;
  while (i < raw.length) {
    const n = utf8Len(raw, i);
    if (i + Math.max(n, 1) > EXCERPT_BYTES) break;
    if (n === 0) {
      out += "\ufffd";
      i += 1;
    } else {
      out += Buffer.from(raw.subarray(i, i + n)).toString("utf8");
      i += n;
    }
  }
  return out;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const NUMBER_TOKEN = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?/y;

function checkNumber(tok: string): void {
  const f = Number(tok);
  if (!Number.isFinite(f)) throw new Malformed("number overflows binary64");
  if (/[.eE]/.test(tok) || Math.abs(f) < MAX_EXACT) return;
  if (tok.replace(/^-/, "") === String(Math.abs(f))) return; // the ECMAScript rendering of a binary64
  if (BigInt(tok) !== BigInt(f)) throw new Malformed("integer not exact in binary64");
}

/**
 * RFC 7493 strict JSON: valid UTF-8, no lone surrogate escapes, no duplicate
 * member names, no integer binary64 cannot hold; an object. JSON.parse checks
 * the grammar; one iterative pass over the (then well-formed) text checks the rest.
 */
function strictParse(raw: Uint8Array): JsonObject {
  let text: string;
  let value: unknown;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(raw);
    value = JSON.parse(text);
  } catch (e) {
    throw new Malformed(e instanceof Error ? e.message : String(e));
  }
  type Frame = { keys: Set<string>; expectKey: boolean } | null; // null: an array
  const stack: Frame[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      const s = JSON.parse(text.slice(i, j + 1)) as string;
      if (LONE_SURROGATE.test(s)) throw new Malformed("lone surrogate escape");
      const top = stack[stack.length - 1];
      if (top && top.expectKey) {
        if (top.keys.has(s)) throw new Malformed("duplicate member name");
        top.keys.add(s);
        top.expectKey = false;
      }
      i = j + 1;
    } else if (c === "{") {
      stack.push({ keys: new Set(), expectKey: true });
      i++;
    } else if (c === "[") {
      stack.push(null);
      i++;
    } else if (c === "}" || c === "]") {
      stack.pop();
      i++;
    } else if (c === ",") {
      const top = stack[stack.length - 1];
      if (top) top.expectKey = true;
      i++;
    } else if (c === "-" || (c >= "0" && c <= "9")) {
      NUMBER_TOKEN.lastIndex = i;
      const m = NUMBER_TOKEN.exec(text)!;
      checkNumber(m[0]);
      i += m[0].length;
    } else {
      i++; // whitespace, ':', letters of true/false/null
    }
  }
  if (!isObject(value)) throw new Malformed("not an object");
  return value;
}

/** RFC 8785 text of a parsed value (compared, never written). Keys sort by UTF-16 code units. */
function canonical(v: Json): string {
  if (Array.isArray(v)) return "[" + v.map(canonical).join(",") + "]";
  if (isObject(v)) {
    const keys = Object.keys(v).sort();
    return "{" + keys.map((k) => JSON.stringify(k) + ":" + canonical(v[k])).join(",") + "}";
  }
  return JSON.stringify(v);
}

function usableId(v: unknown): v is string {
  return typeof v === "string" && v !== "";
}

type Frame = JsonObject;

class SessionV2 {
  initialized = false;
  negotiated: number | null = null; // 1 when initialize chose v1 for the session
  private used = new Map<string, { canon: string; reply: Frame | null }>();
  private pending = new Set<string>(); // pending holds, in arrival order

  constructor(
    private readonly write: (frame: Frame) => void,
    private readonly base: Session, // the v1 session: model, permission mode, payloads
    private readonly spoken: readonly number[] = SPOKEN_VERSIONS, // versions initialize may choose, highest first
  ) {}

  // ----- output

  private diag(code: string, message: string, raw?: Uint8Array, size?: number, requestId?: string, reply?: Frame | null): void {
    const d: Frame = { type: "control_diagnostic", schemaVersion: 2, code, message };
    if (requestId !== undefined) d.request_id = requestId;
    if (raw !== undefined) {
      d.excerpt = excerpt(raw);
      d.size = size!;
    }
    if (reply) d.reply = reply;
    this.write(d);
  }

  private terminal(rid: string, inner: JsonObject): void {
    const frame: Frame = { type: "control_response", schemaVersion: 2, response: inner };
    this.used.get(rid)!.reply = frame;
    this.write(frame);
  }

  private success(rid: string, payload: JsonObject): void {
    this.terminal(rid, { subtype: "success", request_id: rid, response: payload });
  }

  private error(rid: string, code: string, message: string): void {
    this.terminal(rid, { subtype: "error", request_id: rid, error: { code, message: cleanErrorText(message) } });
  }

  // ----- input

  /** Judges one input line (raw bytes without LF, cut to its first bytes when truncated; size is its whole length). */
  handle(raw: Uint8Array, size: number, truncated: boolean): void {
    if (truncated || size > FRAME_LIMIT) {
      this.diag("frame_too_large", `line of ${size} bytes exceeds the ${FRAME_LIMIT}-byte frame limit`, raw, size);
      return;
    }
    if (raw.every((b) => b === 0x20 || b === 0x09 || b === 0x0d)) {
      return; // blank lines carry nothing
    }
    let msg: JsonObject;
    try {
      msg = strictParse(raw);
    } catch (e) {
      if (!(e instanceof Malformed)) throw e;
      this.diag("malformed_frame", `not a strict-JSON object: ${e.message}`, raw, size);
      return;
    }
    const type = member(msg, "type");
    if (typeof type === "string" && PASS_OVER.has(type)) {
      return; // stream-json frames outside the control channel
    }
    const rid = member(msg, "request_id");
    if (type === "control_request" && usableId(rid) && this.used.has(rid)) {
      const entry = this.used.get(rid)!;
      if (canonical(msg) === entry.canon) {
        this.diag("request_replayed", `retransmission of request ${rid}: not run again`, raw, size, rid, entry.reply);
      } else {
        this.diag("duplicate_request_id", `request_id ${rid} is already used by another request`, raw, size, rid);
      }
      return;
    }
    if (member(msg, "schemaVersion") !== 2) {
      const text = "schemaVersion must be 2";
      if (type === "control_request" && usableId(rid)) {
        this.used.set(rid, { canon: canonical(msg), reply: null });
        this.error(rid, "unsupported_schema_version", text);
      } else {
        const named = type === "control_response" ? member(member(msg, "response"), "request_id") : rid;
        this.diag("unsupported_schema_version", text, raw, size, usableId(named) ? named : undefined);
      }
      return;
    }
    if (!(typeof type === "string" && CONTROL_TYPES.has(type))) {
      this.diag("unsupported_frame_type", "unknown frame type", raw, size);
      return;
    }
    if (type === "control_diagnostic") {
      return; // a host's diagnostics are never answered
    }
    if (type === "control_response") {
      if (!usableId(member(member(msg, "response"), "request_id"))) {
        this.diag("invalid_request", "control_response without a usable request_id", raw, size);
      }
      return; // this agent sends no requests: the reply names nothing
    }
    if (!usableId(rid)) {
      this.diag("invalid_request", "request_id must be a non-empty string", raw, size);
      return;
    }
    if (type === "control_cancel_request") {
      if (this.pending.delete(rid)) {
        this.error(rid, "cancelled", "request cancelled");
      }
      return; // unknown or finished: nothing
    }
    this.used.set(rid, { canon: canonical(msg), reply: null });
    this.request(rid, msg);
  }

  endOfInput(): void {
    for (const rid of [...this.pending]) {
      this.pending.delete(rid);
      this.error(rid, "cancelled", "input ended while the request was pending");
    }
  }

  private request(rid: string, msg: JsonObject): void {
    const req = member(msg, "request");
    if (!isObject(req)) {
      this.error(rid, "invalid_request", "request must be an object");
      return;
    }
    const subtype = member(req, "subtype");
    if (!usableId(subtype)) {
      this.error(rid, "invalid_request", "request.subtype must be a non-empty string");
      return;
    }
    if (!this.initialized && subtype !== "initialize") {
      this.error(rid, "not_initialized", "initialize first");
      return;
    }
    switch (subtype) {
      case "initialize":
        return this.initialize(rid, req);
      case "interrupt": {
        const cq = member(req, "cancel_queued");
        if (cq !== undefined && typeof cq !== "boolean") {
          return this.error(rid, "invalid_request", "cancel_queued must be a boolean");
        }
        return this.success(rid, { still_queued: [] });
      }
      case "set_model":
        return this.setModel(rid, req);
      case "set_permission_mode": {
        const mode = member(req, "mode");
        if (typeof mode !== "string") return this.error(rid, "invalid_request", "mode must be a string");
        if (PERMISSION_MODES.has(mode)) {
          this.base.mode = mode;
          return this.success(rid, { mode });
        }
        if (mode === "bypassPermissions") return this.error(rid, "bypass_not_launched", BYPASS_TEXT);
        return this.error(rid, "invalid_mode", INVALID_MODE_TEXT);
      }
      case "set_max_thinking_tokens": {
        const n = member(req, "max_thinking_tokens");
        const d = member(req, "thinking_display");
        const nOk = isAbsentOrNull(n) || (typeof n === "number" && Number.isInteger(n) && n >= 0);
        const dOk = isAbsentOrNull(d) || (typeof d === "string" && THINKING_DISPLAYS.has(d));
        if (!(nOk && dOk)) {
          return this.error(rid, "invalid_request",
            "max_thinking_tokens must be an integer >= 0 or null; thinking_display one of summarized, omitted, highlights or null");
        }
        return this.success(rid, {});
      }
      case "get_binary_version":
        return this.success(rid, this.payload(this.base.getBinaryVersion()));
      case "mcp_status":
        return this.success(rid, this.payload(this.base.mcpStatus()));
      case "get_context_usage":
        return this.success(rid, this.payload(this.base.getContextUsage()));
      case "rewind_files": {
        const dry = member(req, "dry_run");
        const umid = member(req, "user_message_id");
        if ((dry !== undefined && typeof dry !== "boolean") || (umid !== undefined && typeof umid !== "string")) {
          return this.error(rid, "invalid_request", "dry_run must be a boolean, user_message_id a string");
        }
        if (dry === true) return this.success(rid, { canRewind: false, reason: REWIND_TEXT });
        return this.error(rid, "rewind_unavailable", REWIND_TEXT);
      }
      case "mcp_reconnect":
      case "mcp_toggle": {
        const name = member(req, "serverName");
        const enabled = member(req, "enabled");
        if ((name !== undefined && typeof name !== "string") ||
          (subtype === "mcp_toggle" && enabled !== undefined && typeof enabled !== "boolean")) {
          return this.error(rid, "invalid_request", "serverName must be a string, enabled a boolean");
        }
        // No MCP server is ever configured.
        return this.error(rid, "unknown_server", "Server not found: " + String(name));
      }
      case "stop_task": {
        const task = member(req, "task_id");
        if (task !== undefined && typeof task !== "string") {
          return this.error(rid, "invalid_request", "task_id must be a string");
        }
        return this.success(rid, {}); // a task that is not running: a no-op
      }
      case "hold":
        this.pending.add(rid); // answered by release, cancel or end of input
        return;
      case "release": {
        const target = member(req, "target");
        if (!usableId(target)) return this.error(rid, "invalid_request", "target must be a non-empty request_id");
        if (this.pending.delete(target)) {
          this.success(target, { releasedBy: rid });
          return this.success(rid, { released: true });
        }
        return this.success(rid, { released: false });
      }
      default:
        return this.error(rid, "unsupported_request", "Unsupported control request subtype: " + subtype);
    }
  }

  private payload(out: Outcome): JsonObject {
    return out.kind === "success" && out.payload !== undefined ? out.payload : {};
  }

  private initialize(rid: string, req: JsonObject): void {
    if (this.initialized) {
      return this.error(rid, "already_initialized", "the session is already initialized");
    }
    const offered = member(req, "protocolVersions");
    const ok = Array.isArray(offered) && offered.length > 0 &&
      offered.every((v) => typeof v === "number" && Number.isInteger(v) && v >= 1) &&
      new Set(offered).size === offered.length;
    if (!ok) {
      return this.error(rid, "invalid_request", "protocolVersions must be a non-empty array of distinct positive integers");
    }
    const shared = this.spoken.filter((v) => (offered as Json[]).includes(v));
    if (shared.length === 0) {
      const speaks = [...this.spoken].sort((a, b) => a - b).join(", ");
      this.error(rid, "version_mismatch", `no shared protocol version (this agent speaks ${speaks})`);
      throw new EndSession(1);
    }
    const body = this.payload(this.base.initialize(req));
    this.initialized = true;
    this.success(rid, { protocolVersion: shared[0], session: body });
    if (shared[0] === 1) {
      this.negotiated = 1; // the rest of the session speaks v1
    }
  }

  private setModel(rid: string, req: JsonObject): void {
    const m = member(req, "model");
    if (m === undefined || m === null || m === "default") {
      this.base.model = DEFAULT_MODEL;
    } else if (typeof m !== "string" || m === "") {
      return this.error(rid, "invalid_request", "model must be a non-empty string or null");
    } else {
      const base = m.replace(MODEL_SUFFIX, "");
      const resolved = ALIASES.get(base) ?? (CATALOG.has(base) ? base : undefined);
      if (resolved === undefined) {
        return this.error(rid, "unknown_model", `model ${m} is not in this agent's catalog`);
      }
      this.base.model = resolved;
    }
    this.success(rid, { model: this.base.model });
  }
}

// ------------------------------------------------------- version detection
//
// One process serves one session, v1 or v2 (README "Which version"). Under
// conform the runner names the suite version in CONFORM_PROTOCOL_VERSION:
// "1" or "2" fixes the session's version before the first line is read.
// Otherwise (any other value, or unset) the first deciding line decides:
// a JSON object with a top-level schemaVersion member (any value) or an
// initialize request offering protocolVersions makes the session v2; a line
// v1 answers or finds fatal makes it v1; lines v1 ignores decide nothing.
// No timers: the decision depends on the input alone.

function pinnedVersion(env: NodeJS.ProcessEnv = process.env): 1 | 2 | null {
  const v = (env.CONFORM_PROTOCOL_VERSION ?? "").trim();
  return v === "1" ? 1 : v === "2" ? 2 : null;
}

function isV2Marker(raw: Uint8Array): boolean {
  let msg: unknown;
  try {
    msg = JSON.parse(new TextDecoder("utf-8").decode(raw).trim());
  } catch {
    return false;
  }
  if (!isObject(msg)) return false;
  if (member(msg, "schemaVersion") !== undefined) return true;
  const req = member(msg, "request");
  return member(msg, "type") === "control_request" && member(req, "subtype") === "initialize" &&
    member(req, "protocolVersions") !== undefined;
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

class Driver {
  private readonly v1 = new Session();
  private v2: SessionV2 | null = null;
  mode: 1 | 2 | null = null; // null: undecided

  constructor(private readonly pinned: 1 | 2 | null) {
    if (pinned !== null) {
      this.decide(pinned);
    }
  }

  private writeFrame = (frame: Frame): void => writeAll(1, JSON.stringify(frame) + "\n");

  private decide(mode: 1 | 2): void {
    this.mode = mode;
    if (mode === 2) {
      // pinned to v2: a v2 session throughout, so initialize cannot negotiate down to 1
      this.v2 = new SessionV2(this.writeFrame, this.v1, this.pinned === 2 ? [2] : SPOKEN_VERSIONS);
    }
  }

  line(raw: Buffer, size: number, truncated: boolean): void {
    if (this.mode === null && isV2Marker(raw)) {
      this.decide(2);
    }
    if (this.mode === 2) {
      this.v2!.handle(raw, size, truncated);
      if (this.v2!.negotiated === 1) {
        this.mode = 1; // initialize chose v1: the rest of the session is v1
      }
      return;
    }
    const reply = this.v1.handleLine(new TextDecoder("utf-8").decode(raw)); // may throw Fatal
    if (reply !== null) {
      this.mode = 1; // v1 answered: the session is v1 (a fatal line ends it)
      writeAll(1, reply + "\n");
    }
  }

  endOfInput(): void {
    if (this.mode === 2) {
      this.v2!.endOfInput();
    }
  }
}

function main(): void {
  if ((process.env.CONFORM_ROLE ?? "").trim() === "host") {
    runHost(); // the host role (docs/host-role.md): src/host.ts
    return;
  }
  const driver = new Driver(pinnedVersion());
  let parts: Buffer[] = [];
  let size = 0;
  let truncated = false;
  let done = false;

  const guard = (f: () => void): void => {
    try {
      f();
    } catch (e) {
      if (e instanceof Fatal) {
        done = true;
        writeAll(2, e.message + "\n");
        process.exit(1);
      }
      if (e instanceof EndSession) {
        done = true;
        process.exit(e.status);
      }
      throw e;
    }
  };
  const flushLine = (): void => {
    const raw = parts.length === 1 ? parts[0] : Buffer.concat(parts);
    const [s, t] = [size, truncated];
    parts = [];
    size = 0;
    truncated = false;
    guard(() => driver.line(raw, s, t));
  };
  const add = (piece: Buffer): void => {
    size += piece.length;
    if (truncated) return;
    if (driver.mode === 2 && size > FRAME_LIMIT) {
      // v2 never holds more than the limit: keep what the excerpt needs
      parts = [Buffer.concat([...parts, piece]).subarray(0, KEEP_BYTES)];
      parts[0] = Buffer.from(parts[0]); // copy: keep no view of a large buffer
      truncated = true;
      return;
    }
    parts.push(Buffer.from(piece)); // copy: keep no view of the stream chunk
  };

  process.stdin.on("data", (chunk: Buffer) => {
    let start = 0;
    while (!done) {
      const nl = chunk.indexOf(0x0a, start);
      add(nl < 0 ? chunk.subarray(start) : chunk.subarray(start, nl));
      if (nl < 0) break;
      start = nl + 1;
      flushLine();
    }
  });
  process.stdin.on("end", () => {
    if (done) return;
    if (size > 0) {
      flushLine(); // last line without LF
    }
    guard(() => driver.endOfInput());
    process.exit(0);
  });
  process.stdin.on("error", () => process.exit(0));
}

main();
