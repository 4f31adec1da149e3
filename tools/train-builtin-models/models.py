"""Plain-torch BERT and Llama whose math (and parameter names) match
Hugging Face transformers' BertForMaskedLM and LlamaForCausalLM."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F


# ------------------------------------------------------------------ BERT

class BertSelfAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        H = c["hidden_size"]
        self.nh = c["num_attention_heads"]
        self.hd = H // self.nh
        self.query = nn.Linear(H, H)
        self.key = nn.Linear(H, H)
        self.value = nn.Linear(H, H)

    def forward(self, x, mask_add):
        B, T, H = x.shape
        q = self.query(x).view(B, T, self.nh, self.hd).transpose(1, 2)
        k = self.key(x).view(B, T, self.nh, self.hd).transpose(1, 2)
        v = self.value(x).view(B, T, self.nh, self.hd).transpose(1, 2)
        s = q @ k.transpose(-1, -2) / math.sqrt(self.hd)
        if mask_add is not None:
            s = s + mask_add
        p = s.softmax(-1)
        return (p @ v).transpose(1, 2).reshape(B, T, H), p


class BertSelfOutput(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c["hidden_size"], c["hidden_size"])
        self.LayerNorm = nn.LayerNorm(c["hidden_size"], eps=c["layer_norm_eps"])


class BertAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.self = BertSelfAttention(c)
        self.output = BertSelfOutput(c)


class BertIntermediate(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c["hidden_size"], c["intermediate_size"])


class BertOutput(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c["intermediate_size"], c["hidden_size"])
        self.LayerNorm = nn.LayerNorm(c["hidden_size"], eps=c["layer_norm_eps"])


class BertLayer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.attention = BertAttention(c)
        self.intermediate = BertIntermediate(c)
        self.output = BertOutput(c)

    def forward(self, x, mask_add):
        a, p = self.attention.self(x, mask_add)
        x = self.attention.output.LayerNorm(self.attention.output.dense(a) + x)
        h = F.gelu(self.intermediate.dense(x))  # erf GELU
        x = self.output.LayerNorm(self.output.dense(h) + x)
        return x, p


class BertEmbeddings(nn.Module):
    def __init__(self, c):
        super().__init__()
        H = c["hidden_size"]
        self.word_embeddings = nn.Embedding(c["vocab_size"], H, padding_idx=c["pad_token_id"])
        self.position_embeddings = nn.Embedding(c["max_position_embeddings"], H)
        self.token_type_embeddings = nn.Embedding(c["type_vocab_size"], H)
        self.LayerNorm = nn.LayerNorm(H, eps=c["layer_norm_eps"])

    def forward(self, ids, tt):
        pos = torch.arange(ids.shape[1], device=ids.device)[None]
        e = self.word_embeddings(ids) + self.token_type_embeddings(tt) + self.position_embeddings(pos)
        return self.LayerNorm(e)


class BertEncoder(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.layer = nn.ModuleList([BertLayer(c) for _ in range(c["num_hidden_layers"])])


class BertPooler(nn.Module):  # training-only (NSP); BertForMaskedLM has no pooler
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c["hidden_size"], c["hidden_size"])


class BertModel(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embeddings = BertEmbeddings(c)
        self.encoder = BertEncoder(c)
        self.pooler = BertPooler(c)


class PredTransform(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c["hidden_size"], c["hidden_size"])
        self.LayerNorm = nn.LayerNorm(c["hidden_size"], eps=c["layer_norm_eps"])


class LMPrediction(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.transform = PredTransform(c)
        self.bias = nn.Parameter(torch.zeros(c["vocab_size"]))


class PreTrainingHeads(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.predictions = LMPrediction(c)
        self.seq_relationship = nn.Linear(c["hidden_size"], 2)  # training-only (NSP)


class Bert(nn.Module):
    """Parameter names = BertForPreTraining; export keeps the BertForMaskedLM subset."""

    def __init__(self, c):
        super().__init__()
        self.c = c
        self.bert = BertModel(c)
        self.cls = PreTrainingHeads(c)
        self.apply(self._init)

    def _init(self, m):
        std = self.c["initializer_range"]
        if isinstance(m, nn.Linear):
            m.weight.data.normal_(0.0, std)
            m.bias.data.zero_()
        elif isinstance(m, nn.Embedding):
            m.weight.data.normal_(0.0, std)
            if m.padding_idx is not None:
                m.weight.data[m.padding_idx].zero_()
        elif isinstance(m, nn.LayerNorm):
            m.weight.data.fill_(1.0)
            m.bias.data.zero_()

    def forward(self, ids, tt, attn_mask, need_probs=False):
        # HF: extended mask (1 - mask) * finfo.min, added to the scores
        mask_add = (1.0 - attn_mask[:, None, None, :].to(torch.get_default_dtype())) * torch.finfo(torch.get_default_dtype()).min
        x = self.bert.embeddings(ids, tt)
        probs = []
        for l in self.bert.encoder.layer:
            x, p = l(x, mask_add)
            if need_probs:
                probs.append(p)
        return x, probs

    def mlm_logits(self, h):
        t = self.cls.predictions.transform
        h = t.LayerNorm(F.gelu(t.dense(h)))
        return h @ self.bert.embeddings.word_embeddings.weight.t() + self.cls.predictions.bias

    def nsp_logits(self, h):
        pooled = torch.tanh(self.bert.pooler.dense(h[:, 0]))
        return self.cls.seq_relationship(pooled)


# ------------------------------------------------------------------ Llama

class RMSNorm(nn.Module):
    def __init__(self, H, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(H))
        self.eps = eps

    def forward(self, x):
        dt = x.dtype
        x = x.to(torch.promote_types(dt, torch.float32))  # HF: float32 (float64 stays float64)
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x.to(dt)


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class LlamaAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        H = c["hidden_size"]
        self.nh = c["num_attention_heads"]
        self.nkv = c["num_key_value_heads"]
        self.hd = H // self.nh
        self.q_proj = nn.Linear(H, self.nh * self.hd, bias=False)
        self.k_proj = nn.Linear(H, self.nkv * self.hd, bias=False)
        self.v_proj = nn.Linear(H, self.nkv * self.hd, bias=False)
        self.o_proj = nn.Linear(self.nh * self.hd, H, bias=False)

    def forward(self, x, cos, sin, mask_add):
        B, T, _ = x.shape
        q = self.q_proj(x).view(B, T, self.nh, self.hd).transpose(1, 2)
        k = self.k_proj(x).view(B, T, self.nkv, self.hd).transpose(1, 2)
        v = self.v_proj(x).view(B, T, self.nkv, self.hd).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        rep = self.nh // self.nkv
        k = k.repeat_interleave(rep, dim=1)  # == HF repeat_kv
        v = v.repeat_interleave(rep, dim=1)
        s = q @ k.transpose(-1, -2) / math.sqrt(self.hd) + mask_add
        p = s.to(torch.promote_types(s.dtype, torch.float32)).softmax(-1).to(q.dtype)
        o = (p @ v).transpose(1, 2).reshape(B, T, -1)
        return self.o_proj(o), p


class LlamaMLP(nn.Module):
    def __init__(self, c):
        super().__init__()
        H, I = c["hidden_size"], c["intermediate_size"]
        self.gate_proj = nn.Linear(H, I, bias=False)
        self.up_proj = nn.Linear(H, I, bias=False)
        self.down_proj = nn.Linear(I, H, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class LlamaLayer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.self_attn = LlamaAttention(c)
        self.mlp = LlamaMLP(c)
        self.input_layernorm = RMSNorm(c["hidden_size"], c["rms_norm_eps"])
        self.post_attention_layernorm = RMSNorm(c["hidden_size"], c["rms_norm_eps"])

    def forward(self, x, cos, sin, mask_add):
        a, p = self.self_attn(self.input_layernorm(x), cos, sin, mask_add)
        x = x + a
        x = x + self.mlp(self.post_attention_layernorm(x))
        return x, p


class LlamaModel(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embed_tokens = nn.Embedding(c["vocab_size"], c["hidden_size"])
        self.layers = nn.ModuleList([LlamaLayer(c) for _ in range(c["num_hidden_layers"])])
        self.norm = RMSNorm(c["hidden_size"], c["rms_norm_eps"])


class Llama(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        self.model = LlamaModel(c)
        self.lm_head = nn.Linear(c["hidden_size"], c["vocab_size"], bias=False)
        self.apply(self._init)

    def _init(self, m):
        std = self.c["initializer_range"]
        if isinstance(m, (nn.Linear, nn.Embedding)):
            m.weight.data.normal_(0.0, std)

    def rope(self, T, dtype):
        hd = self.c["hidden_size"] // self.c["num_attention_heads"]
        inv = 1.0 / (self.c["rope_theta"] ** (torch.arange(0, hd, 2, dtype=torch.int64).float() / hd))
        t = torch.arange(T, dtype=torch.int64).float()
        fr = torch.outer(t, inv)
        emb = torch.cat((fr, fr), dim=-1)
        return emb.cos().to(dtype), emb.sin().to(dtype)

    def forward(self, ids, need_probs=False):
        B, T = ids.shape
        dt = self.model.embed_tokens.weight.dtype
        cos, sin = self.rope(T, dt)
        mask_add = torch.full((T, T), torch.finfo(dt).min, dtype=dt).triu(1)
        x = self.model.embed_tokens(ids)
        probs = []
        for l in self.model.layers:
            x, p = l(x, cos, sin, mask_add)
            if need_probs:
                probs.append(p)
        x = self.model.norm(x)
        return self.lm_head(x), probs
