//! A Parquet copy of a collection of runs, for the dataset-scale benchmark
//! (benchmark/scale.mjs): one row a run, `instance_id`, `model_name` and
//! `messages` (the run's JSONL text), snappy-compressed, 256 rows a row
//! group — the shape of a Hugging Face dataset of trajectories.
//!
//!   cargo run --release -p toolguard-audit --example parquet_copy -- OUT.parquet < manifest
//!
//! The manifest (stdin) has one run a line: `path<TAB>instance_id<TAB>model`.

use std::io::BufRead;
use std::sync::Arc;

use parquet::basic::Compression;
use parquet::data_type::{ByteArray, ByteArrayType};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;

const ROWS_PER_GROUP: usize = 256;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args()
        .nth(1)
        .ok_or("usage: parquet_copy OUT.parquet < manifest")?;
    let schema = Arc::new(parse_message_type(
        "message runs { REQUIRED BYTE_ARRAY instance_id (UTF8); REQUIRED BYTE_ARRAY model_name (UTF8); REQUIRED BYTE_ARRAY messages (UTF8); }",
    )?);
    let props = Arc::new(
        WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .build(),
    );
    let mut writer = SerializedFileWriter::new(std::fs::File::create(&out)?, schema, props)?;
    let manifest: Vec<String> = std::io::stdin().lock().lines().collect::<Result<_, _>>()?;
    for group in manifest.chunks(ROWS_PER_GROUP) {
        let mut columns: [Vec<ByteArray>; 3] = Default::default();
        for line in group {
            let mut parts = line.splitn(3, '\t');
            let (Some(path), Some(id), Some(model)) = (parts.next(), parts.next(), parts.next())
            else {
                return Err(
                    format!("manifest line without three tab-separated fields: {line:?}").into(),
                );
            };
            columns[0].push(ByteArray::from(id));
            columns[1].push(ByteArray::from(model));
            columns[2].push(ByteArray::from(std::fs::read(path)?));
        }
        let mut row_group = writer.next_row_group()?;
        let mut index = 0;
        while let Some(mut column) = row_group.next_column()? {
            column
                .typed::<ByteArrayType>()
                .write_batch(&columns[index], None, None)?;
            column.close()?;
            index += 1;
        }
        row_group.close()?;
    }
    writer.close()?;
    Ok(())
}
