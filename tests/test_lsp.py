"""`maf lsp` driven as an editor drives it: a subprocess spoken to in JSON-RPC over stdio."""
import json
import queue
import random
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

PYGLS = pytest.importorskip(
    "pygls", reason="the language server needs pygls (pip install 'maf[lsp]')")

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "tests" / "scenarios" / "features" / "features.maf"
CMD = [sys.executable, "-m", "maf.compiler.tools.cli", "lsp"]  # as an editor starts it
WAIT = 60  # seconds a message may take on a loaded machine before the test gives up


class Client:
    """The server in a subprocess. A thread reads its output into a queue, so writing many
    frames never deadlocks against a server that answers them; stderr goes to a file."""

    def __init__(self):
        self.err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(CMD,
                                     cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.err)
        self.next_id = 0
        self.notifications = []
        self.inbox: queue.Queue = queue.Queue()
        threading.Thread(target=self._reader, daemon=True).start()

    def _reader(self):
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put(None)
                    return
                line = line.decode("ascii").strip()
                if not line:
                    break
                k, v = line.split(":", 1)
                headers[k.lower()] = v.strip()
            self.inbox.put(json.loads(out.read(int(headers["content-length"]))))

    def stderr(self) -> str:
        self.err.seek(0)
        return self.err.read().decode("utf-8", "replace")

    def write(self, data: bytes):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, msg):
        body = json.dumps(msg).encode("utf-8")
        self.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def read(self):
        msg = self.inbox.get(timeout=WAIT)
        assert msg is not None, "the server closed its output: " + self.stderr()
        return msg

    def response(self, msg_id):
        """The response to request `msg_id` (error or result); notifications are kept."""
        while True:
            msg = self.read()
            if msg.get("id") == msg_id and "method" not in msg:
                return msg
            self.notifications.append(msg)

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        msg = self.response(self.next_id)
        assert "error" not in msg, msg["error"]
        return msg["result"]

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def published(self, uri):
        """The next publishDiagnostics params for `uri`."""
        for i, msg in enumerate(self.notifications):
            if msg.get("method") == "textDocument/publishDiagnostics" and \
                    msg["params"]["uri"] == uri:
                del self.notifications[: i + 1]
                return msg["params"]
        while True:
            msg = self.read()
            if msg.get("method") == "textDocument/publishDiagnostics" and \
                    msg["params"]["uri"] == uri:
                return msg["params"]
            self.notifications.append(msg)

    def diagnostics(self, uri):
        """The next diagnostics published for `uri`."""
        return self.published(uri)["diagnostics"]

    def initialize(self):
        init = self.request("initialize", {"processId": None, "rootUri": ROOT.as_uri(),
                                           "capabilities": {}})
        self.notify("initialized", {})
        return init

    def exit(self) -> int:
        """shutdown, exit: the exit status."""
        self.request("shutdown", None)
        self.notify("exit", None)
        return self.proc.wait(timeout=WAIT)

    def close(self):
        try:
            self.exit()
        finally:
            self.kill()

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for s in (self.proc.stdin, self.proc.stdout):
            s.close()
        self.err.close()


@pytest.fixture(scope="module")
def client():
    c = Client()
    try:
        caps = c.initialize()["capabilities"]
        for cap in ("hoverProvider", "definitionProvider", "referencesProvider",
                    "completionProvider", "documentSymbolProvider",
                    "documentFormattingProvider"):
            assert caps.get(cap), cap
        yield c
        # shutdown then exit: status 0, and nothing on stderr after all those requests
        assert c.exit() == 0
        assert c.stderr() == ""
    finally:
        c.kill()


TEXT = SPEC.read_text(encoding="utf-8")
URI = SPEC.as_uri()


