#!/usr/bin/env node
// Validates Arbiter protocol messages against the JSON Schemas in schema/messages/.
//
//   node validate.mjs [--schemas DIR] [--direction client|server] [--expect-invalid] [FILE...]
//   node validate.mjs --markdown schema/protocol.md
//
// Always compiles every *.schema.json (a schema that does not compile is a failure). Each FILE is
// JSON lines: one message per line, blank lines ignored. With --direction, every message must
// match client.schema.json or server.schema.json; a failure names FILE:LINE, the message, and
// the errors of the schema of its "type" (clearer than the errors of the whole oneOf).
// --expect-invalid turns the check around: every line must be refused (the decoder's refusal
// cases). --markdown checks the examples of the prose contract: every inline `{"type":...}` code
// span and every ```json block with a "type", against the direction of the section it is in
// ("## Client to server" or "## Server to client"). Exit status: 0 all good, 1 a failure, 2 bad
// usage.
//
// Client messages are read as the server reads them: an integer written with a fraction or an
// exponent (`1.0`, `1e3`) is refused (protocol.md, "Integers"), though JSON.parse would make it
// the same number as `1`. Such a number is read as an object, which no `"type": "integer"` of
// the schemas accepts; the client schemas have no other kind of number.

import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Ajv2020 from "ajv/dist/2020.js";

const here = dirname(fileURLToPath(import.meta.url));

function usage(message) {
  console.error(`validate.mjs: ${message}`);
  console.error(
    "usage: node validate.mjs [--schemas DIR] [--direction client|server] [--expect-invalid] [FILE...]\n" +
      "       node validate.mjs [--schemas DIR] --markdown FILE.md",
  );
  process.exit(2);
}

function parseArguments(argv) {
  const options = {
    schemas: resolve(here, "../../schema/messages"),
    direction: null,
    markdown: null,
    expectInvalid: false,
    files: [],
  };
  for (let i = 0; i < argv.length; ++i) {
    const argument = argv[i];
    if (argument === "--schemas" || argument === "--direction" || argument === "--markdown") {
      if (i + 1 >= argv.length) usage(`${argument} needs a value`);
      options[argument.slice(2)] = argv[++i];
    } else if (argument === "--expect-invalid") {
      options.expectInvalid = true;
    } else if (argument === "--help" || argument === "-h") {
      usage("help");
    } else if (argument.startsWith("--")) {
      usage(`unknown option ${argument}`);
    } else {
      options.files.push(argument);
    }
  }
  if (options.direction !== null && !["client", "server"].includes(options.direction)) {
    usage(`--direction must be client or server, not ${options.direction}`);
  }
  if (options.files.length > 0 && options.direction === null) {
    usage("files need --direction client|server");
  }
  return options;
}

function loadSchemas(directory) {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  const names = readdirSync(directory)
    .filter((name) => name.endsWith(".schema.json"))
    .sort();
  if (names.length === 0) throw new Error(`no *.schema.json in ${directory}`);
  const schemas = new Map();
  for (const name of names) {
    const schema = JSON.parse(readFileSync(join(directory, name), "utf8"));
    ajv.addSchema(schema);
    schemas.set(name, schema.$id);
  }
  let failures = 0;
  const validators = new Map();
  for (const [name, id] of schemas) {
    try {
      validators.set(name, ajv.getSchema(id));
    } catch (error) {
      console.error(`${name}: does not compile: ${error.message}`);
      ++failures;
    }
  }
  return { validators, failures, count: names.length };
}

// `text` with every integral number written with a fraction or an exponent replaced by
// {"written as": "1.0"}: JSON text cannot tell 1.0 from 1 once parsed, the server can.
const jsonNumber = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y;

function markFractionalIntegers(text) {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    jsonNumber.lastIndex = i;
    const number = c === "-" || (c >= "0" && c <= "9") ? jsonNumber.exec(text) : null;
    if (number) {
      const token = number[0];
      const fractional = /[.eE]/.test(token) && Number.isInteger(Number(token));
      out += fractional ? JSON.stringify({ "written as": token }) : token;
      i += token.length;
      continue;
    }
    out += c;
    ++i;
  }
  return out;
}

// A message as the server reads it in that direction (see the file comment).
function parseMessage(text, direction) {
  return JSON.parse(direction === "client" ? markFractionalIntegers(text) : text);
}

function clip(text, limit = 300) {
  return text.length <= limit ? text : `${text.slice(0, limit)}...`;
}

function describe(errors) {
  return (errors ?? [])
    .map((e) => `    ${e.instancePath || "/"} ${e.message}${paramsText(e.params)}`)
    .join("\n");
}

