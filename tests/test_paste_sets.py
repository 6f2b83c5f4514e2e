"""Every labelled real paste of tests/data/pastes/dev and dev2 (issue 13 part 2), end to end through
``envcheck explain --json --no-detect``: the top cause equals the label the issue thread established
(``none`` = a healthy control: no match at all), and ``facts`` equal the hand-written ``.facts.json``.
The pastes not recognised yet are marked xfail(strict): the day one is recognised the mark must go.
Unit tests of the readers added for the second round run on the real pastes they were written for.
heldout/ is never read here."""

from __future__ import annotations

import json
import os
import re
from typing import Any, Dict

import pytest
from click.testing import CliRunner

from envcheck.cli import cli
from envcheck.paste import PasteSource, read_report

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SETS = {s: os.path.join(ROOT, "tests", "data", "pastes", s) for s in ("dev", "dev2")}
_ROW = re.compile(r"^\|\s*`?([^|`\s]+\.txt)`?\s*\|\s*`?([a-z0-9-]+)`?\s*\|")

#: pastes whose cause is not recognised yet, and why (the evidence is not in the paste, or not in this layer)
NOT_YET = {
    "detectron2-693-collect-env-8x-2080ti-no-kernel-image.txt": "no error line in the excerpt; torch 1.3.1 has sm_75",
    "tf-41736-template-tf2.2-nvcc-10.2-version-txt-11.0-libcudnn7.txt": "the libcudnn.so.7 error is only in the title",
    "vllm-4187-collect-env-v100-driver-495-no-kernel-image.txt": "no error line in the excerpt; torch has sm_70",
    "jax-18027c-pip-list-grep-nvidia-cu12-found-cublas-120205.txt": "no errors.toml signature for 'Found cuBLAS version'",
}


def labelled():
    out = []
    for set_name, folder in SETS.items():
        with open(os.path.join(folder, "README.md"), encoding="utf-8") as fh:
            for line in fh:
                m = _ROW.match(line)
                if m and os.path.exists(os.path.join(folder, m.group(1))):
                    out.append((set_name, m.group(1), m.group(2)))
    return out


CASES = labelled()


def explain_json(path: str) -> Dict[str, Any]:
    res = CliRunner().invoke(cli, ["explain", path, "--json", "--no-detect"])
    assert res.exit_code in (0, 1), res.output[-500:]
    return json.loads(res.output)


def _scorer() -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location("score_pastes", os.path.join(ROOT, "scripts", "score_pastes.py"))
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_SCORER = _scorer()


def flatten(d: Any) -> Dict[str, Any]:
    """Facts as leaf paths, the way the scorer compares them (scripts/score_pastes.py: one definition)."""
    return _SCORER.flatten(d)


def test_every_set_is_labelled_and_has_facts():
    assert len([c for c in CASES if c[0] == "dev"]) == 31 and len([c for c in CASES if c[0] == "dev2"]) == 18
    for set_name, name, _ in CASES:
        assert os.path.exists(os.path.join(SETS[set_name], name[: -len(".txt")] + ".facts.json")), name


@pytest.mark.parametrize("set_name,name,label", [
    pytest.param(s, n, lab, marks=pytest.mark.xfail(strict=True, reason=NOT_YET[n])) if n in NOT_YET
    else (s, n, lab) for s, n, lab in CASES])
def test_top_cause_is_the_label(set_name, name, label):
    doc = explain_json(os.path.join(SETS[set_name], name))
    got = doc["matches"][0]["id"] if doc["matches"] else "none"
    assert got == label, [m["id"] for m in doc["matches"][:3]]


@pytest.mark.parametrize("set_name,name", [(s, n) for s, n, _ in CASES])
def test_facts_equal_the_hand_written_file(set_name, name):
    """Field by field, through the CLI (collector window included); nothing certain is added beyond it."""
    doc = explain_json(os.path.join(SETS[set_name], name))
    with open(os.path.join(SETS[set_name], name[: -len(".txt")] + ".facts.json"), encoding="utf-8") as fh:
        want = flatten(json.load(fh))
    have = flatten(doc["facts"])
    assert {k: have.get(k) for k in want} == want
    # facts.claims is what the user typed (labelled a claim, contract §4), as scripts/score_pastes.py counts it
    assert [k for k, v in have.items() if v is not None and k not in want and not k.startswith("claims.")] == []


