"""Record mini-swe-agent fixtures with the real package against a scripted local model.

Run through `node scripts/record/record-trajectory-fixtures.mjs`, which installs
mini-swe-agent (the recorded version) in a venv under /tmp and calls this with
the output folder.

A local OpenAI-compatible server (this file) answers chat completions with a
scripted list of bash tool calls (a repeated failing command, a traceback
behind `| tail`); mini-swe-agent's real agent loop, local environment and
trajectory writer (LitellmModel pointed at the server) record the run.

`--openhands OUT` records OpenHands SDK conversations instead (run inside a
Python >= 3.12 root with openhands-sdk and openhands-tools installed; the
.mjs file's header says how): the SDK's real Agent, TerminalTool (tmux) and
LocalConversation persistence, pointed at the same kind of scripted server,
with the `terminal` tool and the SDK's own `finish` tool.
"""
import json, sys, threading, os, tempfile
from http.server import BaseHTTPRequestHandler, HTTPServer

SCRIPT = [
    "python3 -c 'import nosuchmodule'",
    "python3 -c 'import nosuchmodule'",
    "python3 -c 'import nosuchmodule'",
    "python3 -c 'raise ValueError(\"boom\")' 2>&1 | tail -3",
    "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT",
]
turn = {"n": 0}

class Handler(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def do_POST(self):
        length = int(self.headers.get("content-length", 0))
        request = json.loads(self.rfile.read(length) or b"{}")
        n = turn["n"]; turn["n"] += 1
        command = SCRIPT[min(n, len(SCRIPT) - 1)]
        if "tools" not in request:
            # The text-action agent: a fenced block; turn 2 answers with two
            # blocks, a format error the harness reports back as a user message.
            block = "```mswea_bash_command\n{}\n```"
            content = f"THOUGHT: step {n + 1}.\n\n" + (block.format("ls") + "\n" + block.format("pwd") if n == 1 else block.format(command))
            if n > 1:
                command = SCRIPT[min(n - 1, len(SCRIPT) - 1)]
                content = f"THOUGHT: step {n + 1}.\n\n" + block.format(command)
            body = {"id": f"chatcmpl-{n}", "object": "chat.completion", "created": 1700000000 + n, "model": "mock",
                    "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
                    "usage": {"prompt_tokens": 100 + n, "completion_tokens": 10, "total_tokens": 110 + n}}
            data = json.dumps(body).encode()
            self.send_response(200); self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data))); self.end_headers(); self.wfile.write(data)
            return
        body = {
            "id": f"chatcmpl-{n}", "object": "chat.completion", "created": 1700000000 + n, "model": "mock",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": f"Step {n + 1}.",
                "tool_calls": [{"id": f"call_{n}", "type": "function",
                                "function": {"name": "bash", "arguments": json.dumps({"command": command})}}]}}],
            "usage": {"prompt_tokens": 100 + n, "completion_tokens": 10, "total_tokens": 110 + n},
        }
        data = json.dumps(body).encode()
        self.send_response(200); self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data))); self.end_headers(); self.wfile.write(data)

def record(out_dir, server, config_name, model_class, file_name):
    from minisweagent.agents.default import DefaultAgent
    from minisweagent.environments.local import LocalEnvironment
    from minisweagent.config import get_config_path
    import yaml
    turn["n"] = 0
    config = yaml.safe_load(get_config_path(config_name).read_text())
    model = model_class(**{**config.get("model", {}), "model_name": "openai/mock", "cost_tracking": "ignore_errors",
                           "model_kwargs": {"api_base": f"http://127.0.0.1:{server.server_port}/v1", "api_key": "none"}})
    work = tempfile.mkdtemp()
    agent = DefaultAgent(model, LocalEnvironment(cwd=work), **{**config.get("agent", {}), "step_limit": 10,
                                                                 "output_path": os.path.join(out_dir, file_name)})
    agent.run("Find out why the import fails.")


def main(out_dir):
    server = HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    from minisweagent.models.litellm_model import LitellmModel
    from minisweagent.models.litellm_textbased_model import LitellmTextbasedModel
    record(out_dir, server, "mini", LitellmModel, "scripted.traj.json")
    record(out_dir, server, "mini_textbased", LitellmTextbasedModel, "scripted-textbased.traj.json")
    server.shutdown()

