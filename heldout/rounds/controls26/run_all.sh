#!/bin/bash
# usage: scores26c/run_all.sh OUTPREFIX  -- every other set, explain logs + pastes (per-set lines)
cd "$(dirname "$0")/.."
P=$1
.venv/bin/python scripts/score_explain.py > "$P-explain-default.txt" 2>&1
.venv/bin/python scripts/score_explain.py heldout/logs*/ heldout/vlogs*/ heldout/acceptance1*/logs tests/data/logs/*/ > "$P-explain-sets.txt" 2>&1
.venv/bin/python scripts/score_pastes.py tests/data/pastes/*/ heldout/pastes*/ heldout/facts2*/ heldout/acceptance1*/pastes > "$P-pastes.txt" 2>&1
