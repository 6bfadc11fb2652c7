"""Render findings: text (diagnostics style + evidence), JSON, SARIF 2.1.0."""

from __future__ import annotations

import json
from typing import Any

from maf.compiler import version
from maf.dsl.codes import REGISTRY
from maf.dsl.diagnostics import Diagnostic, render


def text(results, sources) -> str:
    out = []
    for _file, findings, errs in results:
        for d in errs:
            out.append(render(d, sources))
        for f in findings:
            d = Diagnostic(f.code, f.message, f.span, f.hint, f.severity, f.notes)
            block = render(d, sources)
            if f.evidence:
                lines = block.split("\n")
                # evidence goes before the hint
                hint = [ln for ln in lines if ln.startswith("   = hint:")]
                body = [ln for ln in lines if not ln.startswith("   = hint:")]
                body.append("   = evidence:")
                body += [f"       {e}" for e in f.evidence]
                block = "\n".join(body + hint)
            out.append(block)
    return "\n".join(out)


def coloured(text_: str, stream) -> str:
    """Rendered findings with their severities coloured when `stream` takes colours (a
    terminal, `--color always`; never under NO_COLOR or `--color never`)."""
    from maf.compiler.tools import console  # only the CLI colours

    return console.diagnostics(text_, stream)


def _fjson(f):
    return {
        "code": f.code,
        "severity": f.severity,
        "message": f.message,
        "file": f.span.file,
        "line": f.span.line,
        "col": f.span.col,
        "end_line": f.span.end_line,
        "end_col": f.span.end_col,
        "evidence": f.evidence,
        "hint": f.hint,
        "related": [
            {"message": m, "file": s.file, "line": s.line, "col": s.col} for m, s in f.notes
        ],
        "witness": f.witness,
    }


def as_json(results) -> str:
    data: dict[str, Any] = {"specs": [], "errors": 0, "warnings": 0}
    for file, findings, errs in results:
        items = [_fjson(f) for f in findings]
        items += [
            {
                "code": d.code,
                "severity": d.severity,
                "message": d.message,
                "file": d.span.file,
                "line": d.span.line,
                "col": d.span.col,
                "evidence": [],
                "hint": d.hint,
                "related": [],
                "witness": None,
            }
            for d in errs
        ]
        data["specs"].append({"file": file, "findings": items})
        data["errors"] += sum(i["severity"] == "error" for i in items)
        data["warnings"] += sum(i["severity"] == "warning" for i in items)
    return json.dumps(data, ensure_ascii=False, indent=1, default=str)


def _loc(file, line, col, end_line=None, end_col=None):
    region = {"startLine": max(line, 1), "startColumn": max(col, 1)}
    if end_line and end_line >= line:
        region["endLine"] = end_line
        if end_col and (end_line > line or end_col > col):
            region["endColumn"] = end_col
    return {"physicalLocation": {"artifactLocation": {"uri": file}, "region": region}}


def as_sarif(results) -> str:
    # every code maf reports, from the registry: compile errors (E) are results too
    rules = [
        {
            "id": str(i.code),
            "name": i.title.replace(" ", "-"),
            "shortDescription": {"text": i.title},
            "fullDescription": {"text": i.summary},
            "helpUri": f"https://example.invalid/maf/{i.anchor}",
            "defaultConfiguration": {"level": "warning" if i.severity == "warning" else "error"},
        }
        for i in REGISTRY.values()
    ]
    res = []
    for _file, findings, errs in results:
        for f in findings:
            msg = f.message + ("\n" + "\n".join(f.evidence) if f.evidence else "")
            r = {
                "ruleId": f.code,
                "level": "error" if f.severity == "error" else "warning",
                "message": {"text": msg},
                "locations": [
                    _loc(f.span.file, f.span.line, f.span.col, f.span.end_line, f.span.end_col)
                ],
            }
            if f.notes:
                r["relatedLocations"] = [
                    dict(_loc(s.file, s.line, s.col), id=i, message={"text": m})
                    for i, (m, s) in enumerate(f.notes)
                ]
            if f.witness is not None:
                r["properties"] = {"witness": json.loads(json.dumps(f.witness, default=str))}
            res.append(r)
        for d in errs:
            res.append(
                {
                    "ruleId": d.code,
                    "level": "error",
                    "message": {"text": d.message},
                    "locations": [_loc(d.span.file, d.span.line, d.span.col)],
                }
            )
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "maf check",
                        "version": version(),
                        "informationUri": "https://example.invalid/maf/docs/checks.md",
                        "rules": rules,
                    }
                },
                "results": res,
            }
        ],
    }
    return json.dumps(doc, ensure_ascii=False, indent=1)
