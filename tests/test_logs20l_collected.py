"""Logs as log systems collect them (issue 20, logs20l): rsyslog's control-character escapes (``#012`` a line break,
``#011`` a tab: a multi-line message lands on one syslog line), JSON-lines records (Docker's json-file driver
``{"log":"...\\n","stream":"stderr","time":...}``, one record per printed line; CloudWatch / Loki / journald exports with
a whole multi-line message in one string, ``\\n`` and ``\\"`` escaped) and CR progress bars. The reader presents each
embedded line as the line it was when printed, so every signature and wrap join sees it as it was.

Real samples of the wrappers (cited): the rsyslog form of a Python traceback and the same traceback as printed, from
arvimal/ceph_check README.md ("Logging with rsyslog", 4f2a39c979bd1a22c80d0425566fa4f569bafb30); Docker json-file
records of a Flask container (a cat of /var/lib/docker/containers/<id>/<id>-json.log in a public DevOps-challenge
write-up, indexed by the code corpus). The GPU failures inside them are every real failure log of tests/data/logs
(sources in tests/data/logs/README.md), wrapped the way each collector writes a message: rsyslog's escape
(``$EscapeControlCharactersOnReceive``, the default), Docker's encoder (one record per line, Go's encoding/json
escapes, ``<`` as ``\\u003c``), an export's one record per message. The oracle is explain's own reading of the same
log unwrapped: the wrapper must change nothing."""

import io
import json
import os

import pytest

from envcheck.explain import explain_stream, explain_text
from envcheck.explain.reader import unfold

LOGS = os.path.join(os.path.dirname(__file__), "data", "logs")

#: arvimal/ceph_check README.md: one rsyslog line holding a traceback, then the traceback as Python printed it
CEPH_SYSLOG = ('Aug 21 19:00:30 rhel7 ceph_check: ERROR: integer division or modulo by zero#012Traceback (most recent '
               'call last):#012  File "ceph_check.py", line 266, in <module>#012    checker.cc_condition()#012  File '
               '"ceph_check.py", line 72, in cc_condition#012    self.check_keyring()#012  File "ceph_check.py", line '
               '92, in check_keyring#012    1 / 0#012ZeroDivisionError: integer division or modulo by zero')
CEPH_PRINTED = """Traceback (most recent call last):
  File "ceph_check.py", line 266, in <module>
    checker.cc_condition()
  File "ceph_check.py", line 72, in cc_condition
    self.check_keyring()
  File "ceph_check.py", line 92, in check_keyring
    1 / 0
ZeroDivisionError: integer division or modulo by zero"""

#: Docker json-file records as cat printed them (a Flask container; "\\"" inside the log string)
DOCKER_RECORDS = [
    '{"log":" * Running on http://0.0.0.0:5000/ (Press CTRL+C to quit)\\n","stream":"stderr",'
    '"time":"2018-07-25T19:04:07.429981175Z"}',
    '{"log":"172.18.0.1 - - [25/Jul/2018 19:04:18] \\"GET / HTTP/1.1\\" 200 -\\n","stream":"stderr",'
    '"time":"2018-07-25T19:04:18.4228346Z"}',
]


def test_an_rsyslog_line_is_the_lines_it_was_printed_as():
    got = unfold(CEPH_SYSLOG)
    assert got[0] == "Aug 21 19:00:30 rhel7 ceph_check: ERROR: integer division or modulo by zero"
    assert got[1:] == CEPH_PRINTED.split("\n")
    assert unfold("a#011b") == ["a\tb"]


def test_a_docker_record_is_the_line_it_holds_with_its_escapes_undone():
    assert unfold(DOCKER_RECORDS[0]) == [" * Running on http://0.0.0.0:5000/ (Press CTRL+C to quit)"]
    assert unfold(DOCKER_RECORDS[1]) == ['172.18.0.1 - - [25/Jul/2018 19:04:18] "GET / HTTP/1.1" 200 -']


@pytest.mark.parametrize("line", [
    "plain text", "", "{not json", '{"a": 1}', '{"log": 5}', "[1, 2]", "GPU #0 at 80C", "C:\\new\\nvidia\\x.dll",
    # a record cut short still gives what it holds of its message; one with no message field is left as it is
])
def test_a_line_that_is_no_collectors_form_is_left_as_it_is(line):
    assert unfold(line) is None


