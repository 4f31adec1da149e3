#!/usr/bin/env bash
# The pictures in docs/screenshots/: every main view of AttnScope in English and Turkish, at 1280×800 and
# 1920×1080, each taken by the app itself (`attnscope --screenshot`) inside its own Xvfb screen of that
# size, with fresh settings. Then reduced to 256 colours (pngquant, else ImageMagick) so that the
# repository stays small.
#
#   tools/screenshots.sh [BUILD_DIR [OUT_DIR]]   (default build/dev and docs/screenshots; `tools/dev
#                                                  screenshots` builds first)
#   tools/screenshots.sh --list                   (prints each shot's name and arguments, takes none)
#
# With an OUT_DIR other than docs/screenshots the pictures are kept as the app wrote them (not reduced), for
# tools/compare-screenshots.sh to compare two builds pixel by pixel.
#
# Needs xvfb-run, and pngquant or ImageMagick's convert. Look at every picture before committing them.
set -euo pipefail
cd "$(dirname "$0")/.."

LIST=0
[ "${1:-}" = --list ] && { LIST=1; shift; }
BIN="${1:-build/dev}/app/attnscope"
OUT="${2:-docs/screenshots}"
[ "$LIST" = 1 ] || [ -x "$BIN" ] || { echo "screenshots.sh: $BIN not found; build first (cmake --build --preset dev)" >&2; exit 2; }
[ "$LIST" = 1 ] || command -v xvfb-run >/dev/null || { echo "screenshots.sh: xvfb-run is missing (apt-get install xvfb xauth)" >&2; exit 2; }
if [ "$LIST" = 1 ] || [ "$OUT" != docs/screenshots ]; then
  shrink() { :; }
elif command -v pngquant >/dev/null; then
  shrink() { pngquant --force --skip-if-larger --quality 70-95 --speed 1 --output "$1" -- "$1" || true; }
elif command -v convert >/dev/null; then
  shrink() { convert "$1" -dither None -colors 256 "PNG8:$1.tmp" && mv "$1.tmp" "$1"; }
else
  echo "screenshots.sh: install pngquant or imagemagick to keep the pictures small" >&2; exit 2
fi
[ "$LIST" = 1 ] || mkdir -p "$OUT"

# The built-in encoder when this tree has it (else the synthetic demo), on the Winograd sentence with a
# [MASK] (the predictions panel fills it). No --head: with fresh settings the window opens on the model's
# strongest sink or [SEP] head, as a first start does (issue 36, point 2), so each shot shows what a new
# user sees; a shot that is about one particular head names it with --head in its own arguments.
MODEL=tiny-bert-en-tr
[ -f resources/models/$MODEL/config.json ] || MODEL=synthetic-encoder
declare -A TEXT=(
  [en]="The trophy didn't fit into the [MASK] because it was too big."
  [tr]="Kupa [MASK] sığmadı çünkü çok büyüktü."
)

# name | arguments after --lang/--model/--text
SHOTS=(
  "explorer|--view heatmap"
  "comparison|--view comparison"
  "arcs|--view arcs"
  "statistics|--view statistics"
  "presenter|--view heatmap --presenter"
  "lesson|--lesson"
)

shoot() { # size lang name args...
  local size=$1 lang=$2 name=$3; shift 3
  local file="$OUT/$name-$lang-${size}.png" config
  if [ "$LIST" = 1 ]; then echo "$name-$lang-$size: $*"; return 0; fi
  config=$(mktemp -d)
  # Each picture starts from fresh settings: nothing remembered from the last one or from the user (unless
  # SETTINGS gives the settings file's text: a remembered session).
  if [ -n "${SETTINGS:-}" ]; then mkdir -p "$config/AttnScope"; printf '%s\n' "$SETTINGS" > "$config/AttnScope/attnscope.conf"; fi
  XDG_CONFIG_HOME="$config" XDG_RUNTIME_DIR="$config" LANGUAGE="$lang" \
    xvfb-run -a -s "-screen 0 ${size}x24 -dpi 96" "$BIN" --lang "$lang" "$@" --screenshot "$file" 2> "$config/log" ||
    { cat "$config/log" >&2; rm -rf "$config"; return 1; }
  rm -rf "$config"
  shrink "$file"
}

for size in 1280x800 1920x1080; do
  for lang in en tr; do
    for shot in "${SHOTS[@]}"; do
      name=${shot%%|*}
      read -r -a extra <<<"${shot#*|}"
      if [ "$name" = lesson ]; then
        shoot "$size" "$lang" "$name" --model worked-example "${extra[@]}"
      else
        shoot "$size" "$lang" "$name" --model "$MODEL" --text "${TEXT[$lang]}" "${extra[@]}"
      fi
    done
  done
done
# The guided list ("Get a model"), as a new user first sees it: an empty HOME and Hugging Face cache, so only
# the built-in models are found and the list is the page shown (at 1280x800 only, as docs/models.md shows it).
for lang in en tr; do
  home=$(mktemp -d)
  HOME="$home" HF_HOME="$home/hf" HF_HUB_CACHE= OLLAMA_MODELS= LLAMA_CACHE= XDG_CACHE_HOME= \
    shoot 1280x800 "$lang" guided-models
  rm -rf "$home"
done
# File > Get a model…, as the guided list's Download opens it for the StreamingLLM decoder: prefilled, idle,
# nothing fetched (no network is needed), over the same fresh window as above.
for lang in en tr; do
  home=$(mktemp -d)
  # HF_HOME unset: the dialog names the default cache, ~/.cache/huggingface/hub.
  (unset HF_HOME; HOME="$home" HF_HUB_CACHE= OLLAMA_MODELS= LLAMA_CACHE= XDG_CACHE_HOME= \
    shoot 1280x800 "$lang" get-model --get-model HuggingFaceTB/SmolLM2-135M)
  rm -rf "$home"
done
# The first start (issue 36, point 2), on the heatmap: no model, text or head given, so the default model and
# text open on their strongest sink or [SEP] head, with the first-run hint above.
# Only the built-in models (an empty HOME and caches, as for the guided list), so the default is theirs.
for lang in en tr; do
  home=$(mktemp -d)
  HOME="$home" HF_HOME="$home/hf" HF_HUB_CACHE= OLLAMA_MODELS= LLAMA_CACHE= XDG_CACHE_HOME= \
    shoot 1280x800 "$lang" first-start --view heatmap
  rm -rf "$home"
done
# The window always opens (issue 36, point 7): the last session's model has lost its weights (a model folder
# with only config.json), so the window opens on the built-in model with the failure on its banner, in the
# window's language.
for lang in en tr; do
  broken=$(mktemp -d)
  mkdir -p "$broken/my-model"
  [ "$LIST" = 1 ] || cp "resources/models/$MODEL/config.json" "$broken/my-model/" 2>/dev/null ||
    echo '{"model_type": "bert"}' > "$broken/my-model/config.json"
  HOME="$broken" HF_HOME="$broken/hf" HF_HUB_CACHE= OLLAMA_MODELS= LLAMA_CACHE= XDG_CACHE_HOME= \
    SETTINGS=$'[models]\nlast='"$broken/my-model" shoot 1280x800 "$lang" model-failure --view heatmap
  rm -rf "$broken"
done
[ "$LIST" = 1 ] || du -ch "$OUT"/*.png | tail -1