def pos(text, needle, nth=0, offset=1):
    """The LSP position `offset` characters into the nth occurrence of `needle`."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    line = text.count("\n", 0, at)
    col = at - (text.rfind("\n", 0, at) + 1)
    return {"line": line, "character": col + offset}


@pytest.fixture(scope="module")
def opened(client):
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": URI, "languageId": "maf", "version": 1, "text": TEXT}})
    assert client.diagnostics(URI) == []  # the spec is clean (compiler and checks)
    return client


def test_diagnostics_as_you_type(opened):
    broken = TEXT.replace("kill x by shot\n", "kill x by shoot\n", 1)
    opened.notify("textDocument/didChange", {
        "textDocument": {"uri": URI, "version": 2},
        "contentChanges": [{"text": broken}]})
    diags = opened.diagnostics(URI)
    assert diags, "an unknown cause is an error"
    d = diags[0]
    assert d["source"] == "maf" and d["code"].startswith("E") and d["severity"] == 1
    # the code links to its docs section (the registry's anchor, maf.dsl.codes)
    assert d["codeDescription"]["href"].endswith("docs/language.md#diagnostics")
    assert "shoot" in d["message"] and "hint:" in d["message"]
    line = broken.splitlines()[d["range"]["start"]["line"]]
    assert line[d["range"]["start"]["character"]:d["range"]["end"]["character"]] == "shoot"
    # the same code, message and place as the CLI
    from maf.compiler.driver import compile_source  # noqa: PLC0415
    from maf.dsl.diagnostics import CompileError  # noqa: PLC0415
    with pytest.raises(CompileError) as e:
        compile_source(broken, "x.maf")
    cli = e.value.diagnostics[0]
    assert (cli.code, cli.span.line - 1, cli.span.col - 1) == (
        d["code"], d["range"]["start"]["line"], d["range"]["start"]["character"])
    # while the text is broken, hover still describes the last version that compiled
    h = opened.request("textDocument/hover", {"textDocument": {"uri": URI},
                                              "position": pos(broken, "role boss", offset=6)})
    assert "team: `bad`" in h["contents"]["value"]
    opened.notify("textDocument/didChange", {
        "textDocument": {"uri": URI, "version": 3}, "contentChanges": [{"text": TEXT}]})
    assert opened.diagnostics(URI) == []


def test_hover_role_and_ability(opened):
    h = opened.request("textDocument/hover", {"textDocument": {"uri": URI},
                                              "position": pos(TEXT, "role boss", offset=6)})
    value = h["contents"]["value"]
    assert "`boss`" in value and "team: `bad`" in value and "`shoot` at night" in value
    h = opened.request("textDocument/hover", {"textDocument": {"uri": URI},
                                              "position": pos(TEXT, "ability steal", offset=9)})
    value = h["contents"]["value"]
    assert "thief.steal" in value and "night order: " in value and "tier 5" in value


def test_definition_and_references(opened):
    # `bad` in `team(x) != bad` goes to `team bad`
    loc = opened.request("textDocument/definition", {
        "textDocument": {"uri": URI}, "position": pos(TEXT, "team(x) != bad", offset=12)})
    assert loc["uri"] == URI
    assert loc["range"]["start"] == pos(TEXT, "team bad", offset=5)
    refs = opened.request("textDocument/references", {
        "textDocument": {"uri": URI}, "position": pos(TEXT, "cause shot", offset=7),
        "context": {"includeDeclaration": True}})
    lines = TEXT.splitlines()
    words = {lines[r["range"]["start"]["line"]][r["range"]["start"]["character"]:
                                                  r["range"]["end"]["character"]] for r in refs}
    assert words == {"shot"} and len(refs) >= 3
    assert all(r["uri"] == URI for r in refs)


def labels_at(client, position):
    items = client.request("textDocument/completion", {
        "textDocument": {"uri": URI}, "position": position})
    return {i["label"] for i in (items["items"] if isinstance(items, dict) else items)}


def test_completion_and_symbols(opened):
    # at the top level: what starts an item, not what goes in an ability
    labels = labels_at(opened, {"line": 0, "character": 0})
    assert {"role", "team", "mark", "cause", "game"} <= labels
    assert not labels & {"kill", "target", "alive", "tier"}
    # after `ki` inside an ability body: the statements starting with `ki`
    labels = labels_at(opened, pos(TEXT, "    kill x by shot", offset=6))
    assert "kill" in labels and all(label.startswith("ki") for label in labels)
    # after `x: al` in a target filter: the builtins and ids starting with `al`
    labels = labels_at(opened, pos(TEXT, "target x: alive(x) and team", offset=12))
    assert "alive" in labels and all(label.startswith("al") for label in labels)
    # after `boss.`: the role's abilities
    assert labels_at(opened, pos(TEXT, "boss.shoot", offset=5)) == {"shoot"}
    syms = opened.request("textDocument/documentSymbol", {"textDocument": {"uri": URI}})
    names = {s["name"]: s for s in syms}
    assert {"boss", "thief", "bad", "good", "drunk"} <= set(names)
    assert [c["name"] for c in names["boss"]["children"]] == ["shoot"]


def test_formatting(opened):
    edits = opened.request("textDocument/formatting", {
        "textDocument": {"uri": URI}, "options": {"tabSize": 2, "insertSpaces": True}})
    from maf.dsl.format import format_source  # noqa: PLC0415
    expected = format_source(TEXT)
    assert (edits == [] and expected == TEXT) or edits[0]["newText"] == expected


def test_textmate_grammar_is_valid_and_colours_keywords():
    import re  # noqa: PLC0415
    data = json.loads((ROOT / "docs" / "editor" / "maf.tmLanguage.json").read_text("utf-8"))
    assert data["scopeName"] == "source.maf" and data["fileTypes"] == ["maf"]
    from maf.compiler.tools.lsp import textmate_grammar  # noqa: PLC0415
    assert data == textmate_grammar(), "stale: regenerate it (see lsp.textmate_grammar)"
    patterns = {p.get("name") or next(iter(p["captures"].values()))["name"]: p
                for p in data["patterns"]}
    for p in data["patterns"]:
        re.compile(p.get("match") or p["begin"])
    kw = re.compile(patterns["keyword.control.maf"]["match"])
    assert all(kw.search(w) for w in ("kill", "protect", "target", "immune", "uses"))
    decl = re.compile(patterns["storage.type.maf"]["match"])
    assert decl.match("role boss").group(2) == "boss"


def test_index_resolves_every_kind_of_name():
    """The index alone (no server): declarations and uses of each kind, dotted ability refs."""
    from maf.compiler.tools.lsp import SpecIndex  # noqa: PLC0415
    text = (ROOT / "specs" / "classic.maf").read_text(encoding="utf-8")
    idx = SpecIndex.build(text, "classic.maf")
    lines = text.splitlines()

    def word(span):
        return lines[span.line - 1][span.col - 1:span.end_col - 1]
    for occ in idx.occurrences:  # every occurrence covers exactly its name
        assert word(occ.span) == occ.key.split(".")[-1], occ
    kinds = {o.kind for o in idx.occurrences if not o.is_def}
    assert {"role", "ability", "team", "mark", "cause"} <= kinds
    for (kind, key), span in idx.defs.items():
        uses = [o for o in idx.occurrences if (o.kind, o.key) == (kind, key)]
        assert any(o.is_def and o.span == span for o in uses)
    # a dotted reference (`before ROLE.ABILITY`, `used(ROLE.ABILITY)`) goes to the ability
    dotted = [o for o in idx.occurrences if o.kind == "ability" and not o.is_def]
    assert dotted and all(idx.definition(o) is not None for o in dotted)


def test_hover_texts_from_the_index():
    from maf.compiler.tools.lsp import SpecIndex  # noqa: PLC0415
    text = (ROOT / "specs" / "classic.maf").read_text(encoding="utf-8")
    idx = SpecIndex.build(text, "classic.maf")

    def hover(kind, key):
        occ = next(o for o in idx.occurrences if (o.kind, o.key) == (kind, key))
        return idx.hover(occ)
    shoot = hover("ability", "godfather.shoot")
    assert "night order: " in shoot and "RULING C3:" in shoot and "kills x (by shot)" in shoot
    assert "passes down to" in shoot
    assert "`godfather`" in hover("team", "mafia")
    assert hover("mark", "disarmed").startswith("**mark** `disarmed` until dawn")
    shot = hover("cause", "shot")
    assert "`godfather.shoot`" in shot and "`bulletproof`" in shot
    broken = SpecIndex.build(text.replace("kill x by shot\n", "kill x by shoot\n", 1), "c.maf")
    occ = next(o for o in broken.occurrences if o.kind == "role")
    assert "fix the errors" in broken.hover(occ) and broken.diagnostics


def test_completion_offers_what_can_follow_in_context():
    """The index alone: after `ki` inside an ability body of classic, the keywords the grammar
    accepts there (`kill`), not every keyword of the language."""
    from maf.compiler.tools.lsp import SpecIndex, keywords  # noqa: PLC0415
    text = (ROOT / "specs" / "classic.maf").read_text(encoding="utf-8")
    idx = SpecIndex.build(text, "classic.maf")
    before = text[: text.index("kill x by shot")] + "ki"
    got = dict(idx.completions(before))
    assert "kill" in got and got["kill"] == "keyword"
    assert all(label.startswith("ki") for label in got)
    assert len(keywords()) > 100 and len([k for k in got.values() if k == "keyword"]) < 5
    # a top-level position offers item keywords only
    top = {label for label, kind in idx.completions(text[: text.index("role ")])
           if kind == "keyword"}
    assert "role" in top and "kill" not in top


# ---------------------------------------------------------------- the channel (issue 23)
def started():
    c = Client()
    c.initialize()
    return c


def hover_at(msg_id, uri="file:///none.maf"):
    return {"jsonrpc": "2.0", "id": msg_id, "method": "textDocument/hover",
            "params": {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}}


def frame(msg) -> bytes:
    body = json.dumps(msg).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


BODY = json.dumps(hover_at(0)).encode()
BAD_FRAMES = {
    "huge length": b"Content-Length: 99999999999999\r\n\r\n" + BODY,
    "length too small": b"Content-Length: %d\r\n\r\n" % (len(BODY) // 2) + BODY,
    "length too big": b"Content-Length: %d\r\n\r\n" % (len(BODY) + 100) + BODY,
    "negative length": b"Content-Length: -%d\r\n\r\n" % len(BODY) + BODY,
    "non-numeric length": b"Content-Length: twelve\r\n\r\n" + BODY,
    "no header": BODY,
    "no blank line": b"Content-Length: %d\r\n" % len(BODY) + BODY,
    "not JSON": b"Content-Length: 5\r\n\r\n{\"a\":",
    "zero length": b"Content-Length: 0\r\n\r\n",
    "deep JSON": b"Content-Length: 200000\r\n\r\n" + b"[" * 100000 + b"]" * 100000,
}


def test_after_a_malformed_frame_the_next_request_is_answered():
    """Each kind of malformed frame in turn, each followed by a well-formed request: every one
    answered, no MemoryError (a 99999999999999-byte frame killed the server), no traceback."""
    c = started()
    try:
        for k, kind in enumerate(sorted(BAD_FRAMES), 100):
            c.write(BAD_FRAMES[kind])
            c.write(frame(hover_at(k)))
            assert c.response(k) == {"jsonrpc": "2.0", "id": k, "result": None}, kind
        assert c.exit() == 0
        err = c.stderr()
        assert "Traceback" not in err and "MemoryError" not in err
        assert err.count("skipped a malformed frame") >= len(BAD_FRAMES)
    finally:
        c.kill()


@pytest.mark.slow  # a server of its own: outside the fast tier
def test_requests_that_cannot_be_handled_get_an_error_response():
    c = started()
    try:
        for msg_id, msg, code in [
            (1, {"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover", "params": {}}, -32602),
            (2, {"jsonrpc": "2.0", "id": 2, "method": "no/such/method"}, -32601),
            (3, {"jsonrpc": "1.0", "id": 3, "method": "shutdown"}, -32600),
            (None, {"jsonrpc": "2.0", "id": {"x": 1}, "method": "shutdown"}, -32600),
        ]:
            c.send(msg)
            assert c.response(msg_id)["error"]["code"] == code, msg
        assert c.exit() == 0
        assert "Traceback" not in c.stderr()
    finally:
        c.kill()


def test_exit_without_shutdown_is_status_1_without_a_traceback():
    # (shutdown then exit, status 0 and nothing on stderr: the `client` fixture's end)
    c = started()
    try:
        c.notify("exit", None)
        assert c.proc.wait(timeout=WAIT) == 1
        assert "Traceback" not in c.stderr()
    finally:
        c.kill()


@pytest.mark.slow  # a server of its own: outside the fast tier
def test_the_end_of_the_input_ends_the_server_with_one_line():
    c = started()
    try:
        c.proc.stdin.close()
        assert c.proc.wait(timeout=WAIT) == 1
        assert c.stderr().strip().count("\n") == 0 and "Traceback" not in c.stderr()
    finally:
        c.kill()


def test_the_size_limit_comes_before_any_parse(monkeypatch):
    """A document past dsl/limits.py's size is E005 and nothing more: the parser is never
    called (it took 9.5 s and 141 MB per keystroke on a 1.43 MB document)."""
    from maf.compiler.tools import lsp  # noqa: PLC0415
    from maf.dsl.limits import MAX_SPEC_BYTES  # noqa: PLC0415
    calls = []
    monkeypatch.setattr(lsp, "parse", lambda *a: calls.append(a))
    big = TEXT + "// " + "x" * MAX_SPEC_BYTES + "\n"
    idx = lsp.SpecIndex.build(big, "big.maf")
    assert [d.code for d in idx.diagnostics] == ["E005"] and calls == []
    assert idx.completions(lsp.context(big)) and calls == []


@pytest.mark.slow  # a server of its own: outside the fast tier
def test_an_oversized_document_gets_its_error_and_the_server_keeps_answering():
    from maf.dsl.limits import MAX_SPEC_BYTES  # noqa: PLC0415
    c = started()
    try:
        uri = "file:///big.maf"
        big = TEXT + "// " + "x" * MAX_SPEC_BYTES + "\n"
        c.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "maf", "version": 1, "text": big}})
        assert [d["code"] for d in c.diagnostics(uri)] == ["E005"]
        c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                            "contentChanges": [{"text": big + "x"}]})
        assert [d["code"] for d in c.diagnostics(uri)] == ["E005"]
        c.send(hover_at(7, uri))
        assert c.response(7)["result"] is None
        c.send({"jsonrpc": "2.0", "id": 8, "method": "textDocument/formatting", "params": {
            "textDocument": {"uri": uri}, "options": {"tabSize": 2, "insertSpaces": True}}})
        assert c.response(8)["result"] is None
        assert c.exit() == 0
    finally:
        c.kill()


def test_only_the_newest_version_is_published():
    """Ten changes in a burst, each a different error: one publication, for the last one
    (the server debounces and drops the work on older versions)."""
    c = started()
    try:
        c.notify("textDocument/didOpen", {"textDocument": {
            "uri": URI, "languageId": "maf", "version": 1, "text": TEXT}})
        assert c.published(URI)["version"] == 1
        burst = b"".join(  # one write: no gap between two changes however loaded the machine
            frame({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
                "textDocument": {"uri": URI, "version": v},
                "contentChanges": [{"text": TEXT.replace("kill x by shot\n",
                                                         f"kill x by shoot{v}\n", 1)}]}})
            for v in range(2, 12))
        c.write(burst)
        last = c.published(URI)
        assert last["version"] == 11
        assert "shoot11" in last["diagnostics"][0]["message"]
        c.request("shutdown", None)  # everything published before it is in
        versions = [m["params"]["version"] for m in c.notifications
                    if m.get("method") == "textDocument/publishDiagnostics"]
        assert versions == [], versions
        c.notify("exit", None)
        assert c.proc.wait(timeout=WAIT) == 0
    finally:
        c.kill()


def test_transport_fuzz():
    """1,000 random frames, a quarter malformed: 0 crashes, every well-formed request
    answered (the 10,000-frame run is test_transport_fuzz_10000, marked slow)."""
    from tests.fuzz import lsp as fuzz  # noqa: PLC0415
    counts = fuzz.session(random.Random(23), 1000)
    assert counts.crash == "" and counts.unanswered == [], counts
    assert counts.malformed > 100 and counts.after_malformed == counts.malformed
    assert counts.answered == counts.requests + 1  # and initialize


@pytest.mark.slow
def test_transport_fuzz_10000():
    from tests.fuzz import lsp as fuzz  # noqa: PLC0415
    counts = fuzz.session(random.Random(2423), 10_000)
    assert counts.frames == 10_000 and counts.malformed > 2000
    assert counts.crash == "" and counts.unanswered == [], counts
    assert counts.answered == counts.requests + 1


def test_vscode_extension_is_complete():
    """docs/editor/vscode: a manifest VS Code accepts (language, grammar, entry point), the
    grammar the same as docs/editor/maf.tmLanguage.json, and an entry point that parses."""
    import shutil  # noqa: PLC0415
    ext = ROOT / "docs" / "editor" / "vscode"
    manifest = json.loads((ext / "package.json").read_text("utf-8"))
    for key in ("name", "publisher", "version", "engines", "main", "contributes"):
        assert key in manifest, key
    (lang,) = manifest["contributes"]["languages"]
    assert lang["id"] == "maf" and lang["extensions"] == [".maf"]
    json.loads((ext / lang["configuration"]).read_text("utf-8"))
    (grammar,) = manifest["contributes"]["grammars"]
    assert grammar["scopeName"] == "source.maf"
    assert json.loads((ext / grammar["path"]).read_text("utf-8")) == json.loads(
        (ROOT / "docs" / "editor" / "maf.tmLanguage.json").read_text("utf-8"))
    assert "vscode-languageclient" in manifest["dependencies"]
    main = ext / manifest["main"]
    assert "maf.server.command" in manifest["contributes"]["configuration"]["properties"]
    assert '"server.command"' in main.read_text("utf-8")
    if shutil.which("node") is None:
        pytest.skip("node is not installed: the entry point is not run")
    # activate() with stand-ins for VS Code and the client library: it starts `maf lsp` on
    # .maf documents
    script = """