# OpenHands SDK runs: name -> [(a user message, the terminal commands it gets
# in order (or a {name, arguments} tool call); then `finish`), …]: each message is sent and the conversation run.
OPENHANDS_RUNS = {
    "normal": [("Write a note and read it back.", ["echo hello > note.txt", "cat note.txt"])],
    # The same failing command over and over: the SDK's own stuck detector may stop it first.
    "stuck": [("Find out why the import fails.", ["python3 -c 'import nosuchmodule'"] * 5)],
    # Exit 0 from the pipeline's last stage, the ImportError hidden behind it.
    "silent": [("Check that the module imports.", ["python3 -c 'import nope' 2>&1 | tail -1"])],
    # A second user message after the first run finished: a new prompt mid-conversation.
    "followup": [("List the files.", ["ls"]), ("Now count them.", ["ls | wc -l"])],
    # Calls the SDK cannot run: a tool the agent does not have, arguments its
    # schema rejects. It answers each with an error event, not an observation.
    "toolerror": [("Show the date.", [{"name": "nosuchtool", "arguments": {}},
                                      {"name": "terminal", "arguments": {"cmd": "date"}}, "date +%Y"])],
}


class OpenHandsHandler(BaseHTTPRequestHandler):
    """Chat completions: the run's next terminal command, then `finish`."""
    script = []
    served = 0

    def log_message(self, *a):
        pass

    def do_POST(self):
        length = int(self.headers.get("content-length", 0))
        json.loads(self.rfile.read(length) or b"{}")
        n = turn["n"]; turn["n"] += 1
        # Response and call ids unique in the conversation (a model's are).
        k = OpenHandsHandler.served; OpenHandsHandler.served += 1
        if n < len(self.script) and isinstance(self.script[n], dict):
            function = {"name": self.script[n]["name"], "arguments": json.dumps(self.script[n]["arguments"])}
        elif n < len(self.script):
            function = {"name": "terminal", "arguments": json.dumps({"command": self.script[n]})}
        else:
            function = {"name": "finish", "arguments": json.dumps({"message": "Done."})}
        body = {"id": f"chatcmpl-{k}", "object": "chat.completion", "created": 1700000000 + k, "model": "mock",
                "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                    "role": "assistant", "content": f"Step {k + 1}.",
                    "tool_calls": [{"id": f"call_{k}", "type": "function", "function": function}]}}],
                "usage": {"prompt_tokens": 100 + k, "completion_tokens": 10, "total_tokens": 110 + k}}
        data = json.dumps(body).encode()
        self.send_response(200); self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data))); self.end_headers(); self.wfile.write(data)


def record_openhands(out_dir):
    """One persisted conversation per run: OUT/<name>/base_state.json and events/."""
    import shutil, uuid
    from pydantic import SecretStr
    from openhands.sdk import LLM, Agent, Conversation, Tool
    from openhands.tools.terminal import TerminalTool
    server = HTTPServer(("127.0.0.1", 0), OpenHandsHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    for number, (name, turns) in enumerate(OPENHANDS_RUNS.items(), start=1):
        OpenHandsHandler.served = 0
        llm = LLM(model="openai/mock", base_url=f"http://127.0.0.1:{server.server_port}/v1",
                  api_key=SecretStr("none"), usage_id="agent")
        agent = Agent(llm=llm, tools=[Tool(name=TerminalTool.name)])
        work = f"/tmp/openhands-{name}"
        shutil.rmtree(work, ignore_errors=True); os.makedirs(work)
        persist = tempfile.mkdtemp()
        conversation = Conversation(agent=agent, workspace=work, persistence_dir=persist,
                                    conversation_id=uuid.UUID(int=number), visualizer=None)
        for task, commands in turns:
            turn["n"] = 0
            OpenHandsHandler.script = commands
            conversation.send_message(task)
            conversation.run()
        print(f"{name}: {conversation.state.execution_status}", file=sys.stderr)
        conversation.close()
        # The SDK writes <persistence_dir>/<conversation id hex>/; keep its
        # state and event files (not the empty lock and marker files).
        (folder,) = os.listdir(persist)
        target = os.path.join(out_dir, name)
        shutil.rmtree(target, ignore_errors=True)
        os.makedirs(os.path.join(target, "events"))
        shutil.copy(os.path.join(persist, folder, "base_state.json"), target)
        for event in sorted(os.listdir(os.path.join(persist, folder, "events"))):
            if event.startswith("event-"):
                shutil.copy(os.path.join(persist, folder, "events", event), os.path.join(target, "events"))
    server.shutdown()


if __name__ == "__main__":
    if sys.argv[1] == "--openhands":
        record_openhands(sys.argv[2])
    else:
        main(sys.argv[1])
