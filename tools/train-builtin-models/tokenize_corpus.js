// Tokenize lines of a JSONL file (each line a JSON string) with the reference
// HF tokenizers implementation (npm `tokenizers`), no special tokens added.
// Usage: node tokenize_corpus.js tokenizer.json in.jsonl out.jsonl
const fs = require('fs');
const {Tokenizer} = require('tokenizers');
(async () => {
  const [tokPath, inPath, outPath] = process.argv.slice(2);
  const tok = Tokenizer.fromFile(tokPath);
  const lines = fs.readFileSync(inPath, 'utf8').split('\n').filter(l => l.length > 0).map(l => JSON.parse(l));
  const out = fs.openSync(outPath, 'w');
  const B = 2000;
  for (let i = 0; i < lines.length; i += B) {
    const encs = await tok.encodeBatch(lines.slice(i, i + B), {addSpecialTokens: false});
    fs.writeSync(out, encs.map(e => JSON.stringify(e.getIds())).join('\n') + '\n');
  }
  fs.closeSync(out);
})();
