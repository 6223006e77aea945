//! Parquet datasets with one trajectory per row: the trajectory column (a
//! string of JSONL/JSON text, or a nested list of messages or events) of
//! each row becomes one session report, named `<file>#<row>` (0-based).
//!
//! Read with the Apache `parquet` crate's row API, projected on the few
//! columns used (the trajectory, and an id and a model column when the
//! dataset has them), so the other columns are never decoded.

use std::fs::File;

use ::parquet::basic::Compression;
use ::parquet::file::reader::{FileReader, SerializedFileReader};
use ::parquet::record::reader::RowIter;
use ::parquet::record::Field;
use ::parquet::schema::types::Type;
use serde_json::Value;

use crate::auditor::Auditor;
use crate::detect::{Format, Shape};
use crate::parallel::{Input, Shard};
use crate::report::SessionReport;
use crate::session::{detect_value, read_value};

/// The trajectory column's usual names, tried in this order when `--column`
/// is not given.
pub const COLUMNS: &[&str] = &[
    "messages",
    "history",
    "trajectory",
    "traj",
    "events",
    "conversation",
    "conversations",
];
/// A string column naming the run (the session id when the trajectory has none).
const ID_COLUMNS: &[&str] = &[
    "instance_id",
    "session_id",
    "conversation_id",
    "run_id",
    "id",
];
/// A string column naming the model (the summary's per-model figures).
const MODEL_COLUMNS: &[&str] = &["model", "model_name", "model_name_or_path"];

/// One row's trajectory, ready for a worker.
pub struct Row {
    /// `<file>#<row>`.
    pub name: String,
    /// Bytes of the file this row is reckoned to have taken (for progress).
    pub bytes_through: u64,
    /// 0-based row index (the report's `session`).
    row: u64,
    /// The trajectory column's name.
    column: String,
    content: Content,
    id: Option<String>,
    model: Option<String>,
}

enum Content {
    /// JSONL (or one JSON document) as text.
    Text(String),
    /// A nested column (a list of messages or events), converted to JSON
    /// on the worker thread.
    Nested(Field),
    /// The file or this row could not be read.
    Error(String),
}

impl Row {
    fn error(name: String, message: String) -> Self {
        Self {
            name,
            bytes_through: 0,
            row: 0,
            column: String::new(),
            content: Content::Error(message),
            id: None,
            model: None,
        }
    }

    /// Audit this row's trajectory with `auditor`, handing each session's
    /// report to `emit` (a row holds one session, unless its text is a log
    /// of several).
    pub(crate) fn audit(
        self,
        auditor: &mut Auditor,
        format: Format,
        emit: &mut dyn FnMut(SessionReport),
    ) {
        let (name, id, model, session) = (self.name, self.id, self.model, self.row);
        let mut finish = |mut report: SessionReport| {
            report.session = session;
            if report.session_id.is_none() {
                report.session_id = id.clone();
            }
            if report.model.is_none() {
                report.model = model.clone();
            }
            emit(report);
        };
        // A JSON document, whole: its value and its size in bytes.
        let (value, bytes) = match self.content {
            Content::Error(message) => {
                let mut report = SessionReport::new(name, format);
                report.error(None, message);
                return finish(report);
            }
            Content::Text(text) => {
                // A whole JSON document in a string column is read as the
                // nested value it encodes; anything else as a log's text.
                let trimmed = text.trim_start();
                let document = (trimmed.starts_with('[') || trimmed.starts_with('{'))
                    .then(|| serde_json::from_str::<Value>(&text).ok())
                    .flatten();
                let bytes = text.len() as u64;
                let Some(value) = document else {
                    return auditor.audit_reader_each(
                        name,
                        text.as_bytes(),
                        format,
                        &mut |_| {},
                        &mut |mut r| {
                            r.bytes = bytes;
                            finish(r);
                        },
                    );
                };
                (value, bytes)
            }
            Content::Nested(field) => {
                let value = field.to_json_value();
                let bytes = serde_json::to_string(&value).map_or(0, |t| t.len() as u64);
                (value, bytes)
            }
        };
        finish(audit_value(
            auditor,
            name,
            &self.column,
            value,
            bytes,
            format,
        ));
    }
}