const Module = require("module");
const load = Module._load;
let made;
Module._load = function (name, ...rest) {
  if (name === "vscode") return {
    workspace: { getConfiguration: () => ({ get: (k, d) => d }) },
    window: { showErrorMessage: (m) => console.error(m) } };
  if (name === "vscode-languageclient/node") return { LanguageClient: class {
    constructor(id, label, server, client) { made = { id, server, client }; }
    start() { return Promise.resolve(); } stop() {} dispose() {} } };
  return load.call(this, name, ...rest);
};
const ext = require(process.argv[1]);
const subs = [];
Promise.resolve(ext.activate({ subscriptions: subs })).then(() => {
  console.log(JSON.stringify({ made, subs: subs.length, deactivate: typeof ext.deactivate }));
});
"""
    out = subprocess.run(["node", "-e", script, str(main)], capture_output=True, text=True,
                         check=True).stdout
    got = json.loads(out)
    assert got["made"]["server"] == {"command": "maf", "args": ["lsp"]}
    assert {"scheme": "file", "language": "maf"} in got["made"]["client"]["documentSelector"]
    assert got["subs"] == 1 and got["deactivate"] == "function"


@pytest.mark.parametrize("chunk", [1, 3, 7, 4096, 1 << 20])
def test_frame_reader_finds_every_well_formed_frame_however_the_bytes_arrive(chunk):
    """The reader alone, fed a stream in pieces of `chunk` bytes (so headers and bodies are
    cut at every place): each malformed frame is skipped, each well-formed one read."""
    from maf.compiler.tools.lsp import FrameReader  # noqa: PLC0415
    good = [hover_at(k) for k in range(len(BAD_FRAMES) + 1)]
    stream = frame(good[0]) + b"".join(
        BAD_FRAMES[kind] + b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n"
        + frame(good[k + 1]) for k, kind in enumerate(sorted(BAD_FRAMES)))
    pos = [0]

    def read(n):
        piece = stream[pos[0]: pos[0] + min(n, chunk)]
        pos[0] += len(piece)
        return piece
    skipped = []
    reader = FrameReader(read, on_skip=skipped.append)
    got = []
    with pytest.raises(EOFError):
        while True:
            got.append(reader.next())
    assert got == good
    assert len(skipped) >= len(BAD_FRAMES)
    # well-formed frames, a Content-Type header before the length in some: nothing skipped
    stream = b"".join(
        (b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" if k % 2 else b"")
        + frame(msg) for k, msg in enumerate(good))
    pos[0], skipped[:] = 0, []
    reader = FrameReader(read, on_skip=skipped.append)
    assert [reader.next() for _ in good] == good and skipped == []


def test_the_item_by_item_parse_is_the_parse():
    """parse_items (typing re-parses the item that changed) gives what parse() gives, the
    same tree with the same spans, or the same diagnostics: on every shipped spec, and on
    random edits of them, each parsed with the items cached from the version before."""
    from maf.compiler.tools.lsp import parse_items  # noqa: PLC0415
    from maf.dsl.diagnostics import Diagnostics  # noqa: PLC0415
    from maf.dsl.parser import parse  # noqa: PLC0415
    rng = random.Random(24)
    pieces = ["x", "\n", " ", "}", "{", "role r {\n}\n", "\nmark m until dusk\n", "// c\n",
              "kill x by shot\n", "\n\n", "(", '"', "team t\n", "inverts\n", "on start {\n"]
    reused = 0
    for path in sorted((ROOT / "specs").glob("*.maf")):
        text = path.read_text(encoding="utf-8")
        cache: dict = {}
        assert parse_items(text, "x.maf", Diagnostics(), cache) == parse(
            text, "x.maf", Diagnostics()) and cache
        for _ in range(60):
            at = rng.randrange(len(text) + 1)
            edited = (text[:at] + text[at + rng.randrange(1, 30):] if rng.random() < 0.4
                      else text[:at] + rng.choice(pieces) + text[at:])
            whole, by_item = Diagnostics(), Diagnostics()
            before = len(cache)
            expected = parse(edited, "x.maf", whole)
            assert parse_items(edited, "x.maf", by_item, cache) == expected
            assert by_item.sorted() == whole.sorted()
            reused += expected is not None and before > 0
            if expected is not None:
                text = edited
    assert reused > 50
