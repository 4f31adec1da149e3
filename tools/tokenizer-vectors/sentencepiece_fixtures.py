#!/usr/bin/python3
"""Trains small SentencePiece models and writes them as the tokenizer.json files Hugging Face's converters
(transformers' convert_slow_tokenizer) would make of them, plus what llama.cpp's converter would put in a
GGUF file (tokens, scores, token types), for tests/data/tokenizers/:

  xlmr-unigram/   Unigram with SentencePiece's nmt_nfkc normalizer (a real precompiled charsmap), laid out as
                  XLMRobertaConverter does: <s> <pad> </s> <unk> first, <mask> last, Precompiled + Replace(" {2,}")
                  normalizer, Metaspace pre-tokenizer, <s> $A </s> template. No byte fallback: unknown characters
                  become <unk>.
  t5-unigram/     Unigram with byte_fallback (unknown characters become <0xNN> pieces), WhitespaceSplit +
                  Metaspace (legacy add_prefix_space spelling), "$A </s>" template as T5's converter writes it.
  llama-spm/      SentencePiece BPE with byte_fallback and the identity normalizer, as Llama-2's tokenizer.model:
                  LlamaConverter's tokenizer.json (merges ordered by piece score) and gguf-vocab.json.

Needs only Debian 12's python3-sentencepiece (no protobuf package: the model file is read by hand). Run
from the repository root, then tools/tokenizer-vectors/generate.js for the vectors:

  /usr/bin/python3 tools/tokenizer-vectors/sentencepiece_fixtures.py
"""

import base64
import json
import os
import struct
import tempfile

import sentencepiece as spm

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests', 'data', 'tokenizers')

# This project's own sentences (English and Turkish), written for these fixtures.
CORPUS = """The quick brown fox jumps over the lazy dog.
Attention heads look at the tokens of a sentence and decide which ones matter.
A tokenizer cuts text into pieces; the model only ever sees the ids of those pieces.
Every layer of the transformer mixes information between positions.
Researchers study attention sinks, previous-token heads and induction heads.
Students learn how a query meets a key and how the softmax turns scores into weights.
She sells sea shells by the sea shore, and the shells she sells are surely sea shells.
Numbers like 3.14, 2024 and 1,000,000 appear in text too.
It's what we're doing; they'll see that you've done it, won't they?
Kupa bavula sığmadı çünkü çok büyüktü.
İstanbul'da ılık bir gün; çocuklar ağaçların gölgesinde öğle yemeği yiyor.
Öğretmen öğrencilere dikkat mekanizmasını anlattı ve herkes çok şaşırdı.
Bu cümledeki her kelime, modelin gözünde birkaç parçaya bölünür.
Ağaç, çiçek, güneş, şehir, ırmak, ölçü, üzüm ve iğne Türkçe kelimelerdir.
Dün akşam kitabımı okudum; bugün de arkadaşlarımla sinemaya gideceğim.
Yapay zekâ modelleri metni sayılara çevirir ve bu sayılarla hesap yapar.
Çalışkan öğrenciler sınavdan önce bütün konuları tekrar ettiler.
Kediler mindere oturdu, köpekler bahçede koşturdu.
Ｆｕｌｌｗｉｄｔｈ ｌｅｔｔｅｒｓ and ﬁne ligatures are normalised by NFKC.
café, naïve, résumé, Straße and Ångström keep their accents.
Teachers explain how the model attends to earlier words when it predicts the next one.
The weather was lovely, so everyone walked along the river after lunch.
Models with more layers usually learn more abstract patterns in their attention.
Please open the window, turn off the lights and close the door behind you.
Scientists measured the temperature every hour for three weeks in a row.
Reading, writing and counting are the first things children learn at school.
The library opens at nine in the morning and closes at six in the evening.
Good tokenizers keep frequent words whole and split rare words into smaller parts.
Sabah erkenden kalkıp denize karşı kahvaltı yapmak çok güzeldi.
Annem bahçedeki domatesleri topladı, babam da odunları kesti.
Öğrenciler laboratuvarda deney yaptı ve sonuçları defterlerine yazdı.
Şehrin kalabalık sokaklarında yürürken eski bir arkadaşımla karşılaştım.
Kış geldiğinde dağların tepesi karla kaplanır ve köylüler evlerinde kalır.
Gençler üniversite sınavına hazırlanırken geceleri uzun saatler çalıştılar.
Bilgisayar bu cümleleri okuyor, kelimeleri parçalıyor ve her parçaya bir numara veriyor.
Türkçede ekler kelimenin sonuna eklenir: ev, evler, evlerimiz, evlerimizden.
Gözlüklerimi nereye koyduğumu hatırlamıyorum; masanın üstünde olabilirler mi?
Müzik dinlemeyi, kitap okumayı ve yürüyüş yapmayı çok seviyorum.
"""


