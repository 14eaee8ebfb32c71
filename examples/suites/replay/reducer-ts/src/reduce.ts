// Reducing a fixture's events to one summary (examples/suites/replay/README.md
// "Replay rules"): events are applied in file order; an id already applied
// has no second effect; an event at or behind the cursor is ignored; a
// forward gap is recorded, never filled in.

import type { Fixture } from "./fixture.js";

export interface ToolCount {
  calls: number;
  ok: number;
  failed: number;
}

export interface Summary {
  run: string;
  fixtureVersion: number;
  reducer: string;
  events: number;
  applied: number;
  duplicates: number;
  outOfOrder: number;
  gaps: { after: number; next: number }[];
  tools: Record<string, ToolCount>;
  startedAt: string | null;
  outcome: string | null;
}

export function reduce(fixture: Fixture, reducer: string): Summary {
  const s: Summary = {
    run: fixture.run,
    fixtureVersion: fixture.fixtureVersion,
    reducer,
    events: fixture.events.length,
    applied: 0,
    duplicates: 0,
    outOfOrder: 0,
    gaps: [],
    tools: {},
    startedAt: null,
    outcome: null,
  };
  const applied = new Set<string>();
  // A Map, not an object: a tool may be named __proto__ or constructor.
  const tools = new Map<string, ToolCount>();
  const tool = (name: string): ToolCount => {
    let c = tools.get(name);
    if (c === undefined) {
      c = { calls: 0, ok: 0, failed: 0 };
      tools.set(name, c);
    }
    return c;
  };
  let cursor = 0;
  for (const e of fixture.events) {
    if (applied.has(e.id)) {
      s.duplicates++;
      continue;
    }
    if (e.seq <= cursor) {
      s.outOfOrder++;
      continue;
    }
    if (e.seq > cursor + 1) {
      s.gaps.push({ after: cursor, next: e.seq });
    }
    cursor = e.seq;
    applied.add(e.id);
    s.applied++;
    switch (e.type) {
      case "run.started":
        s.startedAt = e.at;
        break;
      case "tool.called":
        tool(e.tool).calls++;
        break;
      case "tool.finished":
        tool(e.tool)[e.ok ? "ok" : "failed"]++;
        break;
      case "run.finished":
        s.outcome = e.outcome;
        break;
    }
  }
  s.tools = Object.fromEntries(tools); // own data properties, whatever the names
  return s;
}
