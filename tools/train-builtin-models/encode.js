// Encode texts (with special tokens) with the reference HF tokenizers
// implementation. Usage: node encode.js tokenizer.json in.json out.json
// in.json: [[text, pair_or_null], ...]; out: [{ids, tokens, offsets, type_ids}, ...]
const fs = require('fs');
const {Tokenizer} = require('tokenizers');
(async () => {
  const [tokPath, inPath, outPath] = process.argv.slice(2);
  const tok = Tokenizer.fromFile(tokPath);
  const items = JSON.parse(fs.readFileSync(inPath, 'utf8'));
  const out = [];
  for (const [a, b] of items) {
    const e = b === null ? await tok.encode(a) : await tok.encode(a, b);
    out.push({text: a, pair: b, ids: e.getIds(), tokens: e.getTokens(), offsets: e.getOffsets(),
              type_ids: e.getTypeIds(), decoded: await tok.decode(e.getIds(), true)});
  }
  fs.writeFileSync(outPath, JSON.stringify(out));
})();
