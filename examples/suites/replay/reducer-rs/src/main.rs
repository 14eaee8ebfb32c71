//! replay-reducer FIXTURE.json: reads one replay fixture file and writes one
//! JSON line to stdout, {"summary": {...}} (exit 0) or {"error": {"code",
//! "path", "message"}} (exit 1; a wrong command line exits 2).

mod fixture;
mod reduce;

use std::io::Write;
use std::process::ExitCode;

use serde_json::{json, Value};

use fixture::{read_fixture, ReplayError};

const REDUCER: &str = concat!("replay-rs/", env!("CARGO_PKG_VERSION"));

fn failed(e: ReplayError, status: u8) -> (Value, u8) {
    (
        json!({"error": {"code": e.code, "path": e.path, "message": e.message}}),
        status,
    )
}

fn replay(args: &[String]) -> (Value, u8) {
    let [path] = args else {
        return failed(
            ReplayError::new("usage", "", "usage: replay-reducer FIXTURE.json"),
            2,
        );
    };
    let Ok(bytes) = std::fs::read(path) else {
        return failed(
            ReplayError::new("fixture_unreadable", "", "the fixture file cannot be read"),
            1,
        );
    };
    // As Node reads a file as UTF-8: a bad sequence becomes U+FFFD.
    let Ok(parsed) = serde_json::from_str::<Value>(&String::from_utf8_lossy(&bytes)) else {
        return failed(
            ReplayError::new("fixture_invalid", "", "the fixture is not one JSON object"),
            1,
        );
    };
    match read_fixture(&parsed) {
        Ok(f) => (json!({"summary": reduce::reduce(&f, REDUCER)}), 0),
        Err(e) => failed(e, 1),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (frame, status) = replay(&args);
    let mut out = std::io::stdout().lock();
    if writeln!(out, "{frame}").and_then(|()| out.flush()).is_err() {
        return ExitCode::from(3);
    }
    ExitCode::from(status)
}
