// Counts the tokens of a text file with OpenAI's tiktoken (npm, Rust core as
// WASM), line by line as compactd counts JSONL records, and reports the
// time taken. Used by cmd/compactd-bench's "tokens" section.
//
//   node throughput.js FILE ENCODING WORKERS
//
// Prints {"tokens": N, "seconds": S, "bytes": B} on stdout. With WORKERS > 1
// the lines are cut into contiguous shares counted by worker threads.
"use strict";
const fs = require("fs");
const { Worker, isMainThread, parentPort, workerData } = require("worker_threads");
const { get_encoding } = require("tiktoken");

function countLines(enc, lines) {
  let n = 0;
  for (const line of lines) if (line.length > 0) n += enc.encode_ordinary(line).length;
  return n;
}

if (!isMainThread) {
  // Load the encoding, say so, and count when told: the clock measures
  // counting only, not thread start-up or WASM instantiation.
  const enc = get_encoding(workerData.encoding);
  parentPort.once("message", () => parentPort.postMessage(countLines(enc, workerData.lines)));
  parentPort.postMessage("ready");
} else {
  const [file, encoding = "o200k_base", workersArg = "1"] = process.argv.slice(2);
  const text = fs.readFileSync(file, "utf8");
  const lines = text.split("\n");
  const workers = Math.max(1, parseInt(workersArg, 10) || 1);
  // Encodings are loaded before the clock starts, as on the Go side.
  const enc = get_encoding(encoding);
  let start = process.hrtime.bigint();
  const done = (tokens) => {
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    process.stdout.write(JSON.stringify({ tokens, seconds, bytes: Buffer.byteLength(text, "utf8") }) + "\n");
  };
  if (workers === 1) {
    start = process.hrtime.bigint();
    done(countLines(enc, lines));
  } else {
    const share = Math.ceil(lines.length / workers);
    const started = [];
    for (let w = 0; w < workers; w++) {
      const part = lines.slice(w * share, (w + 1) * share);
      const worker = new Worker(__filename, { workerData: { lines: part, encoding } });
      worker.on("error", (err) => {
        console.error(err);
        process.exit(1);
      });
      started.push(new Promise((resolve) => worker.once("message", () => resolve(worker))));
    }
    Promise.all(started).then((ready) => {
      start = process.hrtime.bigint();
      const results = ready.map((worker) => new Promise((resolve) => {
        worker.once("message", resolve);
        worker.postMessage("go");
      }));
      return Promise.all(results);
    }).then((counts) => {
      done(counts.reduce((a, b) => a + b, 0));
      process.exit(0);
    });
  }
}
