"""A requirements file's pins are what someone asks pip for, not what is installed (lead, session 9).

A reply in tonybaloney/CSnakes#750 suggested ``--extra-index-url .../cu128`` then ``torch==2.9.1+cu128``; explain read
that block as the reporter's installed torch (a CUDA build the reporter did not have, beside "torch cpu version
installed"). ``pip freeze`` never prints an index option, so ``name==version`` rows under one are a requirements
file's: no installed fact. A ``pip freeze`` block, a bullet build string and a bare ``torch==`` line stay read."""

from __future__ import annotations

import pytest

from envcheck.explain.document import explain_text_document


def _torch(text: str):
    return ((explain_text_document(text).get("facts") or {}).get("frameworks") or {}).get("torch")


@pytest.mark.parametrize("option", ["--extra-index-url https://download.pytorch.org/whl/cu128",
                                    "--index-url https://download.pytorch.org/whl/cu121",
                                    "-f https://download.pytorch.org/whl/torch_stable.html",
                                    "--find-links https://download.pytorch.org/whl/torch_stable.html"])
@pytest.mark.parametrize("pin", ["torch==2.9.1+cu128", "torch==2.1.0"])
def test_a_pin_under_a_requirements_option_is_not_the_installed_torch(option, pin):
    text = f"Example using cu128:\n```\n{option}\n{pin}\ntorchvision==0.24.1+cu128\n```\n"
    assert _torch(text) is None


@pytest.mark.parametrize("block", [
    "```\ntorch==2.1.0+cu121\ntorchvision==0.16.0+cu121\nnumpy==1.26.4\n```",          # pip freeze
    "- torch 2.1.0+cu121\n- Python 3.10",                                                # a bullet build string
    "```\n--extra-index-url https://download.pytorch.org/whl/cu121\n```\n\n```\ntorch==2.1.0+cu121\n```",  # another block
])
def test_installed_versions_are_still_read(block):
    got = _torch(block)
    assert got is not None and got.get("version") == "2.1.0+cu121", got