# --------------------------------------------------------------------------- the second round's readers
def dev2(name: str) -> str:
    with open(os.path.join(SETS["dev2"], name), encoding="utf-8") as fh:
        return fh.read()


def test_conda_transaction_plan_row_gives_a_cpu_jaxlib():
    rep = read_report(dev2("jax-14606-conda-install-plan-jaxlib-0.4.4-cpu.txt"))
    assert rep.formats == ["conda transaction plan"]
    pk = json.loads(rep.captures["packages.json"])
    assert pk["jaxlib"] == "0.4.4=cpu_py311h7146453_1" and pk["jax"].startswith("0.4.4=")
    from envcheck.environment import collect
    from envcheck.matrix import load_matrix

    env = collect(PasteSource(rep), load_matrix())
    assert env.frameworks["jax"].cpu_only is True


def test_jax_issue_form_accelerator_field_says_gpu_was_wanted():
    rep = read_report(dev2("jax-14606-conda-install-plan-jaxlib-0.4.4-cpu.txt"))
    assert rep.lines["gpu-intent"].endswith("GPU")
    top = explain_json(os.path.join(SETS["dev2"], "jax-14606-conda-install-plan-jaxlib-0.4.4-cpu.txt"))["matches"][0]
    assert top["id"] == "framework-cpu-only" and "jax" in top["fixes"][0]


def test_headerless_pip_list_rows():
    rep = read_report(dev2("jax-18027c-pip-list-grep-nvidia-cu12-found-cublas-120205.txt"))
    assert rep.formats == ["pip list"]
    pk = json.loads(rep.captures["packages.json"])
    assert pk["nvidia-cublas-cu12"] == "12.4.2.65" and pk["nvidia-cudnn-cu12"] == "8.9.7.29"
    # a sentence naming a package and a version is not a row (one space, words after it)
    assert not read_report("I use torch 2.0.1 on my laptop\n").found


def test_markdown_environment_bullets_and_gpu_count():
    rep = read_report(dev2("torch-144244-env-bullets-2.5.1-3x-a6000-driver-535-nvjitlink-undefined-symbol.txt"))
    assert "environment bullets" in rep.formats
    f = rep.facts
    assert f["driver"]["version"] == "535.161.07"
    assert [g["name"] for g in f["gpus"]] == ["NVIDIA RTX A6000"] * 3
    assert f["frameworks"]["torch"] == {"version": "2.5.1", "cuda": None, "cudnn": None}  # CUDA not stated
    # "CUDA version: 12.2" names neither the toolkit's nvcc nor torch's build: unknown
    assert f["toolkit"] == {"version": None, "nvcc": None}
    # bullets whose value is not what the key names are not read
    assert not read_report("- **GPU**: yes\n- **NVIDIA driver version**: latest\n").found


def test_yolov5_banner():
    rep = read_report(dev2("yolov5-12476-banner-torch-2.1.1-cu121-gtx1060-export-engine-stops.txt"))
    f = rep.facts
    assert f["frameworks"]["torch"]["version"] == "2.1.1+cu121" and f["frameworks"]["torch"]["cuda"] == "12.1"
    assert f["gpus"] == [{"index": 0, "name": "NVIDIA GeForce GTX 1060", "compute_capability": None}]
    assert f["python"]["version"] == "3.10.0"


def test_ldconfig_grep_lists_only_cudnn9():
    rep = read_report(dev2("stream-whisper-28-ldconfig-cudnn9-only-libcudnn-ops-infer-so8.txt"))
    assert rep.formats == ["ldconfig"]
    assert "libcudnn_ops.so.9 (libc6,x86-64) => /lib/x86_64-linux-gnu/libcudnn_ops.so.9" in rep.captures["ldconfig.txt"]
    assert ".so.8" not in rep.captures["ldconfig.txt"]


def test_report_says_whether_the_framework_reached_the_gpu():
    works = read_report(dev2("torch-144359-collect-env-2.5.1-cu124-8x-h100-tensor-parallel.txt"))
    assert works.lines["gpu-works"] == "torch" and "gpu-fails" not in works.lines
    fails = read_report(dev2("torch-122924-collect-env-2.2.2-cpu-windows-rtx4080-laptop.txt"))
    assert fails.lines["gpu-fails"] == "torch"
    with open(os.path.join(ROOT, "tests", "data", "pastes", "holdback",
                           "diffusers-shivam-18-diffusers-cli-env-wsl1-cu116-false.txt"), encoding="utf-8") as fh:
        assert read_report(fh.read()).lines["gpu-fails"] == "torch"  # "PyTorch version (GPU?): ... (False)"


