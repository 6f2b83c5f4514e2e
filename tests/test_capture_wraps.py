"""A capture read right stays read right when it reaches envcheck wrapped the way logs, pages and notebooks wrap
a tool's output (a metamorphic check on real captures: each wrap is applied to real nvidia-smi outputs of the
held-out sets, and the reading must equal the unwrapped one).

The wraps are the formats' own, from their documentation:
- containerd / CRI-O's CRI log lines ("2023-06-21T05:02:18.59015535Z stdout F <line>", kubelet's
  /var/log/pods/.../0.log: kubernetes/design-proposals-archive, node/kubelet-cri-logging.md);
- Docker's json-file driver ({"log":"<line>\\n","stream":"stdout","time":"..."}: docs.docker.com, "JSON File
  logging driver");
- BuildKit's plain progress ("#7 0.421 <line>": ``docker build --progress=plain``);
- Python logging's ``%(asctime)s - %(levelname)s - %(message)s`` (docs.python.org, logging cookbook);
- docker compose's service label ("ollama-1  | <line>");
- a page's <pre><code> block with HTML's escapes; Python's print of ``subprocess.check_output``'s bytes.
"""

import glob
import json
import os
from typing import Any, Callable, Dict, List, Tuple

import pytest

from envcheck.parse.nvidia_smi import parse_smi

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _reading(text: str) -> Tuple[Any, ...]:
    t = parse_smi(text)
    return (t.driver_version, t.cuda_version, tuple((g.index, g.name, g.memory_total_mib) for g in t.gpus),
            t.mig_devices, t.state)


def _per_line(label: Callable[[str], str]) -> Callable[[str], str]:
    return lambda s: "\n".join(label(ln) for ln in s.split("\n"))


WRAPS: Dict[str, Callable[[str], str]] = {
    "cri": _per_line(lambda ln: "2023-06-21T05:02:18.59015535Z stdout F " + ln),
    "docker-json-file": _per_line(lambda ln: json.dumps({"log": ln + "\n", "stream": "stdout",
                                                          "time": "2023-06-21T05:02:18.590155350Z"},
                                                         separators=(",", ":"))),
    "buildkit": _per_line(lambda ln: "#7 0.421 " + ln),
    "python-logging": _per_line(lambda ln: "2024-05-01 10:22:33,123 - INFO - " + ln),
    "compose": _per_line(lambda ln: "ollama-1  | " + ln),
    "pre-code": lambda s: "<pre><code>" + s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
                          + "</code></pre>",
    "bytes-repr": lambda s: repr(s.encode("utf-8")),
}


def _captures() -> List[str]:
    found = []
    for pattern in ("heldout/acceptance2*/captures/*.txt", "heldout/acceptance1*/captures/*.txt"):
        found += sorted(glob.glob(os.path.join(ROOT, pattern)))
    picked = []
    for form in ("table-", "q-", "L-", "csv-"):  # a few of each form, several driver eras
        picked += [f for f in found if os.path.basename(f).startswith(form)][:4]
    return picked


CAPTURES = _captures()


def test_there_are_real_captures_of_each_form():
    assert len(CAPTURES) >= 12


@pytest.mark.parametrize("wrap", sorted(WRAPS))
def test_a_wrapped_capture_reads_as_the_capture(wrap):
    read = 0
    for path in CAPTURES:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        plain = _reading(text)
        if not plain[2]:
            continue  # a capture with no GPU read: nothing to compare
        read += 1
        assert _reading(WRAPS[wrap](text)) == plain, os.path.basename(path)
    assert read >= 8


def test_json_log_lines_that_are_not_dockers_stay_as_they_are():
    line = '{"log":"| NVIDIA-SMI 535.54.03","level":"info"}'
    assert parse_smi(line).gpus == []


def test_a_huge_json_log_line_is_read_in_bounded_time():
    line = '{"log":"' + "x" * 200000 + '\\n","stream":"stdout"}'
    assert parse_smi("\n".join([line] * 20)).gpus == []
