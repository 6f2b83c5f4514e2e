"""The lead's session-7 forms: a container started without GPUs, seen from inside it with no ``docker run --gpus``
line in the text: a GPU image named by its tag (or a container's own shell prompt) and nvidia-smi missing there, which
the NVIDIA Container Toolkit mounts into every container it gives GPUs. Real texts: tests/data/pastes/lead31
(README.md cites each thread); the variants below each change one thing those texts show."""

import re
from pathlib import Path

import pytest

from envcheck.explain.document import explain_text_document

DATA = Path(__file__).resolve().parent / "data" / "pastes" / "lead31"
_ROW = re.compile(r"^\| (\S+\.txt) \| ([a-z0-9-]+) \| (https://github\.com/\S+) \|")
LABELS = {m.group(1): m.group(2) for m in map(_ROW.match, (DATA / "README.md").read_text().splitlines()) if m}


def _ids(text: str) -> list:
    return [m["id"] for m in explain_text_document(text)["matches"]]


def test_the_set_is_whole():
    assert sorted(LABELS) == sorted(p.name for p in DATA.glob("*.txt"))
    assert set(LABELS.values()) == {"no-gpu-visible", "none"}


#: labelled by the thread, not reached from the text alone (README.md says why): nothing else may be said instead
UNREACHED = {"nvidia-docker-341-from-nvidia-cuda-devel-nvidia-smi-not-found.txt",
             "code-server-922-container-prompt-nvidia-smi-not-found.txt"}


@pytest.mark.parametrize("name", sorted(LABELS))
def test_real_texts(name):
    ids = _ids((DATA / name).read_text())
    if LABELS[name] == "none":
        assert "no-gpu-visible" not in ids  # started with GPUs: the image lacks nvidia-smi, not the container GPUs
    elif name in UNREACHED:
        assert ids == []
    else:
        assert ids[:1] == [LABELS[name]]


IMAGE = "pytorch/pytorch:1.13.1-cuda11.6-cudnn8-devel"
SMI_MISSING = "bash: nvidia-smi: command not found"


def test_image_and_missing_nvidia_smi_is_a_container_without_gpus():
    doc = explain_text_document(f"I pulled {IMAGE} and started it.\n$ nvidia-smi\n{SMI_MISSING}\n")
    top = doc["matches"][0]
    assert top["id"] == "no-gpu-visible"
    assert "--gpus all" in top["fixes"][0] and IMAGE.split(":")[0] in top["fixes"][0]


@pytest.mark.parametrize("text", [
    f"$ nvidia-smi\n{SMI_MISSING}\n",  # a host: nothing shows a container (no driver installed is as likely)
    f"I pulled {IMAGE}.\n$ nvidia-smi\n{SMI_MISSING}\n>>> torch.cuda.is_available()\nTrue\n",  # a GPU reached there
    f"docker run --gpus all -it {IMAGE} bash\n{SMI_MISSING}\n",  # given GPUs: the image's own lack
    f"x = y.to('device:cuda0')\n{SMI_MISSING}\n",  # a device string, not an image tag
    f"I pulled {IMAGE}.\nCUDA available: False\n",  # no docker run line, and nvidia-smi not shown missing
    f"root@00921839c781:/app# nvidia-smi\n{SMI_MISSING}\n",  # a container, but nothing shows a GPU was meant in it
    f"user@box:~$ nvidia-smi\n{SMI_MISSING}\nthen: docker run -it {IMAGE} bash\n",  # the host's own, above the run
])
def test_what_does_not_show_it(text):
    assert "no-gpu-visible" not in _ids(text)
