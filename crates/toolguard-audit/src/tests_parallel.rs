//! The batch driver: input order whatever the threads, the shard rule, and
//! the window that bounds the reports waiting to be put in order.

use std::ops::ControlFlow;
use std::path::PathBuf;

use super::parallel::{audit_batch, shard_of, BatchOptions, Event, Input, Shard};
use super::*;
use toolguard_core::config::Config;

/// `n` trace files in a fresh temp folder; file `i` holds `i % 7 + 1` calls,
/// and every fifth repeats one call five times (a loop).
fn collection(tag: &str, n: usize) -> (PathBuf, Vec<Input>) {
    let dir = std::env::temp_dir().join(format!("toolguard-parallel-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let inputs = (0..n)
        .map(|i| {
            let name = format!("run-{i:03}.jsonl");
            let mut text = String::new();
            for c in 0..(i % 7 + 1) {
                let command = if i % 5 == 0 {
                    "npm test".to_owned()
                } else {
                    format!("ls {c}")
                };
                text.push_str(
                    &serde_json::json!({"callId": format!("c{c}"), "tool": "bash",
                    "arguments": {"command": command}, "output": "# fail 1\n[exit code: 1]"})
                    .to_string(),
                );
                text.push('\n');
            }
            let path = dir.join(&name);
            std::fs::write(&path, text).unwrap();
            Input {
                path,
                name: name.clone(),
                key: name,
            }
        })
        .collect();
    (dir, inputs)
}

fn batch(inputs: &[Input], threads: usize, shard: Option<Shard>) -> Vec<String> {
    let auditor = Auditor::new(&Config::default()).unwrap();
    let options = BatchOptions {
        threads,
        format: Format::Auto,
        shard,
        column: None,
    };
    let mut out = Vec::new();
    audit_batch(&auditor, inputs, &options, &mut |event| {
        if let Event::Report { json, figures } = event {
            out.push(json);
            // Every report comes with its figures, made on the worker.
            let figures: serde_json::Value = serde_json::from_str(&figures).unwrap();
            assert!(figures["waste"].is_object() && figures["rules"].is_object());
        }
        ControlFlow::Continue(())
    })
    .unwrap();
    out
}

#[test]
fn reports_come_back_in_input_order_whatever_the_threads() {
    let (dir, inputs) = collection("order", 50);
    let one = batch(&inputs, 1, None);
    assert_eq!(one.len(), 50);
    for (i, json) in one.iter().enumerate() {
        assert!(
            json.starts_with(&format!("{{\"file\":\"run-{i:03}.jsonl\"")),
            "{i}: {json:.60}"
        );
    }
    assert_eq!(batch(&inputs, 4, None), one);
    // The same as auditing each file alone.
    let mut alone = Auditor::new(&Config::default()).unwrap();
    let mut first = alone.audit_path(&inputs[5].path, Format::Auto, &mut |_, _| {});
    first[0].finish();
    let mut first: serde_json::Value = serde_json::from_str(&first[0].to_json()).unwrap();
    first["file"] = "run-005.jsonl".into();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&one[5]).unwrap(),
        first
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn shards_partition_the_inputs() {
    let (dir, inputs) = collection("shard", 40);
    let whole = batch(&inputs, 2, None);
    let mut merged: Vec<String> = (1..=3)
        .flat_map(|i| batch(&inputs, 2, Some(Shard { index: i, count: 3 })))
        .collect();
    merged.sort();
    let mut sorted = whole.clone();
    sorted.sort();
    assert_eq!(merged, sorted);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
// The formula spelled out (hash % count + 1), though `% u64::MAX` changes nothing here.
#[allow(clippy::identity_op)]
fn the_shard_hash_is_fnv1a_and_pinned() {
    // Pinned: a change here moves runs between the machines of a job array
    // (docs/audit-at-scale.md gives the function).
    assert_eq!(shard_of("", 1 << 32), 0xcbf2_9ce4_8422_2325 % (1 << 32) + 1);
    assert_eq!(
        shard_of("a", u64::MAX),
        0xaf63_dc4c_8601_ec8c % u64::MAX + 1
    );
    // (Checked against an independent FNV-1a in Python.)
    assert_eq!(shard_of("part-0000/run-000001.jsonl", 4), 4);
    assert_eq!(Shard::parse("2/4"), Ok(Shard { index: 2, count: 4 }));
    for bad in ["0/4", "5/4", "4", "x/4", "1/0", "-1/4"] {
        assert!(Shard::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn a_stop_from_the_caller_ends_the_batch() {
    let (dir, inputs) = collection("stop", 200);
    let auditor = Auditor::new(&Config::default()).unwrap();
    let options = BatchOptions {
        threads: 2,
        format: Format::Auto,
        shard: None,
        column: None,
    };
    let mut seen = 0;
    audit_batch(&auditor, &inputs, &options, &mut |event| {
        if let Event::Report { .. } = event {
            seen += 1;
            if seen == 3 {
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    })
    .unwrap();
    assert_eq!(seen, 3);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn batch_options_from_json() {
    let o =
        BatchOptions::from_json(r#"{"format":"trace","threads":3,"shard":"1/2","column":"steps"}"#)
            .unwrap();
    assert_eq!(
        (o.threads, o.format, o.shard, o.column.as_deref()),
        (
            3,
            Format::Trace,
            Some(Shard { index: 1, count: 2 }),
            Some("steps")
        )
    );
    assert!(BatchOptions::from_json(r#"{"threads":0}"#).unwrap().threads >= 1);
    // Errors are data: a code and the option's key.
    let code_and_path = |text: &str| {
        let e = BatchOptions::from_json(text).unwrap_err();
        (e.code, e.path)
    };
    let key = |k: &str| vec![toolguard_core::PathStep::Key(k.to_owned())];
    assert_eq!(
        code_and_path(r#"{"shard":"3/2"}"#),
        ("TOOLGUARD_OUT_OF_RANGE", key("shard"))
    );
    assert_eq!(
        code_and_path(r#"{"format":"nope"}"#),
        ("TOOLGUARD_OUT_OF_RANGE", key("format"))
    );
    assert_eq!(
        code_and_path(r#"{"threads":-1}"#),
        ("TOOLGUARD_WRONG_TYPE", key("threads"))
    );
    assert_eq!(
        code_and_path(r#"{"thread":1}"#),
        ("TOOLGUARD_UNKNOWN_KEY", key("thread"))
    );
}
