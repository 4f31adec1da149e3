#!/usr/bin/python3
"""Build the plain-text training corpus from Debian packages.

Packages (fetched with `apt-get download`, unpacked with `dpkg-deb -x`, never
installed): fortunes, fortunes-min, manpages, manpages-dev, manpages-tr,
libreoffice-help-tr.  See README.md for their licences.

Output: <cache>/corpus.jsonl, one document per line:
  {"src": "manpages-tr", "name": "...", "lang": "tr", "paras": ["...", ...]}
Documents are sorted by (src, name) so the output is deterministic.
"""
import argparse, glob, gzip, html, json, os, re, subprocess, sys
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser

PACKAGES = ["fortunes", "fortunes-min", "manpages", "manpages-dev",
            "manpages-tr", "libreoffice-help-tr"]

WS = re.compile(r"\s+")


def fetch(cache):
    debs = os.path.join(cache, "debs")
    root = os.path.join(cache, "root")
    os.makedirs(debs, exist_ok=True)
    if not glob.glob(os.path.join(debs, "*.deb")) or len(glob.glob(os.path.join(debs, "*.deb"))) < len(PACKAGES):
        subprocess.run(["apt-get", "download"] + PACKAGES, cwd=debs, check=True)
    os.makedirs(root, exist_ok=True)
    for d in sorted(glob.glob(os.path.join(debs, "*.deb"))):
        subprocess.run(["dpkg-deb", "-x", d, root], check=True)
    return root


def good_para(p, min_words=4):
    words = p.split()
    if len(words) < min_words:
        return False
    letters = sum(c.isalpha() for c in p)
    if letters < 0.6 * len(p.replace(" ", "")):
        return False
    return True


def clean(p):
    return WS.sub(" ", p).strip()


def fortunes_docs(root):
    docs = []
    for f in sorted(glob.glob(os.path.join(root, "usr/share/games/fortunes/*"))):
        if f.endswith(".dat") or f.endswith(".u8") or os.path.isdir(f):
            continue
        with open(f, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        paras = []
        for fort in re.split(r"\n%\n", text):
            # a fortune keeps its line structure only as whitespace; drop attribution-only lines
            p = clean(fort)
            if good_para(p, 3):
                paras.append(p)
        if paras:
            docs.append({"src": "fortunes", "name": os.path.basename(f), "lang": "en", "paras": paras})
    return docs


def render_man(path):
    env = dict(os.environ, MANWIDTH="2000", LANG="C.UTF-8", LC_ALL="C.UTF-8")
    try:
        out = subprocess.run(["man", "--nh", "--nj", "-l", path], env=env,
                             capture_output=True, timeout=60).stdout
        out = subprocess.run(["col", "-bx"], input=out, capture_output=True, env=env).stdout
        return out.decode("utf-8", errors="replace")
    except Exception:
        return ""


def man_docs(root, sub, src, lang):
    files = []
    for f in sorted(glob.glob(os.path.join(root, "usr/share/man", sub, "man*", "*.gz"))):
        if os.path.islink(f):
            continue
        # skip ".so" redirect stubs
        with gzip.open(f, "rb") as fh:
            head = fh.read(200)
        if head.startswith(b".so "):
            continue
        files.append(f)
    with ThreadPoolExecutor(4) as ex:
        texts = list(ex.map(render_man, files))
    docs = []
    for f, t in zip(files, texts):
        lines = t.split("\n")[1:-2]  # drop header/footer lines
        paras, cur = [], []
        for ln in lines:
            if not ln.strip():
                if cur:
                    paras.append(clean(" ".join(cur)))
                    cur = []
            elif not ln.startswith(" "):  # section heading
                if cur:
                    paras.append(clean(" ".join(cur)))
                    cur = []
            else:
                cur.append(ln.strip())
        if cur:
            paras.append(clean(" ".join(cur)))
        paras = [p for p in paras if good_para(p, 5)]
        if paras:
            docs.append({"src": src, "name": os.path.relpath(f, root), "lang": lang, "paras": paras})
    return docs


class HelpParser(HTMLParser):
    BLOCK = {"p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "td", "th", "div", "br", "pre"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.paras, self.cur, self.skip, self.in_body = [], [], 0, False

    def flush(self):
        t = clean("".join(self.cur))
        if t:
            self.paras.append(t)
        self.cur = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "div" and a.get("id") == "DisplayArea":
            self.in_body = True
        if tag in ("script", "style", "header", "aside", "nav", "pre") or (tag == "div" and "howtoget" in (a.get("class") or "")):
            self.skip += 1 if tag != "div" else 0
        if tag in self.BLOCK:
            self.flush()

    def handle_endtag(self, tag):
        if tag in ("script", "style", "header", "aside", "nav", "pre"):
            self.skip = max(0, self.skip - 1)
        if tag in self.BLOCK:
            self.flush()

    def handle_data(self, data):
        if self.in_body and not self.skip:
            self.cur.append(data)


def help_docs(root):
    docs = []
    base = os.path.join(root, "usr/share/libreoffice/help/tr/text")
    for f in sorted(glob.glob(os.path.join(base, "**/*.html"), recursive=True)):
        hp = HelpParser()
        with open(f, encoding="utf-8", errors="replace") as fh:
            hp.feed(fh.read())
        hp.flush()
        paras = [p for p in hp.paras if good_para(p, 5)]
        if paras:
            docs.append({"src": "libreoffice-help-tr", "name": os.path.relpath(f, root), "lang": "tr", "paras": paras})
    return docs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache", default="/tmp/attnscope-corpus")
    args = ap.parse_args()
    root = fetch(args.cache)
    docs = []
    docs += fortunes_docs(root)
    docs += man_docs(root, "", "manpages", "en")
    docs += man_docs(root, "tr", "manpages-tr", "tr")
    docs += help_docs(root)
    # de-duplicate paragraphs globally (help pages repeat boilerplate)
    seen = set()
    out = []
    for d in sorted(docs, key=lambda d: (d["src"], d["name"])):
        ps = []
        for p in d["paras"]:
            if p in seen:
                continue
            seen.add(p)
            ps.append(p)
        if ps:
            d["paras"] = ps
            out.append(d)
    stats = {}
    for d in out:
        s = stats.setdefault(d["src"], [0, 0, 0])
        s[0] += 1
        s[1] += len(d["paras"])
        s[2] += sum(len(p.encode("utf-8")) + 1 for p in d["paras"])
    with open(os.path.join(args.cache, "corpus.jsonl"), "w", encoding="utf-8") as fh:
        for d in out:
            fh.write(json.dumps(d, ensure_ascii=False) + "\n")
    with open(os.path.join(args.cache, "corpus_stats.json"), "w") as fh:
        json.dump(stats, fh, indent=1)
    for k, v in stats.items():
        print(f"{k:22s} docs={v[0]:6d} paras={v[1]:7d} bytes={v[2]:9d}")
    print("total bytes", sum(v[2] for v in stats.values()))


if __name__ == "__main__":
    main()
