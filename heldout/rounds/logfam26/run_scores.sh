#!/bin/bash
# usage: scores26/run_scores.sh TAG [CODE_DIR]: every set the brief names (score_explain's defaults and sets, score_pastes'
# per-set lines), scored with the code of CODE_DIR (default: this checkout) over this checkout's data; output scores26/TAG-*.txt
here="$(cd "$(dirname "$0")/.." && pwd)"
code=${2:-$here}
tag=$1
py=$here/.venv/bin/python
cd "$code" || exit 1
export PYTHONPATH=$code
nice $py scripts/score_explain.py > $here/scores26/$tag-default.txt 2>&1
nice $py scripts/score_explain.py heldout/logs*/ heldout/vlogs*/ heldout/vsrc*/ heldout/vfam25-held/logs \
  heldout/acceptance1*/logs tests/data/logs/*/ heldout/vendor-logs*/ heldout/vendors*/ heldout/logfam26-held \
  > $here/scores26/$tag-sets.txt 2>&1
nice $py scripts/score_pastes.py tests/data/pastes/*/ heldout/pastes*/ heldout/facts2*/ \
  heldout/acceptance1*/pastes > $here/scores26/$tag-pastes.txt 2>&1
echo done > $here/scores26/$tag-done
