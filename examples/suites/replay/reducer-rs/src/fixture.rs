//! Reading a replay fixture (fixtureVersion 1, examples/suites/replay/README.md):
//! every check happens here, before anything is reduced, so a fixture this
//! reducer cannot read fails closed with one error and no summary. The checks
//! run in the same order as the TypeScript reducer's, so both report the same
//! first error.

use serde_json::{Map, Value};

pub const FIXTURE_VERSIONS: &[i64] = &[1];
pub const EVENT_VERSIONS: &[i64] = &[1];
const OUTCOMES: &[&str] = &["completed", "failed", "cancelled"];

/// The largest integer a JSON reader that uses binary64 (JavaScript) keeps exactly.
const MAX_SAFE: f64 = 9_007_199_254_740_991.0;

pub enum Body {
    RunStarted { at: String },
    ToolCalled { tool: String },
    ToolFinished { tool: String, ok: bool },
    RunFinished { outcome: String },
}

pub struct Event {
    pub id: String,
    pub seq: i64,
    pub body: Body,
}

pub struct Fixture {
    pub fixture_version: i64,
    pub run: String,
    pub events: Vec<Event>,
}

/// A fixture this reducer does not accept: code, JSON Pointer, message.
pub struct ReplayError {
    pub code: &'static str,
    pub path: String,
    pub message: String,
}

impl ReplayError {
    pub fn new(code: &'static str, path: &str, message: impl Into<String>) -> Self {
        ReplayError {
            code,
            path: path.to_string(),
            message: message.into(),
        }
    }
}

#[derive(Clone, Copy)]
enum Kind {
    Integer,
    Str,
    Array,
    Object,
    Boolean,
}

impl Kind {
    fn article(self) -> &'static str {
        match self {
            Kind::Integer => "an integer",
            Kind::Str => "a string",
            Kind::Array => "an array",
            Kind::Object => "an object",
            Kind::Boolean => "a boolean",
        }
    }
}

/// An integer as JavaScript's Number.isSafeInteger sees it: 2, 2.0 and 2e0 are 2.
fn integer(v: &Value) -> Option<i64> {
    let f = v.as_f64()?;
    if let Some(i) = v.as_i64() {
        return (i.unsigned_abs() <= MAX_SAFE as u64).then_some(i);
    }
    (f.fract() == 0.0 && f.abs() <= MAX_SAFE).then_some(f as i64)
}

fn member<'a>(
    obj: &'a Map<String, Value>,
    at: &str,
    key: &str,
    kind: Kind,
) -> Result<&'a Value, ReplayError> {
    let v = obj.get(key);
    let ok = match (kind, v) {
        (Kind::Integer, Some(v)) => integer(v).is_some(),
        (Kind::Str, Some(v)) => v.is_string(),
        (Kind::Array, Some(v)) => v.is_array(),
        (Kind::Object, Some(v)) => v.is_object(),
        (Kind::Boolean, Some(v)) => v.is_boolean(),
        (_, None) => false,
    };
    match v {
        Some(v) if ok => Ok(v),
        _ => {
            let path = format!("{at}/{key}");
            let message = format!("{path} must be {}", kind.article());
            Err(ReplayError::new("fixture_invalid", &path, message))
        }
    }
}

fn string(obj: &Map<String, Value>, at: &str, key: &str) -> Result<String, ReplayError> {
    Ok(member(obj, at, key, Kind::Str)?
        .as_str()
        .unwrap_or_default()
        .to_string())
}

fn version(
    obj: &Map<String, Value>,
    at: &str,
    key: &str,
    supported: &[i64],
    code: &'static str,
) -> Result<i64, ReplayError> {
    let v = integer(member(obj, at, key, Kind::Integer)?).unwrap_or_default();
    if supported.contains(&v) {
        return Ok(v);
    }
    let reads: Vec<String> = supported.iter().map(|n| n.to_string()).collect();
    let message = format!(
        "{key} {v} is not supported (this reducer reads {})",
        reads.join(", ")
    );
    Err(ReplayError::new(code, &format!("{at}/{key}"), message))
}

fn event(v: &Value, at: &str) -> Result<Event, ReplayError> {
    let Some(obj) = v.as_object() else {
        return Err(ReplayError::new(
            "fixture_invalid",
            at,
            format!("{at} must be {}", Kind::Object.article()),
        ));
    };
    version(
        obj,
        at,
        "schemaVersion",
        EVENT_VERSIONS,
        "event_version_unsupported",
    )?;
    let id = string(obj, at, "id")?;
    let seq = integer(member(obj, at, "seq", Kind::Integer)?).unwrap_or_default();
    if seq < 1 {
        return Err(ReplayError::new(
            "fixture_invalid",
            &format!("{at}/seq"),
            format!("{at}/seq must be at least 1"),
        ));
    }
    let body = match string(obj, at, "type")?.as_str() {
        "run.started" => Body::RunStarted {
            at: string(obj, at, "at")?,
        },
        "tool.called" => Body::ToolCalled {
            tool: string(obj, at, "tool")?,
        },
        "tool.finished" => {
            let tool = string(obj, at, "tool")?;
            let ok = member(obj, at, "ok", Kind::Boolean)?
                .as_bool()
                .unwrap_or_default();
            Body::ToolFinished { tool, ok }
        }
        "run.finished" => {
            let outcome = string(obj, at, "outcome")?;
            if !OUTCOMES.contains(&outcome.as_str()) {
                return Err(ReplayError::new(
                    "enum_value_unknown",
                    &format!("{at}/outcome"),
                    "outcome is not one this reducer knows",
                ));
            }
            Body::RunFinished { outcome }
        }
        _ => {
            return Err(ReplayError::new(
                "event_type_unknown",
                &format!("{at}/type"),
                "event type is not one this reducer knows",
            ))
        }
    };
    Ok(Event { id, seq, body })
}

/// Checks a parsed fixture file and returns its events. Unknown members are ignored.
pub fn read_fixture(v: &Value) -> Result<Fixture, ReplayError> {
    let Some(obj) = v.as_object() else {
        return Err(ReplayError::new(
            "fixture_invalid",
            "",
            "the fixture is not one JSON object",
        ));
    };
    let fixture_version = version(
        obj,
        "",
        "fixtureVersion",
        FIXTURE_VERSIONS,
        "fixture_version_unsupported",
    )?;
    let run = string(obj, "", "run")?;
    let list = member(obj, "", "events", Kind::Array)?
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut events = Vec::with_capacity(list.len());
    for (i, e) in list.iter().enumerate() {
        events.push(event(e, &format!("/events/{i}"))?);
    }
    Ok(Fixture {
        fixture_version,
        run,
        events,
    })
}