def test_a_record_cut_short_keeps_what_it_holds():
    assert unfold('{"log":"RuntimeError: CUDA error: out of memory\\nCUDA kernel errors might be asyn') == [
        "RuntimeError: CUDA error: out of memory", "CUDA kernel errors might be asyn"]


def _logs():
    return sorted(f for f in os.listdir(LOGS) if f.endswith(".log"))


def _read(name):
    with open(os.path.join(LOGS, name), encoding="utf-8", errors="replace") as fh:
        return fh.read().replace("\r\n", "\n").replace("\r", "\n")


def _syslog(text):
    # rsyslog: one message per line, its breaks as #012 and its tabs as #011
    return "Jun 30 11:07:05 gpu-0 python3[1234]: " + text.rstrip("\n").replace("\t", "#011").replace("\n", "#012") + "\n"


def _go_json(obj):
    # Go's encoding/json (Docker's encoder) escapes <, > and & as \u003c, \u003e, \u0026
    s = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    return s.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _docker(text):
    return "".join(_go_json({"log": ln + "\n", "stream": "stderr", "time": "2024-08-19T09:36:16.972328944Z"}) + "\n"
                   for ln in text.rstrip("\n").split("\n"))


def _export(text):
    # one record per message (CloudWatch "message", Loki "line"): the whole text in one string
    return json.dumps({"timestamp": 1700000000000, "message": text}) + "\n"


def _key(ms):
    return [(m.id, sorted(m.captures.items())) for m in ms[:3]]


def _stream(text):
    return explain_stream(io.BytesIO(text.encode("utf-8"))).matches


@pytest.mark.parametrize("wrap", [_syslog, _docker, _export])
def test_every_real_failure_log_reads_the_same_through_each_collector(wrap):
    names = _logs()
    assert len(names) > 50
    differ = []
    for name in names:
        text = _read(name)
        plain = _key(_stream(text))
        if _key(_stream(wrap(text))) != plain or _key(explain_text(wrap(text))) != plain:
            differ.append(name)
    assert not differ, differ


def test_a_healthy_collected_log_stays_silent():
    text = "\n".join(DOCKER_RECORDS) + "\n" + _syslog("epoch 1/10\n\tloss 0.41") + CEPH_SYSLOG + "\n"
    assert _stream(text) == []


def test_the_kernel_modules_mismatch_through_syslog_reads_both_versions():
    line = ("Jun 30 11:07:05 gpu-0 kernel: NVRM: API mismatch: the client has the version 260.19.44, but#012NVRM: this "
            "kernel module has the version 260.19.06.  Please#012NVRM: make sure that this kernel module and all "
            "NVIDIA driver#012NVRM: components have the same version.\n")
    for ms in (_stream(line), explain_text(line)):
        assert ms[0].id == "driver-library-mismatch"
        assert ms[0].captures.get("dso_version") == "260.19.44"
        assert ms[0].captures.get("kernel_version") == "260.19.06"


def test_a_long_run_of_escapes_is_read_in_bounded_lines():
    # linear and bounded: a 2 MB syslog line of "#012" gives at most MAX_LINE-bounded lines, and explain ends
    text = "x: " + "#012" * 500000 + "RuntimeError: CUDA error: out of memory\n"
    ms = _stream(text)
    assert isinstance(ms, list)


# --- TensorFlow's cuda_diagnostics pair: "libcuda reported version is: X" / "kernel reported version is: Y" ---------
# Real lines (public notebooks' and posts' outputs, found with the code corpus): the pair as TF 1.x-2.x print it after a
# failed cuInit; the pastes below stop before TF's own "kernel version ... does not match DSO version" line (a paste cut
# short), so the two facts are all there is. Equal pairs (an HPC job's output, TF 1.x; 2018 README) must stay silent.

