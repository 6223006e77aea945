"""Writes __test__/audit/fixtures/parquet/*.parquet: small datasets of
trajectories, one a row, as pyarrow (the writer behind Hugging Face datasets)
stores them. Run once by hand (`pip install pyarrow`); the tests read the
committed files and never need Python.

- trace-text.parquet (snappy): `messages` is a string of generic-trace JSONL;
  `instance_id` and `model_name` name the run and the model.
- trace-nested.parquet (snappy): `events` is a list of structs (one trace event
  each), the nested shape a datasets export has.
- custom-column.parquet (snappy): the trajectory is in `steps` (needs --column).
- zstd.parquet: a codec toolguard's build leaves out (the error names it).
- mini-swe-agent.parquet (snappy): `messages` is a nested list of chat
  messages in mini-swe-agent's shape (crates/toolguard-audit/src/mini_swe.rs):
  row 0 the tool-calling form, row 1 the text-action form; each run makes the
  same failing call four times.
- mini-swe-agent-json.parquet (uncompressed): the same runs, `messages` as JSON text.
"""

import json
import os

import pyarrow as pa
import pyarrow.parquet as pq

HERE = os.path.join(os.path.dirname(__file__), "..", "__test__", "audit", "fixtures", "parquet")

TESTS_FAIL = "> site@1.0.0 test\n> node --test\n\n# tests 12\n# pass 11\n# fail 1\n[exit code: 1]"


def run(kind):
    """The events of one run: 'loop' (the same failing test run five times),
    'failure' (a build error hidden behind a pipe), or 'clean'."""
    if kind == "loop":
        return [
            {"callId": f"c{i}", "tool": "bash", "arguments": {"command": "npm test"}, "output": TESTS_FAIL}
            for i in range(5)
        ]
    if kind == "failure":
        return [
            {"callId": "f1", "tool": "bash", "arguments": {"command": "npm run build 2>&1 | tee build.log"},
             "output": "> tsc -p .\n\nsrc/index.ts(3,14): error TS2322: Type 'string' is not assignable to type 'number'.\n\nFound 1 error in src/index.ts:3"},
            {"callId": "f2", "tool": "bash", "arguments": {"command": "ls"}, "output": "README.md\nsrc"},
        ]
    return [{"callId": "k1", "tool": "bash", "arguments": {"command": "ls"}, "output": "README.md\nsrc"}]


KINDS = ["loop", "failure", "clean", "loop"]
MODELS = ["model-a", "model-b", "model-a", "model-b"]


def main():
    os.makedirs(HERE, exist_ok=True)
    text = pa.table({
        "instance_id": [f"task-{i}" for i in range(len(KINDS))],
        "model_name": MODELS,
        "messages": ["".join(json.dumps(e) + "\n" for e in run(k)) for k in KINDS],
    })
    pq.write_table(text, os.path.join(HERE, "trace-text.parquet"), compression="snappy")
    event = pa.struct([
        ("callId", pa.string()),
        ("tool", pa.string()),
        ("arguments", pa.struct([("command", pa.string())])),
        ("output", pa.string()),
    ])
    nested = pa.table({
        "instance_id": [f"task-{i}" for i in range(len(KINDS))],
        "events": pa.array([run(k) for k in KINDS], type=pa.list_(event)),
    })
    # Two row groups, so reading crosses one.
    pq.write_table(nested, os.path.join(HERE, "trace-nested.parquet"), compression="snappy", row_group_size=2)
    custom = pa.table({"steps": ["".join(json.dumps(e) + "\n" for e in run("loop"))]})
    pq.write_table(custom, os.path.join(HERE, "custom-column.parquet"), compression="snappy")
    pq.write_table(text, os.path.join(HERE, "zstd.parquet"), compression="zstd")
    runs = [mini_tool_calling(), mini_text_actions()]
    message = pa.struct([
        ("role", pa.string()),
        ("content", pa.string()),
        ("tool_call_id", pa.string()),
        ("tool_calls", pa.list_(pa.struct([
            ("id", pa.string()),
            ("type", pa.string()),
            ("function", pa.struct([("name", pa.string()), ("arguments", pa.string())])),
        ]))),
    ])
    mini = pa.table({
        "instance_id": ["repo__issue-1", "repo__issue-2"],
        "model_name": ["model-a", "model-b"],
        "messages": pa.array(runs, type=pa.list_(message)),
    })
    pq.write_table(mini, os.path.join(HERE, "mini-swe-agent.parquet"), compression="snappy")
    as_json = pa.table({
        "instance_id": ["repo__issue-1", "repo__issue-2"],
        "messages": [json.dumps(r) for r in runs],
    })
    pq.write_table(as_json, os.path.join(HERE, "mini-swe-agent-json.parquet"), compression="none")


PYTEST_FAIL = "<returncode>1</returncode>\n<output>\nFAILED tests/test_x.py::test_a - assert 1 == 2\n1 failed in 0.1s\n</output>"


def mini_tool_calling():
    messages = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "Fix the failing test."},
    ]
    for i in range(4):
        messages.append({"role": "assistant", "content": "Run the tests.", "tool_calls": [
            {"id": f"call_{i}", "type": "function", "function": {"name": "bash", "arguments": json.dumps({"command": "pytest -q"})}}]})
        messages.append({"role": "tool", "tool_call_id": f"call_{i}", "content": PYTEST_FAIL})
    return messages


def mini_text_actions():
    messages = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "Fix the failing test."},
    ]
    for _ in range(4):
        messages.append({"role": "assistant", "content": "THOUGHT: run the tests.\n\n```bash\npytest -q\n```"})
        messages.append({"role": "user", "content": PYTEST_FAIL})
    return messages


if __name__ == "__main__":
    main()