/// The keys a trajectory document keeps its steps under, by format
/// (mini-swe-agent `messages`, OpenHands `history`, SWE-agent `trajectory`),
/// tried when the column's own name does not make the row one.
const DOCUMENT_KEYS: &[&str] = &["messages", "history", "trajectory"];

/// One row's nested trajectory: a session of a trajectory format when the
/// readers know it (the row as the document `{column: value}`, or the value
/// under a format's own key, or the value itself), else a list of log
/// lines (DSH or trace events, one JSON line each).
fn audit_value(
    auditor: &mut Auditor,
    name: String,
    column: &str,
    value: Value,
    bytes: u64,
    format: Format,
) -> SessionReport {
    let mut candidates = vec![serde_json::json!({ column: value.clone() })];
    for key in DOCUMENT_KEYS.iter().filter(|k| **k != column) {
        candidates.push(serde_json::json!({ *key: value.clone() }));
    }
    candidates.push(value.clone());
    let mut first_error = None;
    for candidate in &candidates {
        let read = match format {
            Format::Auto => {
                detect_value(candidate).map(|found| (found, read_value(found, candidate)))
            }
            forced if forced.shape() == Shape::Values => {
                Some((forced, read_value(forced, candidate)))
            }
            _ => None,
        };
        match read {
            Some((found, Ok(session))) => {
                let mut report = auditor.audit_session(name, 0, found, &session);
                report.bytes = bytes;
                report.decoded_bytes = bytes;
                return report;
            }
            Some((_, Err(message))) => {
                first_error.get_or_insert(message);
            }
            None => {}
        }
    }
    // A trajectory format was recognized (or forced) but its reader refused the row.
    if let Some(message) = first_error {
        let mut report = SessionReport::new(name, format);
        report.error(None, message);
        return report;
    }
    // Not a trajectory the readers know: log events, one a line.
    let mut text = Vec::new();
    match &value {
        Value::Array(items) => {
            for item in items {
                // A Value always serializes.
                let _ = serde_json::to_writer(&mut text, item);
                text.push(b'\n');
            }
        }
        other => {
            let _ = serde_json::to_writer(&mut text, other);
            text.push(b'\n');
        }
    }
    let mut reports = auditor.audit_reader(name.clone(), &text[..], format, &mut |_| {});
    let mut report = match reports.len() {
        1 => reports.remove(0),
        // Lines that are sessions of their own are not a row's shape.
        _ => {
            let mut report = SessionReport::new(name, format);
            report.error(
                None,
                "the column's value holds several sessions; one row should be one".to_owned(),
            );
            report
        }
    };
    report.bytes = bytes;
    report
}

/// The rows of one Parquet file in order (those in `shard`, by the key
/// `<input key>#<row>`); a file that cannot be read gives one row carrying
/// the error, so the report names it.
pub fn rows<'a>(
    input: &'a Input,
    column: Option<&'a str>,
    shard: Option<Shard>,
) -> Box<dyn Iterator<Item = Row> + 'a> {
    match open(input, column) {
        Ok((reader, projection, names)) => {
            let total = reader.metadata().file_metadata().num_rows().max(1) as u64;
            let size = std::fs::metadata(&input.path).map(|m| m.len()).unwrap_or(0);
            let iter = match RowIter::from_file_into(Box::new(reader)).project(Some(projection)) {
                Ok(iter) => iter,
                Err(e) => {
                    return Box::new(std::iter::once(Row::error(
                        input.name.clone(),
                        format!("cannot read the Parquet file: {e}"),
                    )))
                }
            };
            let mut failed = false;
            Box::new(
                iter.enumerate()
                    .map_while(move |(n, row)| {
                        if failed {
                            return None;
                        }
                        let name = format!("{}#{n}", input.name);
                        let row = match row {
                            Ok(row) => row,
                            Err(e) => {
                                failed = true;
                                return Some(Some(Row::error(
                                    name,
                                    format!("cannot read row {n} of the Parquet file: {e}"),
                                )));
                            }
                        };
                        if shard.is_some_and(|s| !s.holds(&format!("{}#{n}", input.key))) {
                            return Some(None);
                        }
                        let mut out = from_row(name, row, &names);
                        out.row = n as u64;
                        out.bytes_through = size.saturating_mul(n as u64 + 1) / total;
                        Some(Some(out))
                    })
                    .flatten(),
            )
        }
        Err(message) => Box::new(std::iter::once(Row::error(input.name.clone(), message))),
    }
}