MISMATCH = [
    # a 2021 setup note (TF 2.x, stream_executor/cuda/cuda_diagnostics.cc:192/196)
    ("2021-09-13 23:57:29.694668: I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:192] libcuda reported version "
     "is: 470.57.2\n2021-09-13 23:57:29.694689: I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:196] kernel "
     "reported version is: 460.56.0\n", "470.57.2", "460.56.0"),
    # an OpenVINO notebook's rendered output (TF 2.13, compiler/xla/stream_executor), indented as the notebook shows it
    ("    2023-11-14 22:30:50.201646: I tensorflow/compiler/xla/stream_executor/cuda/cuda_diagnostics.cc:199] libcuda "
     "reported version is: 470.223.2\n    2023-11-14 22:30:50.201662: I tensorflow/compiler/xla/stream_executor/cuda/"
     "cuda_diagnostics.cc:203] kernel reported version is: 470.182.3\n", "470.223.2", "470.182.3"),
    # a 2025 notebook (TF 2.18, external/local_xla)
    ("    2025-01-27 13:52:31.859553: I external/local_xla/xla/stream_executor/cuda/cuda_diagnostics.cc:168] libcuda "
     "reported version is: 560.35.5\n    2025-01-27 13:52:31.859574: I external/local_xla/xla/stream_executor/cuda/"
     "cuda_diagnostics.cc:172] kernel reported version is: 550.120.0\n", "560.35.5", "550.120.0"),
]

MATCHING = [
    "2019-03-21 07:32:11.514896: I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:192] libcuda reported version is: "
    "396.64.0\n2019-03-21 07:32:11.514941: I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:196] kernel reported "
    "version is: 396.64.0\n2019-03-21 07:32:11.514950: I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:303] kernel "
    "version seems to match DSO: 396.64.0\n",
    "2018-06-06 14:39:35.676664: I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:189] libcuda reported version is: "
    "384.111.0\n2018-06-06 14:39:35.676699: I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:193] kernel reported "
    "version is: 384.111.0\n",
]


@pytest.mark.parametrize("text,dso,kernel", MISMATCH)
def test_the_cuda_diagnostics_pair_that_differs_is_the_driver_library_mismatch(text, dso, kernel):
    for ms in (_stream(text), explain_text(text)):
        assert ms and ms[0].id == "driver-library-mismatch"
        assert ms[0].captures == {"dso_version": dso, "kernel_version": kernel}
        assert dso in ms[0].evidence and kernel in ms[0].evidence


@pytest.mark.parametrize("text", MATCHING)
def test_the_cuda_diagnostics_pair_that_agrees_says_nothing(text):
    assert _stream(text) == [] and explain_text(text) == []


def test_one_half_of_the_pair_alone_says_nothing():
    assert _stream(MISMATCH[0][0].split("\n")[0] + "\n") == []
    assert _stream(MISMATCH[0][0].split("\n")[1] + "\n") == []


def test_with_tfs_own_mismatch_line_the_pair_adds_no_second_match():
    text = MISMATCH[0][0] + ("2021-09-13 23:57:29.694695: E tensorflow/stream_executor/cuda/cuda_diagnostics.cc:306] "
                             "kernel version 460.56.0 does not match DSO version 470.57.2 -- cannot find working devices "
                             "in this configuration\n")
    ms = _stream(text)
    assert [m.id for m in ms].count("driver-library-mismatch") == 1
    assert ms[0].captures.get("dso_version") == "470.57.2"


def test_the_engine_compares_driver_versions_not_strings():
    from envcheck.engine.rules import driver_pair_differs

    assert driver_pair_differs("384.111.0", "384.111") is False
    assert driver_pair_differs("470.57.2", "460.56.0") is True
    assert driver_pair_differs(None, "460.56.0") is None
    assert driver_pair_differs("Not found", "460.56.0") is None


def test_a_big_collected_log_is_read_whole_its_marks_late_in_it():
    # a log bigger than one read block: a syslog file whose one multi-line message comes after megabytes of lines, and
    # a Docker json-file log; the failure must be read as it is in the short text
    failure = _read("nvml-mismatch-tinygrad-570.log")
    plain = _key(_stream(failure))
    assert plain
    filler = "".join("Jun 30 11:%02d:%02d gpu-0 systemd[1]: Started Session %d of user root.\n" % (i // 60 % 60, i % 60, i)
                     for i in range(40000))
    assert _key(_stream(filler + _syslog(failure))) == plain
    records = _docker("epoch 1 step %d loss 0.5" % 7) * 30000
    assert _key(_stream(records + _docker(failure))) == plain
