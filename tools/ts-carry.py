#!/usr/bin/env python3
"""Keeps translations when code moves between classes (tools only; not part of the build or the tests).

lupdate files a tr() string under the class that calls it. When a string moves to another class (a pane
split out of MainWindow), lupdate -no-obsolete drops the old entry and adds the new one unfinished. This
script runs the lupdate target between two reads of the .ts files and fills every unfinished entry whose
source text (and comment) had a finished translation before, in whatever context:

    tools/ts-carry.py [BUILD_DIR] [--from OTHER.ts ...]      (default build/dev)

--from: translations to carry from other copies of the files too (a merge of two branches that both added
strings: check out one side's .ts files, give the other side's here; attnscope_<lang>.ts pairs by name,
so give a copy such as /tmp/theirs/attnscope_tr.ts).

It prints how many entries it filled per file and lists those still unfinished (new strings to translate).
"""
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted((ROOT / "resources" / "translations").glob("attnscope_*.ts"))


def key(message):
    return (message.findtext("source") or "", message.findtext("comment") or "")


def finished(translation):
    if translation is None or translation.get("type") in ("unfinished", "vanished", "obsolete"):
        return False
    forms = translation.findall("numerusform")
    return all((f.text or "").strip() for f in forms) if forms else bool((translation.text or "").strip())


def known(path):
    table = {}
    for message in ET.parse(path).getroot().iter("message"):
        translation = message.find("translation")
        if finished(translation):
            table.setdefault(key(message), translation)
    return table


def main():
    args = sys.argv[1:]
    others = []
    if "--from" in args:
        at = args.index("--from")
        others = [Path(a) for a in args[at + 1:]]
        args = args[:at]
    build = Path(args[0]) if args else ROOT / "build" / "dev"
    before = {path: known(path) for path in FILES}
    for other in others:
        for path in FILES:
            if other.name == path.name:
                for k, v in known(other).items():
                    before[path].setdefault(k, v)
    subprocess.run(["cmake", "--build", str(build), "--target", "attnscope_ui_lupdate"], check=True,
                   stdout=subprocess.DEVNULL)
    for path in FILES:
        text = path.read_text(encoding="utf-8")
        tree = ET.parse(path)
        filled, left = 0, []
        for message in tree.getroot().iter("message"):
            translation = message.find("translation")
            if finished(translation):
                continue
            old = before[path].get(key(message))
            if old is None:
                if translation is not None and translation.get("type") == "unfinished":
                    left.append(key(message)[0])
                continue
            message.remove(translation)
            carried = ET.fromstring(ET.tostring(old))
            carried.tail = translation.tail
            message.append(carried)
            filled += 1
        if filled:
            # Keep lupdate's own header (ElementTree drops the DOCTYPE line).
            body = ET.tostring(tree.getroot(), encoding="unicode")
            header = text[: text.index("<TS")]
            path.write_text(header + body + "\n", encoding="utf-8")
        print(f"{path.name}: {filled} carried over, {len(left)} unfinished")
        for source in left:
            print("   unfinished:", source[:100])
    # lupdate again, so that the files are in lupdate's own form (escapes, order) and the diff shows only
    # the moves.
    subprocess.run(["cmake", "--build", str(build), "--target", "attnscope_ui_lupdate"], check=True,
                   stdout=subprocess.DEVNULL)


if __name__ == "__main__":
    main()
