"""Writes __test__/audit/fixtures/parquet/*.parquet: small datasets of
trajectories, one a row, as pyarrow (the writer behind Hugging Face datasets)
stores them. Run once by hand (`pip install pyarrow`); the tests read the
committed files and never need Python.

- trace-text.parquet (snappy): `messages` is a string of generic-trace JSONL;
  `instance_id` and `model_name` name the run and the model.
- trace-nested.parquet (zstd): `events` is a list of structs (one trace event
  each), the nested shape a datasets export has.
- custom-column.parquet (snappy): the trajectory is in `steps` (needs --column).
- lz4.parquet: a codec toolguard's build leaves out (the error names it).
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
    pq.write_table(nested, os.path.join(HERE, "trace-nested.parquet"), compression="zstd", row_group_size=2)
    custom = pa.table({"steps": ["".join(json.dumps(e) + "\n" for e in run("loop"))]})
    pq.write_table(custom, os.path.join(HERE, "custom-column.parquet"), compression="snappy")
    pq.write_table(text, os.path.join(HERE, "lz4.parquet"), compression="lz4")


if __name__ == "__main__":
    main()
