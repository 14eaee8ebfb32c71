//! Reducing a fixture's events to one summary (examples/suites/replay/README.md
//! "Replay rules"): events are applied in file order; an id already applied has
//! no second effect; an event at or behind the cursor is ignored; a forward gap
//! is recorded, never filled in.

use std::collections::{BTreeMap, HashSet};

use serde_json::{json, Map, Value};

use crate::fixture::{Body, Fixture};

#[derive(Default)]
struct ToolCount {
    calls: u64,
    ok: u64,
    failed: u64,
}

/// Returns the summary object of fixture, naming reducer as its author.
pub fn reduce(fixture: &Fixture, reducer: &str) -> Value {
    let (mut applied, mut duplicates, mut out_of_order) = (0u64, 0u64, 0u64);
    let mut gaps = Vec::new();
    let mut tools: BTreeMap<&str, ToolCount> = BTreeMap::new();
    let (mut started_at, mut outcome) = (Value::Null, Value::Null);
    let mut seen: HashSet<&str> = HashSet::new();
    let mut cursor = 0i64;
    for e in &fixture.events {
        if seen.contains(e.id.as_str()) {
            duplicates += 1;
            continue;
        }
        if e.seq <= cursor {
            out_of_order += 1;
            continue;
        }
        if e.seq > cursor + 1 {
            gaps.push(json!({"after": cursor, "next": e.seq}));
        }
        cursor = e.seq;
        seen.insert(&e.id);
        applied += 1;
        match &e.body {
            Body::RunStarted { at } => started_at = Value::from(at.as_str()),
            Body::ToolCalled { tool } => tools.entry(tool).or_default().calls += 1,
            Body::ToolFinished { tool, ok: true } => tools.entry(tool).or_default().ok += 1,
            Body::ToolFinished { tool, ok: false } => tools.entry(tool).or_default().failed += 1,
            Body::RunFinished { outcome: o } => outcome = Value::from(o.as_str()),
        }
    }
    let tools: Map<String, Value> = tools
        .into_iter()
        .map(|(name, c)| {
            (
                name.to_string(),
                json!({"calls": c.calls, "ok": c.ok, "failed": c.failed}),
            )
        })
        .collect();
    json!({
        "run": fixture.run,
        "fixtureVersion": fixture.fixture_version,
        "reducer": reducer,
        "events": fixture.events.len(),
        "applied": applied,
        "duplicates": duplicates,
        "outOfOrder": out_of_order,
        "gaps": gaps,
        "tools": tools,
        "startedAt": started_at,
        "outcome": outcome,
    })
}
