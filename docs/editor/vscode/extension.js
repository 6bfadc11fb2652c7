// The maf extension: starts `maf lsp` (or the command in the `maf.server.command` setting)
// and connects VS Code to it over stdio. Everything else is the server's (docs/editor.md).
"use strict";
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const [command, ...args] = vscode.workspace
    .getConfiguration("maf")
    .get("server.command", ["maf", "lsp"]);
  client = new LanguageClient(
    "maf",
    "maf language server",
    { command, args },
    {
      documentSelector: [
        { scheme: "file", language: "maf" },
        { scheme: "untitled", language: "maf" },
      ],
    },
  );
  context.subscriptions.push(client);
  return client.start().catch((err) => {
    vscode.window.showErrorMessage(
      `maf: cannot start \`${[command, ...args].join(" ")}\` (${err.message}). ` +
        "Install maf with its lsp extra (pip install 'maf[lsp]'), or set maf.server.command.",
    );
  });
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