def proto_fields(data):
    """(field number, wire type, value) of a protobuf message; lengths-delimited values as bytes."""
    pos = 0
    out = []
    while pos < len(data):
        key, pos = varint(data, pos)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = varint(data, pos)
        elif wire == 1:
            value, pos = data[pos:pos + 8], pos + 8
        elif wire == 2:
            length, pos = varint(data, pos)
            value, pos = data[pos:pos + length], pos + length
        elif wire == 5:
            value, pos = data[pos:pos + 4], pos + 4
        else:
            raise ValueError('unsupported wire type %d' % wire)
        out.append((field, wire, value))
    return out


def varint(data, pos):
    result = shift = 0
    while True:
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return result, pos


def precompiled_charsmap(model_path):
    """ModelProto.normalizer_spec (3) .precompiled_charsmap (2), b'' when there is none."""
    with open(model_path, 'rb') as f:
        model = f.read()
    for field, wire, value in proto_fields(model):
        if field == 3 and wire == 2:
            for f2, w2, v2 in proto_fields(value):
                if f2 == 2 and w2 == 2:
                    return v2
    return b''


def train(name, **options):
    workdir = tempfile.mkdtemp()
    corpus = os.path.join(workdir, 'corpus.txt')
    with open(corpus, 'w', encoding='utf-8') as f:
        f.write(CORPUS)
    prefix = os.path.join(workdir, name)
    spm.SentencePieceTrainer.train(input=corpus, model_prefix=prefix, num_threads=1, seed_sentencepiece_size=100000,
                                   shuffle_input_sentence=False, **options)
    path = prefix + '.model'
    return spm.SentencePieceProcessor(model_file=path), path


def pieces(sp):
    return [(sp.id_to_piece(i), sp.get_score(i)) for i in range(sp.get_piece_size())]


def added(id_, content, special=True, **extra):
    token = {'id': id_, 'content': content, 'single_word': False, 'lstrip': False, 'rstrip': False,
             'normalized': not special, 'special': special}
    token.update(extra)
    return token


def template(single, pair, specials):
    def piece(p):
        name, _, type_id = p.partition(':')
        type_id = int(type_id or 0)
        if name in ('$A', '$B'):
            return {'Sequence': {'id': name[1], 'type_id': type_id}}
        return {'SpecialToken': {'id': name, 'type_id': type_id}}
    return {'type': 'TemplateProcessing', 'single': [piece(p) for p in single.split()],
            'pair': [piece(p) for p in pair.split()],
            'special_tokens': {t: {'id': t, 'ids': [i], 'tokens': [t]} for t, i in specials}}


def spm_normalizer(model_path):
    charsmap = precompiled_charsmap(model_path)
    replace = {'type': 'Replace', 'pattern': {'Regex': ' {2,}'}, 'content': ' '}
    if not charsmap:
        return {'type': 'Sequence', 'normalizers': [replace]}
    return {'type': 'Sequence', 'normalizers': [
        {'type': 'Precompiled', 'precompiled_charsmap': base64.b64encode(charsmap).decode('ascii')}, replace]}


def write(folder, name, value):
    os.makedirs(os.path.join(ROOT, folder), exist_ok=True)
    with open(os.path.join(ROOT, folder, name), 'w', encoding='utf-8') as f:
        json.dump(value, f, ensure_ascii=False, indent=None, separators=(',', ':'))
        f.write('\n')


def xlmr_unigram():
    sp, path = train('xlmr', model_type='unigram', vocab_size=300, character_coverage=0.995, hard_vocab_limit=False,
                     normalization_rule_name='nmt_nfkc')
    vocab = [['<s>', 0.0], ['<pad>', 0.0], ['</s>', 0.0], ['<unk>', 0.0]]
    vocab += [[p, s] for p, s in pieces(sp)[3:]]
    mask = len(vocab)
    vocab.append(['<mask>', 0.0])
    metaspace = {'type': 'Metaspace', 'replacement': '\u2581', 'prepend_scheme': 'always', 'split': True}
    write('xlmr-unigram', 'tokenizer.json', {
        'version': '1.0', 'truncation': None, 'padding': None,
        'added_tokens': [added(0, '<s>'), added(1, '<pad>'), added(2, '</s>'), added(3, '<unk>'),
                         added(mask, '<mask>', lstrip=True)],
        'normalizer': spm_normalizer(path),
        'pre_tokenizer': metaspace,
        'post_processor': template('<s> $A </s>', '<s> $A </s> </s> $B </s>', [('<s>', 0), ('</s>', 2)]),
        'decoder': {'type': 'Metaspace', 'replacement': '\u2581', 'prepend_scheme': 'always', 'split': True},
        'model': {'type': 'Unigram', 'unk_id': 3, 'vocab': vocab, 'byte_fallback': False},
    })


