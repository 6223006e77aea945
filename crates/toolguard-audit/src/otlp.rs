//! OTLP/JSON traces: one `ExportTraceServiceRequest` a line
//! (`{"resourceSpans":[{"scopeSpans":[{"spans":[…]}]}]}`, as the
//! OpenTelemetry Collector's file exporter writes them).
//!
//! Tool spans are read in either convention:
//! - OpenTelemetry GenAI: `gen_ai.operation.name = "execute_tool"` (span name
//!   `execute_tool <tool>`), `gen_ai.tool.name`, `gen_ai.tool.call.id`,
//!   `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`;
//! - OpenInference: `openinference.span.kind = "TOOL"`, `tool.name`,
//!   `input.value`, `output.value`.
//!
//! A span with status ERROR is an error result (never scanned). Spans
//! arrive in export batches, not in the order they ran, so tool spans are
//! kept and observed per trace in start-time order (one chain per trace,
//! ids hex or base64; per `toolguard.chain` where toolguard wrote the span); memory is bounded by `--max-line-bytes`: past it, what
//! is kept is observed early.

use std::collections::HashMap;

use base64::Engine as _;
use serde_json::{Map, Value};

use super::replay::{CallCost, CallSite, Run};
use super::report::SessionReport;
use super::shell::shell_text;
use toolguard_core::engine::Output;

struct ToolSpan {
    trace: String,
    start: u128,
    site: CallSite,
    text: String,
    is_error: bool,
}

#[derive(Default)]
pub(super) struct OtlpState {
    spans: Vec<ToolSpan>,
    kept_bytes: usize,
}

pub(super) fn line(
    run: &mut Run,
    report: &mut SessionReport,
    number: u64,
    request: &Map<String, Value>,
) {
    let Some(Value::Array(resources)) = request.get("resourceSpans") else {
        report.error(
            Some(number),
            "not an OTLP/JSON trace request: no \"resourceSpans\" array".to_owned(),
        );
        return;
    };
    for resource in resources {
        let scopes = resource
            .get("scopeSpans")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        for scope in scopes {
            let spans = scope
                .get("spans")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice);
            for span in spans {
                if let Some(span) = span.as_object() {
                    tool_span(run, report, number, span);
                }
            }
        }
    }
    if run.otlp.kept_bytes > run.auditor.options.max_line_bytes {
        flush(run, report);
    }
}

/// Observe the kept tool spans, per trace (in order of first appearance) by start time.
pub(super) fn flush(run: &mut Run, report: &mut SessionReport) {
    let mut spans = std::mem::take(&mut run.otlp.spans);
    run.otlp.kept_bytes = 0;
    let mut order: HashMap<String, usize> = HashMap::new();
    for span in &spans {
        let next = order.len();
        order.entry(span.trace.clone()).or_insert(next);
    }
    spans.sort_by_key(|s| (order[&s.trace], s.start));
    for span in spans {
        let output = Output::text(&span.text, span.is_error);
        if run.scans(&span.site.name) {
            run.observe(report, &span.site, &output);
        } else {
            run.advance(report, &span.site);
        }
    }
}

