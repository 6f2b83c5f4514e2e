"""Session 23, the lead: the GPU + CUDA sentence reader keeps the CUDA that fails.

``seen:gpu-cuda-pair`` (envcheck/paste/readers/prose_cause.py) takes the oldest CUDA a sentence names with a GPU: an
upgrade "from 10.2 to 11.1" names the failing one first. Where the sentence says the move did not help ("still fails",
"the same error"), the CUDA the user left is no longer the one failing: the newer one is (found by newgpu39: "upgraded
from CUDA 10.2 to 11.3 ... still fails" was judged on 10.2, which cannot target an RTX 3090)."""

from __future__ import annotations

import pytest

from envcheck.paste.readers.prose_cause import _pair


def _cuda(sentence):
    f = _pair(sentence)
    return f.value.split(" | ")[1] if f else None


@pytest.mark.parametrize("sentence, want", [
    ("I upgraded from CUDA 10.2 to 11.3 on my RTX 3090 but it still fails.", "11.3"),
    ("Moved the RTX 3090 box from CUDA 10.1 -> 11.0, same error.", "11.0"),
    ("RTX 3090 with CUDA 10.2 and CUDA 11.3 gives the same error.", "11.3"),
    ("I moved my RTX 3090 from CUDA 10.2 to CUDA 11.1 and it works now.", "10.2"),
    ("RTX 3090 with CUDA 10.2 fails.", "10.2"),
])
def test_the_cuda_that_fails(sentence, want):
    assert _cuda(sentence) == want
