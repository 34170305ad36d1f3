// Validate YAML files with yaml-language-server's own language service, as
// VS Code's YAML extension runs it, with yaml.schemas settings.
//
// Usage: node yamlls.js REQUEST.json
//
// REQUEST is {"root": workspace folder, "schemas": yaml.schemas (a schema
// file relative to root, or absolute, to its globs), "files": [paths]}.
// Prints one JSON object a line for each file: its "diagnostics" (line and
// character from 0, message) and "hover", the text shown with the cursor
// on its first key (the description, and the schema it came from).
//
// The package is found under the node_modules folder that
// YAML_LANGUAGE_SERVER_MODULES names, /tmp/yaml-language-server/node_modules
// by default: npm install --prefix /tmp/yaml-language-server
// yaml-language-server@1.25.0. Exits 3 when it is not there.

'use strict';

const fs = require('fs');
const path = require('path');
const { pathToFileURL, fileURLToPath } = require('url');

const modules = process.env.YAML_LANGUAGE_SERVER_MODULES || '/tmp/yaml-language-server/node_modules';

function load(name) {
  try {
    return require(require.resolve(name, { paths: [modules] }));
  } catch (e) {
    process.stderr.write(`${name} is not under ${modules}: ${e.message}\n`);
    process.exit(3);
  }
}

const yamlls = load('yaml-language-server/out/server/src/languageservice/yamlLanguageService.js');
const { TextDocument } = load('vscode-languageserver-textdocument');

// settings turns yaml.schemas into the language service's schemas, as
// the server's settings handler does: a relative schema path is a file of
// the workspace folder.
function settings(root, schemas) {
  return Object.entries(schemas).map(([file, globs]) => ({
    uri: pathToFileURL(path.resolve(root, file)).href,
    fileMatch: Array.isArray(globs) ? globs : [globs],
    priority: yamlls.SchemaPriority.Settings,
  }));
}

// firstKey is the position of the first key of a document: the first line
// that is not blank, a comment or a document marker.
function firstKey(text) {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (/^[A-Za-z_"']/.test(lines[i])) {
      return { line: i, character: 0 };
    }
  }
  return { line: 0, character: 0 };
}

function hoverText(h) {
  if (!h) return '';
  const c = h.contents;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((x) => (typeof x === 'string' ? x : x.value)).join('\n');
  return c.value || '';
}

async function main() {
  const req = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const ls = yamlls.getLanguageService({
    schemaRequestService: async (uri) => fs.readFileSync(fileURLToPath(uri), 'utf8'),
    workspaceContext: { resolveRelativePath: (rel, resource) => new URL(rel, resource).href },
  });
  ls.configure({ validate: true, hover: true, completion: true, schemas: settings(req.root, req.schemas) });
  for (const file of req.files) {
    const text = fs.readFileSync(file, 'utf8');
    const doc = TextDocument.create(pathToFileURL(path.resolve(file)).href, 'yaml', 1, text);
    const diagnostics = await ls.doValidation(doc, false);
    const hover = await ls.doHover(doc, firstKey(text));
    process.stdout.write(JSON.stringify({
      file,
      diagnostics: diagnostics.map((d) => ({ line: d.range.start.line, character: d.range.start.character, source: d.source, message: d.message })),
      hover: hoverText(hover),
    }) + '\n');
  }
}

main().catch((e) => {
  process.stderr.write(`${e.stack || e}\n`);
  process.exit(1);
});