fn tool_span(run: &mut Run, report: &mut SessionReport, number: u64, span: &Map<String, Value>) {
    let attributes = attributes(span.get("attributes"));
    let get = |key: &str| attributes.get(key);
    let span_name = span.get("name").and_then(Value::as_str).unwrap_or("");
    let genai = get("gen_ai.operation.name").and_then(Value::as_str) == Some("execute_tool")
        || span_name == "execute_tool"
        || span_name.starts_with("execute_tool ");
    let openinference = get("openinference.span.kind").and_then(Value::as_str) == Some("TOOL");
    let (name, arguments, result) = if genai {
        let name = get("gen_ai.tool.name")
            .and_then(Value::as_str)
            .or_else(|| span_name.strip_prefix("execute_tool "));
        (
            name,
            get("gen_ai.tool.call.arguments"),
            get("gen_ai.tool.call.result"),
        )
    } else if openinference {
        (
            get("tool.name").and_then(Value::as_str),
            get("input.value"),
            get("output.value"),
        )
    } else {
        return;
    };
    let Some(name) = name.filter(|n| !n.is_empty()) else {
        report.error(
            Some(number),
            format!("tool span \"{span_name}\" without a tool name attribute"),
        );
        return;
    };
    let start = match span.get("startTimeUnixNano") {
        Some(Value::String(n)) => n.parse().ok(),
        Some(Value::Number(n)) => n.as_u64().map(u128::from),
        _ => None,
    }
    .unwrap_or(0);
    if run.before_since(i64::try_from(start / 1_000_000).ok().filter(|_| start > 0)) {
        return;
    }
    let Some(trace) = span
        .get("traceId")
        .and_then(Value::as_str)
        .and_then(|id| hex_id(id, 16))
    else {
        report.error(
            Some(number),
            format!(
                "tool span \"{span_name}\" without a valid traceId (hex or base64 of 16 bytes)"
            ),
        );
        return;
    };
    // toolguard's own spans name the guard's chain (the host's agent id):
    // several agents in one trace stay apart, and one agent's calls outside
    // any agent span (each its own trace) stay together.
    let trace = match get("toolguard.chain").and_then(Value::as_str) {
        Some(chain) if !chain.is_empty() => format!("chain {chain}"),
        _ => trace,
    };
    let span_id = span
        .get("spanId")
        .and_then(Value::as_str)
        .and_then(|id| hex_id(id, 8));
    let call_id = get("gen_ai.tool.call.id")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or(span_id)
        .unwrap_or_else(|| format!("line {number}"));
    let arguments_json = match arguments {
        Some(Value::String(text)) => text.clone(),
        Some(value) => value.to_string(),
        None => String::new(),
    };
    let text = match result {
        // A JSON result may be a shell result object (`{stdout, stderr, exitCode}`).
        Some(Value::String(text)) => serde_json::from_str::<Value>(text)
            .ok()
            .filter(Value::is_object)
            .and_then(|v| shell_text(&v))
            .unwrap_or_else(|| text.clone()),
        Some(value) => shell_text(value).unwrap_or_else(|| value.to_string()),
        None => String::new(),
    };
    let status = span.get("status").and_then(|s| s.get("code"));
    let is_error = matches!(status, Some(Value::Number(n)) if n.as_u64() == Some(2))
        || status.and_then(Value::as_str) == Some("STATUS_CODE_ERROR");
    report.calls += 1;
    run.note_agent(report, &trace);
    run.otlp.kept_bytes += text.len() + arguments_json.len() + 128;
    run.otlp.spans.push(ToolSpan {
        site: CallSite {
            ordinal: report.calls,
            call_id: Some(call_id),
            name: name.to_owned(),
            agent_id: Some(trace.clone()),
            line: number,
            seq: None,
            turn: None,
            arguments_json,
            // The span's start; its end and token usage are not read yet.
            cost: CallCost {
                time: u64::try_from(start / 1_000_000).ok().filter(|_| start > 0),
                ..Default::default()
            },
            concurrent: false,
        },
        trace,
        start,
        text,
        is_error,
    });
}

/// OTLP attributes (`[{key, value:{stringValue|intValue|…}}]`) as plain JSON values.
fn attributes(list: Option<&Value>) -> HashMap<String, Value> {
    let mut out = HashMap::new();
    for attribute in list
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice)
    {
        if let (Some(key), Some(value)) = (
            attribute.get("key").and_then(Value::as_str),
            attribute.get("value"),
        ) {
            out.insert(key.to_owned(), any_value(value));
        }
    }
    out
}

/// An OTLP `AnyValue` as JSON (`intValue` may be a string: int64 in the JSON mapping).
fn any_value(value: &Value) -> Value {
    let Some(object) = value.as_object() else {
        return Value::Null;
    };
    let Some((kind, inner)) = object.iter().next() else {
        return Value::Null;
    };
    match kind.as_str() {
        "intValue" => match inner {
            Value::String(s) => s
                .parse::<i64>()
                .map(Value::from)
                .unwrap_or_else(|_| inner.clone()),
            _ => inner.clone(),
        },
        "arrayValue" => Value::Array(
            inner
                .get("values")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .map(any_value)
                .collect(),
        ),
        "kvlistValue" => Value::Object(attributes(inner.get("values")).into_iter().collect()),
        _ => inner.clone(),
    }
}

/// A trace or span id as lowercase hex: given as hex (the OTLP/JSON rule) or
/// base64 (the plain protobuf JSON mapping some exporters use).
fn hex_id(id: &str, bytes: usize) -> Option<String> {
    if id.len() == bytes * 2 && id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Some(id.to_ascii_lowercase());
    }
    let raw = base64::engine::general_purpose::STANDARD.decode(id).ok()?;
    (raw.len() == bytes).then(|| raw.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::hex_id;

    #[test]
    fn ids_hex_or_base64() {
        assert_eq!(
            hex_id("0AF7651916CD43DD8448EB211C80319C", 16).unwrap(),
            "0af7651916cd43dd8448eb211c80319c"
        );
        assert_eq!(
            hex_id("CvdlGRbNQ92ESOshHIAxnA==", 16).unwrap(),
            "0af7651916cd43dd8448eb211c80319c"
        );
        assert_eq!(hex_id("b7ad6b7169203331", 8).unwrap(), "b7ad6b7169203331");
        assert_eq!(hex_id("nope", 16), None);
    }
}
