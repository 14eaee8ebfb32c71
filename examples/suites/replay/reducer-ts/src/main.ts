// replay-reducer FIXTURE.json: reads one replay fixture file and writes one
// JSON line to stdout, {"summary": {...}} (exit 0) or {"error": {"code",
// "path", "message"}} (exit 1; a wrong command line exits 2).

import { readFileSync } from "node:fs";
import { readFixture, ReplayError } from "./fixture.js";
import { reduce } from "./reduce.js";

const REDUCER = "replay-ts/0.1.0";

type Outcome = [frame: object, status: number];

function failed(e: ReplayError, status = 1): Outcome {
  return [{ error: { code: e.code, path: e.path, message: e.message } }, status];
}

function replay(args: string[]): Outcome {
  if (args.length !== 1) {
    return failed(new ReplayError("usage", "", "usage: replay-reducer FIXTURE.json"), 2);
  }
  let text: string;
  try {
    text = readFileSync(args[0], "utf8");
  } catch {
    return failed(new ReplayError("fixture_unreadable", "", "the fixture file cannot be read"));
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return failed(new ReplayError("fixture_invalid", "", "the fixture is not one JSON object"));
  }
  try {
    return [{ summary: reduce(readFixture(parsed), REDUCER) }, 0];
  } catch (e) {
    if (e instanceof ReplayError) {
      return failed(e);
    }
    throw e;
  }
}

const [frame, status] = replay(process.argv.slice(2));
process.stdout.write(JSON.stringify(frame) + "\n");
process.exitCode = status; // node exits once stdout is flushed