def test_cpu_build_next_to_nvcc_is_the_cause():
    """A CPU-only torch with a CUDA toolkit installed and no GPU listed (collect_env on Windows)."""
    doc = explain_json(os.path.join(SETS["dev"], "torch-49325-collect-env-1.7.1-cpu-windows-nvcc-10.2.txt"))
    top = doc["matches"][0]
    assert top["id"] == "framework-cpu-only" and "CUDA 10.2 toolkit" in top["fixes"][0]


def test_a_log_line_the_report_contradicts_is_dropped():
    """A 'CPU only' log line on a machine whose report shows torch on the GPU is not that machine's state."""
    from envcheck.explain import explain_text
    from envcheck.explain.rank import add_findings

    text = dev2("torch-144359-collect-env-2.5.1-cu124-8x-h100-tensor-parallel.txt")
    log = "AssertionError: Torch not compiled with CUDA enabled\n"
    matches = explain_text(log)
    assert matches and matches[0].id == "framework-cpu-only"
    rep = read_report(text)
    assert add_findings(list(matches), None, None, rep.lines) == matches  # no env: nothing dropped
    from envcheck.environment import collect
    from envcheck.matrix import load_matrix

    m = load_matrix()
    assert add_findings(explain_text(log), collect(PasteSource(rep), m), m, rep.lines) == []
    # the same line next to a report where CUDA is not available stays
    cpu = read_report(dev2("torch-122924-collect-env-2.2.2-cpu-windows-rtx4080-laptop.txt"))
    got = add_findings(explain_text(log), collect(PasteSource(cpu), m), m, cpu.lines)
    assert got and got[0].id == "framework-cpu-only"


def test_a_gpu_older_than_every_toolkit_target_gets_no_current_build():
    """GeForce 210 (compute capability 1.2, NVIDIA's table, gpus.toml) under torch 1.2.0: no build of any torch can
    run there, so the fix says so rather than "choose a build"."""
    doc = explain_json(os.path.join(SETS["dev"], "torch-31876-collect-env-1.2.0-geforce210-driver-342-nvcc.txt"))
    top = doc["matches"][0]
    assert top["id"] == "gpu-arch-unsupported"
    assert "compute capability 1.2" in top["fixes"][0] and "No current CUDA build of torch supports this GPU" in \
        top["fixes"][0]
    assert doc["facts"]["gpus"][0]["compute_capability"] is None  # the report does not print it


TF_FORM = os.path.join(ROOT, "tests", "data", "pastes", "tf-form")


def test_tf_after_2_10_on_native_windows_is_a_cpu_build():
    """TensorFlow 2.13 on native Windows (the form's OS field) with a GPU named: the matrix row says 2.13 has no
    native-Windows GPU build, so the reason the GPU goes unused is a CPU-only build; the fix names WSL2 and the
    last native-Windows GPU release with its tested CUDA/cuDNN (engine, tensorflow.toml)."""
    path = os.path.join(TF_FORM, "tf-61288-template-2.13-windows10-gtx1050ti.txt")
    with open(path, encoding="utf-8") as fh:
        rep = read_report(fh.read())
    assert rep.lines["os"] == "Windows 10 Pro 22H2" and "platform" in json.loads(rep.captures["python.json"])
    doc = explain_json(path)
    top = doc["matches"][0]
    assert top["id"] == "framework-cpu-only"
    fix = top["fixes"][0]
    assert "WSL2" in fix and "2.10.1" in fix and "CUDA 11.2" in fix and "cuDNN 8.1" in fix
    assert "Windows 10 Pro 22H2" in top["evidence"]
    assert doc["facts"]["frameworks"]["tensorflow"] == {"version": "2.13.0", "cuda": None, "cudnn": None}


def test_tf_under_wsl2_is_not_the_native_windows_case():
    from envcheck.environment import collect
    from envcheck.matrix import load_matrix

    with open(os.path.join(TF_FORM, "tf-60101-template-2.12.0-windows11-wsl2.txt"), encoding="utf-8") as fh:
        rep = read_report(fh.read())
    assert json.loads(rep.captures["python.json"])["platform"] == "linux"
    env = collect(PasteSource(rep), load_matrix())
    assert env.frameworks["tensorflow"].cpu_only is not True


