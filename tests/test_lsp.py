"""`maf lsp` driven as an editor drives it: a subprocess spoken to in JSON-RPC over stdio."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

PYGLS = pytest.importorskip(
    "pygls", reason="the language server needs pygls (pip install 'maf[lsp]')")

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "tests" / "scenarios" / "features" / "features.maf"


class Client:
    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, "-m", "maf.compiler.tools.cli", "lsp"], cwd=ROOT,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.next_id = 0
        self.notifications = []

    def send(self, msg):
        body = json.dumps(msg).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def read(self):
        headers = {}
        while True:
            line = self.proc.stdout.readline()
            assert line, "the server closed its output: " + self.proc.stderr.read().decode()
            line = line.decode("ascii").strip()
            if not line:
                break
            k, v = line.split(":", 1)
            headers[k.lower()] = v.strip()
        return json.loads(self.proc.stdout.read(int(headers["content-length"])))

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            msg = self.read()
            if msg.get("id") == self.next_id and "method" not in msg:
                assert "error" not in msg, msg["error"]
                return msg["result"]
            self.notifications.append(msg)

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def diagnostics(self, uri):
        """The next diagnostics published for `uri`."""
        for i, msg in enumerate(self.notifications):
            if msg.get("method") == "textDocument/publishDiagnostics" and \
                    msg["params"]["uri"] == uri:
                del self.notifications[: i + 1]
                return msg["params"]["diagnostics"]
        while True:
            msg = self.read()
            if msg.get("method") == "textDocument/publishDiagnostics" and \
                    msg["params"]["uri"] == uri:
                return msg["params"]["diagnostics"]

    def close(self):
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.proc.wait(timeout=20)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            for s in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
                s.close()


@pytest.fixture(scope="module")
def client():
    c = Client()
    init = c.request("initialize", {"processId": None, "rootUri": ROOT.as_uri(),
                                    "capabilities": {}})
    caps = init["capabilities"]
    for cap in ("hoverProvider", "definitionProvider", "referencesProvider",
                "completionProvider", "documentSymbolProvider", "documentFormattingProvider"):
        assert caps.get(cap), cap
    c.notify("initialized", {})
    yield c
    c.close()


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


def test_completion_and_symbols(opened):
    items = opened.request("textDocument/completion", {
        "textDocument": {"uri": URI}, "position": {"line": 0, "character": 0}})
    labels = {i["label"] for i in (items["items"] if isinstance(items, dict) else items)}
    assert {"boss", "bad", "shot", "drunk", "ability", "kill", "alive"} <= labels
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
