"""attack56 (session 25): attacks on r2amd's ZLUDA / Adrenalin rule (engine.vendors_prose.zluda_adrenalin_broken).

The rule read ZLUDA named beside Adrenalin 25.5.1 as ``known-bad-combination`` whatever ZLUDA release the text names.
ZLUDA v3.9.5 supports that driver ("Enable AMD Adrenaline driver 25.5.1 support. closes #106", lshqqytiger/ZLUDA pull
request #109), and patientx/ComfyUI-Zluda#146 (a question whether to upgrade to 25.5.1, answered "Latest zluda 3.9.5
seems to work with it", a user later "rightnow it work just fine") was told the combination is broken.
"""

from __future__ import annotations

from envcheck.engine.vendors_prose import zluda_adrenalin_broken
from envcheck.explain.document import explain_text_document
from envcheck.matrix import load_matrix
from envcheck.paste.readers import prose_vendor

MATRIX = load_matrix()

#: patientx/ComfyUI-Zluda#146 (https://github.com/patientx/ComfyUI-Zluda/issues/146), as the thread reads (REAL)
THREAD_146 = """# Upgrade Driver AMD 25.5.1

Anonymzx · description · 2025-05-19
### Your question

Is it now possible to upgrade the AMD driver to version 25.5.1?

patientx · comment · 2025-05-19
Latest zluda 3.9.5 seems to work with it so f you use that , sure. (I haven't downloaded latest driver or used latest zluda) And one other thing I haven't looked into yet is , there seems to be a newer hip extension to use it zluda 3.9.5 (on zluda fork gitHub on the 3.9.5 download page) so if you decide to try 3.9.5 keep that in mind. As for why I am not including this in installer , we just changed everything , I just don't want to keep updating every component with every update. Let people first get a grip on how this new (for many) features work.

prescimo · comment · 2025-05-27
At first the first time you run and ComfyZluda i run it with 25.5.1 which comfy didnt boot up at all so i downgrade to 25.4.1 and comfyzluda just strat running after a day of imaggen or two my AMD driver update it without me knowing to 25.5.1 , but i can still run comfyzluda, trying to generate more image but rightnow it work just fine
"""


def _ids(text: str) -> list:
    return [m["id"] for m in explain_text_document(text).get("matches") or []]


def _keys(line: str) -> list:
    return [f.field for f in prose_vendor.line_facts(line, line.lower())]


def test_thread_naming_zluda_395_with_adrenalin_2551_is_no_bad_combination():
    assert "known-bad-combination" not in _ids(THREAD_146)


def test_zluda_release_read_off_its_name():
    assert "seen:zluda-version:3.9.5" in _keys("Latest zluda 3.9.5 seems to work with it so f you use that , sure.")
    assert "seen:zluda-version:3.9.5" in _keys("ZLUDA v3.9.5 (nightly) with Adrenalin 25.5.1")
    # a number that is not ZLUDA's own release: none
    assert not [k for k in _keys("ZLUDA with AMD driver 25.5.1 fails") if k.startswith("seen:zluda-version:")]


def test_rule_stays_for_an_older_zluda_and_goes_for_the_fixed_one():
    # constructed probe (boundary): the same two lines, ZLUDA's release before and at the one that supports the driver
    base = {"zluda-named": "x", "adrenalin-driver:25.5.1": "25.5.1 | AMD driver 25.5.1 with ZLUDA"}
    old = dict(base, **{"zluda-version:3.9.4": "ZLUDA 3.9.4"})
    new = dict(base, **{"zluda-version:3.9.5": "ZLUDA 3.9.5"})
    later = dict(base, **{"zluda-version:3.10": "ZLUDA 3.10"})
    assert zluda_adrenalin_broken(MATRIX, {}, base) is not None
    assert zluda_adrenalin_broken(MATRIX, {}, old) is not None
    assert zluda_adrenalin_broken(MATRIX, {}, new) is None
    assert zluda_adrenalin_broken(MATRIX, {}, later) is None


def test_matrix_row_records_the_fixing_release_with_its_source():
    row = next(r for r in MATRIX.rows("rocm", "zluda_adrenalin") if r.get("adrenalin") == "25.5.1")
    assert row.get("zluda_fixed") == "3.9.5"
    assert "https://github.com/lshqqytiger/ZLUDA/pull/109" in row.get("sources", [])


# --- r2amd's "with/using/on DirectML" fact (errors.toml block r2amd; engine.vendors.log_directml) ---------------------
#: the real wording of a denied DirectML ("Not using DirectML → Install `onnxruntime-directml`", a project's
#: troubleshooting page; "if not using DirectML", a README's GPU runtime step) put beside the assertion (constructed
#: probes: the sentence and the assertion together)
CPU_TORCH = "AssertionError: Torch not compiled with CUDA enabled"


def test_directml_denied_is_no_directml_at_work():
    for said in ("I'm not using DirectML, I installed the normal torch.",
                 "- Not using DirectML → Install `onnxruntime-directml`",
                 "It isn't using DirectML at all.",
                 "I stopped using DirectML and installed torch from pip."):
        ids = _ids(said + "\n" + CPU_TORCH + "\n")
        assert ids[:1] == ["framework-cpu-only"], (said, ids)


def test_directml_at_work_still_recasts():
    # r2amd's own wording stays read (lshqqytiger/stable-diffusion-webui-amdgpu#193: "Should work with DirectML")
    for said in ("Should work with DirectML, but:", "I launch it with --directml"):
        assert _ids(said + "\n" + CPU_TORCH + "\n")[:1] == ["framework-vendor-mismatch"], said