function paramsText(params) {
  if (!params || Object.keys(params).length === 0) return "";
  return ` ${JSON.stringify(params)}`;
}

// The JSON examples of a Markdown file, each with its line and the direction of its section.
function markdownExamples(file) {
  const examples = [];
  let direction = null;
  let block = null;
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((line, index) => {
      const number = index + 1;
      if (block !== null) {
        if (line.startsWith("```")) {
          const text = block.lines.join("\n");
          if (/"type"\s*:/.test(text)) examples.push({ text, line: block.line, direction });
          block = null;
        } else {
          block.lines.push(line);
        }
        return;
      }
      if (line.startsWith("```json")) {
        block = { line: number + 1, lines: [] };
        return;
      }
      const heading = /^## (.*)/.exec(line);
      if (heading) {
        direction = { "Client to server": "client", "Server to client": "server" }[heading[1].trim()] ?? null;
        return;
      }
      for (const match of line.matchAll(/`(\{"type":[^`]*\})`/g)) {
        examples.push({ text: match[1], line: number, direction });
      }
    });
  return examples.filter((example) => example.direction !== null);
}

function checkMarkdown(file, validators) {
  let failures = 0;
  const examples = markdownExamples(file);
  for (const example of examples) {
    const where = `${file}:${example.line}`;
    let message;
    try {
      message = parseMessage(example.text, example.direction);
    } catch (error) {
      console.error(`${where}: example is not JSON (${error.message}): ${clip(example.text)}`);
      ++failures;
      continue;
    }
    const type = message.type;
    const validate = validators.get(`${example.direction}.${type}.schema.json`);
    if (!validate) {
      console.error(`${where}: no ${example.direction} message has type ${JSON.stringify(type)}`);
      ++failures;
    } else if (!validate(message)) {
      console.error(`${where}: example refused by ${example.direction}.${type}.schema.json: ${clip(example.text)}`);
      console.error(describe(validate.errors));
      ++failures;
    }
  }
  console.log(`${file}: ${examples.length - failures} of ${examples.length} examples valid`);
  if (examples.length === 0) {
    console.error(`${file}: no examples found`);
    ++failures;
  }
  return failures;
}

function checkFile(file, direction, expectInvalid, validators) {
  const index = validators.get(`${direction}.schema.json`);
  if (!index) throw new Error(`no ${direction}.schema.json`);
  const lines = readFileSync(file, "utf8").split("\n");
  let checked = 0;
  let failures = 0;
  lines.forEach((line, number) => {
    if (line.trim() === "") return;
    ++checked;
    const where = `${file}:${number + 1}`;
    let message;
    try {
      message = parseMessage(line, direction);
    } catch (error) {
      console.error(`${where}: not JSON (${error.message}): ${clip(line)}`);
      ++failures;
      return;
    }
    const valid = index(message);
    if (expectInvalid) {
      if (valid) {
        console.error(`${where}: accepted by ${direction}.schema.json but should be refused: ${clip(line)}`);
        ++failures;
      }
      return;
    }
    if (valid) return;
    ++failures;
    console.error(`${where}: refused by ${direction}.schema.json: ${clip(line)}`);
    const type = message && typeof message === "object" ? message.type : undefined;
    const specific = typeof type === "string" ? validators.get(`${direction}.${type}.schema.json`) : undefined;
    if (specific && !specific(message)) {
      console.error(`  ${direction}.${type}.schema.json:\n${describe(specific.errors)}`);
    } else if (typeof type !== "string") {
      console.error(`  not an object with a string "type"`);
    } else {
      console.error(`  no ${direction} message has type ${JSON.stringify(clip(type, 64))}`);
    }
  });
  return { checked, failures };
}

function main() {
  const options = parseArguments(process.argv.slice(2));
  const { validators, failures: schemaFailures, count } = loadSchemas(options.schemas);
  let failures = schemaFailures;
  console.log(`compiled ${count - schemaFailures} of ${count} schemas in ${options.schemas}`);
  if (options.markdown !== null) failures += checkMarkdown(options.markdown, validators);
  for (const file of options.files) {
    const result = checkFile(file, options.direction, options.expectInvalid, validators);
    failures += result.failures;
    const verb = options.expectInvalid ? "refused as expected" : "valid";
    console.log(`${file}: ${result.checked - result.failures} of ${result.checked} ${options.direction} messages ${verb}`);
    if (result.checked === 0) {
      console.error(`${file}: no messages`);
      ++failures;
    }
  }
  process.exitCode = failures === 0 ? 0 : 1;
}

try {
  main();
} catch (error) {
  console.error(`validate.mjs: ${error.message}`);
  process.exitCode = 1;
}
