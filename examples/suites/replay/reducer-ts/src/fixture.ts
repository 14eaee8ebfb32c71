// Reading a replay fixture (fixtureVersion 1, examples/suites/replay/README.md):
// every check happens here, before anything is reduced, so a fixture this
// reducer cannot read fails closed with one error and no summary. The checks
// run in a fixed order (the Rust reducer keeps the same one) so that both
// report the same first error.

export const FIXTURE_VERSIONS = [1];
export const EVENT_VERSIONS = [1];
const OUTCOMES = ["completed", "failed", "cancelled"];

export type Event =
  | { id: string; seq: number; type: "run.started"; at: string }
  | { id: string; seq: number; type: "tool.called"; tool: string }
  | { id: string; seq: number; type: "tool.finished"; tool: string; ok: boolean }
  | { id: string; seq: number; type: "run.finished"; outcome: string };

export interface Fixture {
  fixtureVersion: number;
  run: string;
  events: Event[];
}

/** A fixture this reducer does not accept: code, JSON Pointer, message. */
export class ReplayError extends Error {
  constructor(
    readonly code: string,
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

type Obj = Record<string, unknown>;
type Kind = "an integer" | "a string" | "an array" | "an object" | "a boolean";

function isObject(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isInteger(v: unknown): v is number {
  return typeof v === "number" && Number.isSafeInteger(v);
}

function has(v: unknown, kind: Kind): boolean {
  switch (kind) {
    case "an integer":
      return isInteger(v);
    case "a string":
      return typeof v === "string";
    case "an array":
      return Array.isArray(v);
    case "an object":
      return isObject(v);
    case "a boolean":
      return typeof v === "boolean";
  }
}

function member<T>(obj: Obj, at: string, key: string, kind: Kind): T {
  const v = obj[key];
  if (!has(v, kind)) {
    throw new ReplayError("fixture_invalid", `${at}/${key}`, `${at}/${key} must be ${kind}`);
  }
  return v as T;
}

function version(obj: Obj, at: string, key: string, supported: number[], code: string): number {
  const v = member<number>(obj, at, key, "an integer");
  if (!supported.includes(v)) {
    throw new ReplayError(code, `${at}/${key}`, `${key} ${v} is not supported (this reducer reads ${supported.join(", ")})`);
  }
  return v;
}

function event(v: unknown, at: string): Event {
  if (!isObject(v)) {
    throw new ReplayError("fixture_invalid", at, `${at} must be an object`);
  }
  version(v, at, "schemaVersion", EVENT_VERSIONS, "event_version_unsupported");
  const id = member<string>(v, at, "id", "a string");
  const seq = member<number>(v, at, "seq", "an integer");
  if (seq < 1) {
    throw new ReplayError("fixture_invalid", `${at}/seq`, `${at}/seq must be at least 1`);
  }
  const type = member<string>(v, at, "type", "a string");
  switch (type) {
    case "run.started":
      return { id, seq, type, at: member<string>(v, at, "at", "a string") };
    case "tool.called":
      return { id, seq, type, tool: member<string>(v, at, "tool", "a string") };
    case "tool.finished":
      return { id, seq, type, tool: member<string>(v, at, "tool", "a string"), ok: member<boolean>(v, at, "ok", "a boolean") };
    case "run.finished": {
      const outcome = member<string>(v, at, "outcome", "a string");
      if (!OUTCOMES.includes(outcome)) {
        throw new ReplayError("enum_value_unknown", `${at}/outcome`, "outcome is not one this reducer knows");
      }
      return { id, seq, type, outcome };
    }
    default:
      throw new ReplayError("event_type_unknown", `${at}/type`, "event type is not one this reducer knows");
  }
}

/** readFixture checks a parsed fixture file and returns its events. Unknown members are ignored. */
export function readFixture(v: unknown): Fixture {
  if (!isObject(v)) {
    throw new ReplayError("fixture_invalid", "", "the fixture is not one JSON object");
  }
  const fixtureVersion = version(v, "", "fixtureVersion", FIXTURE_VERSIONS, "fixture_version_unsupported");
  const run = member<string>(v, "", "run", "a string");
  const events = member<unknown[]>(v, "", "events", "an array").map((e, i) => event(e, `/events/${i}`));
  return { fixtureVersion, run, events };
}