/// Column names picked in a file: the trajectory's, and the optional id and model.
struct Names {
    trajectory: String,
    id: Option<String>,
    model: Option<String>,
}

fn open(
    input: &Input,
    column: Option<&str>,
) -> Result<(SerializedFileReader<File>, Type, Names), String> {
    let file = File::open(&input.path).map_err(|e| format!("cannot open: {e}"))?;
    let reader =
        SerializedFileReader::new(file).map_err(|e| format!("not a readable Parquet file: {e}"))?;
    let schema = reader.metadata().file_metadata().schema();
    let fields = schema.get_fields();
    let find = |name: &str| fields.iter().find(|f| f.name() == name);
    let trajectory = match column {
        Some(name) => find(name).ok_or_else(|| {
            format!(
                "no column {name:?} in this Parquet file (its columns: {})",
                column_list(fields)
            )
        })?,
        None => COLUMNS.iter().find_map(|n| find(n)).ok_or_else(|| {
            format!(
                "no trajectory column in this Parquet file (looked for {}; its columns: {}); --column names it",
                COLUMNS.join(", "),
                column_list(fields)
            )
        })?,
    };
    // Only a plain string column can name a run or a model.
    let string_column = |names: &[&str]| {
        names
            .iter()
            .find_map(|n| find(n).filter(|f| f.is_primitive() && f.name() != trajectory.name()))
    };
    let id = string_column(ID_COLUMNS);
    let model = string_column(MODEL_COLUMNS);
    let mut picked = vec![trajectory.clone()];
    picked.extend(id.cloned());
    picked.extend(model.cloned());
    // A codec this build leaves out fails at the first page; say so up front.
    for group in reader.metadata().row_groups() {
        for chunk in group.columns() {
            let top = chunk.column_path().parts().first().map(String::as_str);
            if !picked.iter().any(|f| Some(f.name()) == top) {
                continue;
            }
            let codec = chunk.compression();
            if !matches!(codec, Compression::UNCOMPRESSED | Compression::SNAPPY) {
                let name = match codec {
                    Compression::ZSTD(_) => "zstd".to_owned(),
                    Compression::GZIP(_) => "gzip".to_owned(),
                    Compression::BROTLI(_) => "brotli".to_owned(),
                    Compression::LZ4 | Compression::LZ4_RAW => "lz4".to_owned(),
                    other => other.to_string().to_lowercase(),
                };
                return Err(format!(
                    "column {:?} is compressed with {name}, which toolguard does not read (it reads uncompressed and snappy Parquet, the pyarrow default); rewrite the file with one of those",
                    chunk.column_path().string()
                ));
            }
        }
    }
    let projection = Type::group_type_builder(schema.name())
        .with_fields(picked)
        .build()
        .map_err(|e| format!("cannot read the Parquet schema: {e}"))?;
    let names = Names {
        trajectory: trajectory.name().to_owned(),
        id: id.map(|f| f.name().to_owned()),
        model: model.map(|f| f.name().to_owned()),
    };
    Ok((reader, projection, names))
}

fn column_list(fields: &[std::sync::Arc<Type>]) -> String {
    fields
        .iter()
        .map(|f| f.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The row's fields, moved (a trajectory can be megabytes: no copy), the
/// nested ones left as parquet fields for the worker thread to convert.
fn from_row(name: String, row: ::parquet::record::Row, names: &Names) -> Row {
    let mut out = Row::error(name, String::new());
    out.column = names.trajectory.clone();
    for (column, field) in row.into_columns() {
        if column == names.trajectory {
            out.content = match field {
                Field::Str(text) => Content::Text(text),
                Field::Null => Content::Error(format!("column {column:?} is null in this row")),
                Field::Bytes(bytes) => match String::from_utf8(bytes.data().to_vec()) {
                    Ok(text) => Content::Text(text),
                    Err(_) => Content::Error(format!(
                        "column {column:?} holds bytes that are not UTF-8 text"
                    )),
                },
                other => Content::Nested(other),
            };
        } else if let Field::Str(text) = field {
            if Some(&column) == names.id.as_ref() {
                out.id = Some(text);
            } else if Some(&column) == names.model.as_ref() {
                out.model = Some(text);
            }
        }
    }
    out
}
