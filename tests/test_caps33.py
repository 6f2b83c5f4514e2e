"""nvidia-smi captures in the forms users bring them (issue 20, caps33; contract §1): every capture of
tests/data/caps33 (real, cited in its README.md; labels written by hand from the text before the readers were changed,
heldout/caps33-held holds the part held back) is read as its label says. The same capture read out of a log (a time
stamp, a klog head or a runner label before every line), a Markdown quote, a CRLF file, an HTML-escaped page or a
JSON string is read the same (:mod:`envcheck.parse.line_prefix`, :func:`envcheck.parse.nvidia_smi.clean_capture`); a text that is not
nvidia-smi (``dmon``, ``pmon``, ``topo -m``, ``rocm-smi``) stays unknown, never a failure and never a GPU."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import status_of_files

from envcheck.parse import line_prefix, nvidia_smi

DATA = Path(__file__).parent / "data" / "caps33"
KEYS = ("form", "driver_version", "cuda_version", "gpus", "gpus_complete", "state", "mig")


def _names():
    return sorted(p.name[: -len(".expect.json")] for p in DATA.glob("*.expect.json"))


def _read(name: str) -> str:
    return (DATA / f"{name}.txt").read_text(encoding="utf-8")


def _exp(name: str) -> dict:
    return json.loads((DATA / f"{name}.expect.json").read_text(encoding="utf-8"))


def _got(t: nvidia_smi.SmiTable) -> dict:
    return {"form": t.form, "driver_version": t.driver_version, "cuda_version": t.cuda_version,
            "gpus": [{"index": g.index, "name": g.name, "memory_total_mib": g.memory_total_mib} for g in t.gpus],
            "gpus_complete": t.gpus_complete, "state": t.state,
            "mig": t.mig_devices > 0 or any(g.mig_enabled for g in t.gpus)}


def _bad(exp: dict, text: str) -> list:
    got = _got(nvidia_smi.parse_smi(text))
    return [(k, exp[k], got[k]) for k in KEYS if k in exp and exp[k] != got[k]]


@pytest.mark.parametrize("name", _names())
def test_capture_read_as_labelled(name):
    assert _bad(_exp(name), _read(name)) == []


def test_every_capture_is_cited():
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    files = sorted(DATA.glob("*.txt"))
    assert len(files) >= 25
    for p in files:
        row = next((ln for ln in readme.splitlines() if f"`{p.name}`" in ln), "")
        assert "find_string id " in row, p.name


# what a log writer, a quote or a file format puts around every line of an output (real writers' shapes: docker logs -t
# / kubectl logs --timestamps, GitHub Actions' 7-digit stamp, klog, kubectl logs --prefix, a CI step's "[stdout]")
WRAPS = {
    "docker-logs-t": lambda t: "\n".join("2024-06-25T18:45:27.095437505Z " + ln for ln in t.split("\n")),
    "github-actions": lambda t: "\n".join("2025-01-07T09:12:03.1234567Z " + ln for ln in t.split("\n")),
    "python-logging": lambda t: "\n".join("2024-05-01 10:00:00,123 INFO " + ln for ln in t.split("\n")),
    "python-logging-default": lambda t: "\n".join("2024-10-19 01:10:47,712 - root - INFO - " + ln for ln in t.split("\n")),
    "loguru": lambda t: "\n".join("2024-05-01 10:00:00.123 | INFO     | app.gpu:probe:42 - " + ln for ln in t.split("\n")),
    "klog": lambda t: "\n".join("I0501 10:00:00.000000       1 main.go:42] " + ln for ln in t.split("\n")),
    "kubectl-prefix": lambda t: "\n".join("[pod/trainer-0/main] " + ln for ln in t.split("\n")),
    "stamp-and-label": lambda t: "\n".join("[stdout] 2024-05-01T10:00:00Z " + ln for ln in t.split("\n")),
    "markdown-quote": lambda t: "\n".join("> " + ln for ln in t.split("\n")),
    "crlf": lambda t: t.replace("\n", "\r\n"),
    "html-escaped-page": lambda t: t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"),
    "json-string": json.dumps,
}


@pytest.mark.parametrize("wrap", sorted(WRAPS))
@pytest.mark.parametrize("name", _names())
def test_capture_read_the_same_inside_a_log_a_quote_or_a_string(name, wrap):
    if len(_read(name).strip().split("\n")) < 3 and wrap == "kubectl-prefix":
        pytest.skip("a runner label is taken off three lines or more only")
    assert _bad(_exp(name), WRAPS[wrap](_read(name))) == []


def test_a_wrapped_capture_is_read_in_a_snapshot(tmp_path):
    text = WRAPS["klog"](_read("L-2x-v100-slurm-srun-prompt"))
    doc = status_of_files(tmp_path, {"nvidia-smi.txt": text})
    assert doc["driver"]["nvidia_smi_form"] == "nvidia-smi -L"


def test_detect_names_the_kind_most_lines_carry():
    text = WRAPS["docker-logs-t"](_read("q-d-memory-545.29.06-python-docstring"))
    got = line_prefix.detect(text)
    assert got is not None and got.kind == "time stamp" and got.lines == got.nonblank
    assert line_prefix.strip(text, got) == _read("q-d-memory-545.29.06-python-docstring")


@pytest.mark.parametrize("name", ["q-d-memory-545.29.06-python-docstring", "t418.67-8x-v100-python-string-tabs-escaped",
                                  "csv-name-mem-pcie-h200-elided", "L-4x-v100-hash-comment-bats",
                                  "w538.78-a2000-laptop-nvidia-smi-exe-prompt"])
def test_an_output_as_printed_is_left_as_it_is(name):
    """nvidia-smi's own lines ("Timestamp : ...", ">nvidia-smi.exe", "#GPU 0: ...", a table's borders) are no label."""
    assert line_prefix.detect(_read(name)) is None
    assert line_prefix.strip_line_prefixes(_read(name)) == _read(name)


def test_a_table_border_after_a_stamp_is_kept():
    """The "|" after a log's time stamp is the table's own border ("...Z |   0  NVIDIA A100 ..."), not a separator."""
    line = "2024-06-25T18:45:27.095437505Z |   0  NVIDIA A100 80GB PCIe          On  | 00000000:17:00.0 Off |"
    assert line_prefix.strip_line_prefixes(line) == line[len("2024-06-25T18:45:27.095437505Z "):]


def test_labels_that_differ_from_line_to_line_are_no_runner_label():
    """gpustat's "[0] ...", "[1] ..." and a prompt's "[user@node ~]$" are content, not one label on every line."""
    text = ("[0] NVIDIA A100-SXM4-80GB | 31'C,   0 % |     4 / 81920 MB |\n"
            "[1] NVIDIA A100-SXM4-80GB | 30'C,   0 % |     4 / 81920 MB |\n"
            "[2] NVIDIA A100-SXM4-80GB | 32'C,   0 % |     4 / 81920 MB |\n")
    assert line_prefix.strip_line_prefixes(text) == text


def test_a_line_that_only_mentions_a_time_is_kept():
    text = "Timestamp                                 : Mon Mar  4 21:21:24 2024\nDriver Version : 545.29.06\n"
    assert line_prefix.strip_line_prefixes(text) == text


@pytest.mark.parametrize("name", ["dmon-c3-root-prompt-zh", "dmon-docker-exec-root-prompt", "dmon-ecc-pci-columns-2gpu",
                                  "topo-m-b300-cx8-root-prompt", "topo-m-4gpu-nv2-zh-blog",
                                  "topo-m-8gpu-mlx5-backticked-command", "rocm-smi-a-2016-markdown-hash-mangled"])
def test_a_text_without_a_gpu_list_is_unknown_at_every_cut(name):
    """Every line-cut (a paste cut anywhere), also inside a log: no GPU, no list, no state, no error, no driver."""
    lines = _read(name).splitlines(keepends=True)
    for n in range(1, len(lines) + 1):
        for text in ("".join(lines[:n]), WRAPS["docker-logs-t"]("".join(lines[:n]))):
            t = nvidia_smi.parse_smi(text)
            assert (t.gpus, t.gpus_complete, t.state, t.error, t.driver_version) == ([], None, None, None, None), n


def test_json_escapes_are_undone_in_one_pass():
    """An escaped backslash before an "n" stays a backslash ("C:\\\\new" is a path, not a line break); "\\u2502" is
    the box character json.dumps wrote as ASCII."""
    assert nvidia_smi.clean_capture('"C:\\\\new\\n\\u2502 x\\n"') == "C:\\new\n| x"


@pytest.mark.parametrize("wrap", ["docker-logs-t", "github-actions", "klog", "kubectl-prefix"])
@pytest.mark.parametrize("name", ["L-2x-v100-slurm-srun-prompt", "w538.78-a2000-laptop-nvidia-smi-exe-prompt",
                                  "t375.51-2x-p40-zh-hash-prompt", "csv-name-mem-pcie-h200-elided"])
def test_a_pasted_log_is_read_as_the_output_under_it(name, wrap):
    """A paste (``envcheck explain``) of the same output inside a log: the same forms, the same GPUs and driver."""
    from envcheck.paste import read_report

    def seen(text: str) -> tuple:
        r = read_report(text)
        smi = nvidia_smi.parse_smi(r.captures.get("nvidia-smi.txt") or r.captures.get("nvidia-smi-query.csv"))
        return r.formats, _got(smi)["gpus"], smi.driver_version

    plain = seen(_read(name))
    assert plain[0] and plain[1]  # the output itself is read (else the test would prove nothing)
    assert seen(WRAPS[wrap](_read(name))) == plain


def test_a_pasted_threads_quote_marks_are_kept_for_the_report_readers():
    """The paste side takes off a log's labels only: a thread's "> " says who wrote the lines (kept for its readers)."""
    text = "> line one\n> line two\n> line three\n"
    assert line_prefix.strip_log_prefixes(text) == text
    assert line_prefix.strip_line_prefixes(text) == "line one\nline two\nline three\n"