@pytest.mark.parametrize("version,platform,cpu", [("2.13.0", "win32", True), ("2.10.1", "win32", None),
                                                  ("2.13.0", "linux", None), ("9.9.0", "win32", None)])
def test_native_windows_tf_cpu_build_comes_from_the_matrix(version, platform, cpu):
    """windows_gpu = false in tensorflow.toml (2.11 and later) makes a native-Windows TF a CPU build; 2.10 has a
    Windows GPU build; Linux is untouched; a series the matrix does not know stays unknown."""
    from envcheck.environment import collect
    from envcheck.matrix import load_matrix

    text = f"### TensorFlow version\n\n{version}\n\n### OS platform and distribution\n\n" \
           f"{'Windows 11' if platform == 'win32' else 'Linux Ubuntu 22.04'}\n"
    env = collect(PasteSource(read_report(text)), load_matrix())
    assert env.frameworks["tensorflow"].cpu_only is cpu


def test_wsl1_is_said_by_the_driver_check_itself():
    """WSL1 (Platform Linux-4.4.0-19041-Microsoft) under a CUDA build: status's own no-gpu-driver finding is an
    error that names WSL1 and the conversion to WSL2 (written once, in checks/driver.py)."""
    from envcheck.checks import Context, run_checks
    from envcheck.environment import collect
    from envcheck.matrix import load_matrix

    with open(os.path.join(ROOT, "tests", "data", "pastes", "holdback",
                           "diffusers-shivam-18-diffusers-cli-env-wsl1-cu116-false.txt"), encoding="utf-8") as fh:
        rep = read_report(fh.read())
    m = load_matrix()
    env = collect(PasteSource(rep), m)
    assert env.host.wsl == "WSL1"
    f = [x for x in run_checks(env, m, Context()) if x.id == "no-gpu-driver"]
    assert f and f[0].severity.name == "ERROR" and f[0].message.startswith("WSL1 has no GPU support")
    assert "wsl --set-version" in f[0].fix and "WSL2: install" not in f[0].fix


# -- jax.print_environment_info() of jax >= 0.4.2x: one "device info" line instead of the device list --------------
JAX_ENV = os.path.join(ROOT, "tests", "data", "pastes", "jax-env")


@pytest.mark.parametrize("name, works, fails", [
    ("jax-0.10.2-device-info-rtx-pro-6000-xla-bug.txt", "jax", None),  # device_kind = the GPU's name
    ("jax-0.11.2-device-info-cpu-windows-disable-jit.txt", None, "jax"),  # device_kind "cpu"
])
def test_jax_device_info_line_says_which_backend_ran(name, works, fails):
    from envcheck.paste.sections import read_report

    with open(os.path.join(JAX_ENV, name), encoding="utf-8") as fh:
        rep = read_report(fh.read())
    assert "jax.print_environment_info" in rep.formats
    assert rep.lines.get("gpu-works") == works and rep.lines.get("gpu-fails") == fails


def test_jax_device_info_on_a_gpu_is_not_a_cpu_only_build(tmp_path):
    """A jax report whose device_kind is a GPU name, next to CUDA evidence (an nvidia-smi table), is a GPU
    build that ran: no cpu-only alarm, and the same report with device_kind "cpu" is one."""
    with open(os.path.join(JAX_ENV, "jax-0.10.2-device-info-rtx-pro-6000-xla-bug.txt"), encoding="utf-8") as fh:
        text = fh.read().split("```\n\n```", 1)[0] + "```\n"
    with open(os.path.join(ROOT, "tests", "data", "nvidia-smi", "525.105.17-tesla-v100-sxm2.txt"), encoding="utf-8") as fh:
        smi = fh.read()
    ids = {}
    for kind, line in (("gpu", "device info: NVIDIA RTX PRO 6000 Blackwell Server Edition-1, 1 local devices"),
                       ("cpu", "device info: cpu-1, 1 local devices")):
        p = tmp_path / f"{kind}.txt"
        p.write_text(text.replace("device info: NVIDIA RTX PRO 6000 Blackwell Server Edition-1, 1 local devices", line)
                     + "\n$ nvidia-smi\n" + smi, encoding="utf-8")
        res = CliRunner().invoke(cli, ["explain", str(p), "--json", "--no-detect"])
        ids[kind] = [m["id"] for m in json.loads(res.output)["matches"]]
    assert "framework-cpu-only" not in ids["gpu"]
    assert ids["cpu"][:1] == ["framework-cpu-only"]
