const {Tokenizer} = require(process.env.TOKENIZERS_JS || 'tokenizers');
(async () => {
  const [enc, dec] = process.argv.slice(2);
  const te = Tokenizer.fromFile(enc), td = Tokenizer.fromFile(dec);
  const s = ["kedi mindere oturdu", "Çocuklar ığdır'da İstanbul'a gidiyor; öğretmen şöyle dedi: Üç güzel çiçek.", "The trophy didn't fit into the suitcase because it was too big."];
  for (const x of s) {
    let e = await te.encode(x, "Kedi uyudu.");
    console.log(JSON.stringify(e.getTokens()), JSON.stringify(e.getIds()), JSON.stringify(e.getTypeIds()));
    let d = await td.encode(x);
    console.log(JSON.stringify(d.getTokens()), JSON.stringify(d.getIds()), JSON.stringify(d.getOffsets()));
    console.log(await td.decode(d.getIds(), true));
  }
})();