def t5_unigram():
    sp, path = train('t5', model_type='unigram', vocab_size=620, character_coverage=0.98, byte_fallback=True, hard_vocab_limit=False,
                     normalization_rule_name='nmt_nfkc', pad_id=0, eos_id=1, unk_id=2, bos_id=-1)
    vocab = [[p, s] for p, s in pieces(sp)]
    legacy_metaspace = {'type': 'Metaspace', 'replacement': '\u2581', 'add_prefix_space': True}
    write('t5-unigram', 'tokenizer.json', {
        'version': '1.0', 'truncation': None, 'padding': None,
        'added_tokens': [added(0, '<pad>'), added(1, '</s>'), added(2, '<unk>')],
        'normalizer': spm_normalizer(path),
        'pre_tokenizer': {'type': 'Sequence', 'pretokenizers': [{'type': 'WhitespaceSplit'}, legacy_metaspace]},
        'post_processor': template('$A </s>', '$A </s> $B </s>', [('</s>', 1)]),
        'decoder': legacy_metaspace,
        'model': {'type': 'Unigram', 'unk_id': 2, 'vocab': vocab, 'byte_fallback': True},
    })


def llama_spm():
    sp, path = train('llama', model_type='bpe', vocab_size=600, character_coverage=0.99, byte_fallback=True, hard_vocab_limit=False,
                     normalization_rule_name='identity', add_dummy_prefix=True, remove_extra_whitespaces=False,
                     split_digits=True)
    vocab_scores = [('<unk>', 0.0), ('<s>', 0.0), ('</s>', 0.0)] + pieces(sp)[3:]
    vocab = {p: i for i, (p, _) in enumerate(vocab_scores)}
    # transformers' SentencePieceExtractor.extract(vocab_scores): every split of a piece into two pieces is a
    # merge ranked by the piece's score (best first, stable), a piece's splits ordered by the halves' ids.
    merges = []
    for piece, score in vocab_scores:
        local = [(piece[:k], piece[k:], score) for k in range(1, len(piece)) if piece[:k] in vocab and piece[k:] in vocab]
        merges += sorted(local, key=lambda m: (vocab[m[0]], vocab[m[1]]))
    merges = [[a, b] for a, b, _ in sorted(merges, key=lambda m: m[2], reverse=True)]
    write('llama-spm', 'tokenizer.json', {
        'version': '1.0', 'truncation': None, 'padding': None,
        'added_tokens': [added(0, '<unk>'), added(1, '<s>'), added(2, '</s>')],
        'normalizer': {'type': 'Sequence', 'normalizers': [
            {'type': 'Prepend', 'prepend': '\u2581'}, {'type': 'Replace', 'pattern': {'String': ' '}, 'content': '\u2581'}]},
        'pre_tokenizer': None,
        'post_processor': template('<s>:0 $A:0', '<s>:0 $A:0 <s>:1 $B:1', [('<s>', 1)]),
        'decoder': {'type': 'Sequence', 'decoders': [
            {'type': 'Replace', 'pattern': {'String': '\u2581'}, 'content': ' '}, {'type': 'ByteFallback'},
            {'type': 'Fuse'}, {'type': 'Strip', 'content': ' ', 'start': 1, 'stop': 0}]},
        'model': {'type': 'BPE', 'dropout': None, 'unk_token': '<unk>', 'continuing_subword_prefix': None,
                  'end_of_word_suffix': None, 'fuse_unk': True, 'byte_fallback': True, 'ignore_merges': False,
                  'vocab': vocab, 'merges': merges},
    })
    # What llama.cpp's _set_vocab_sentencepiece writes: every piece with its score and type
    # (1 normal, 2 unknown, 3 control, 6 byte).
    types = []
    for i in range(sp.get_piece_size()):
        types.append(2 if sp.is_unknown(i) else 3 if sp.is_control(i) else 6 if sp.is_byte(i) else 1)
    write('llama-spm', 'gguf-vocab.json', {
        'model': 'llama', 'tokens': [sp.id_to_piece(i) for i in range(sp.get_piece_size())],
        'scores': [sp.get_score(i) for i in range(sp.get_piece_size())], 'token_type': types,
        'bos_token_id': 1, 'eos_token_id': 2, 'unknown_token_id': 0, 'add_bos_token': True, 'add_eos_token': False,
    })


if __name__ == '__main__':
    xlmr_unigram()
    t5_unigram()
    llama_spm()
